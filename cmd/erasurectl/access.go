package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

type accessCmd struct {
	Paths    []string `arg:"" name:"path" help:"A cloud assembly directory (cdk.out) or CloudFormation templates (JSON or YAML)."`
	TopicArn []string `name:"topic-arn" help:"The erasure topic's ARN, for a channel deployed by another app (repeatable)."`
	Format   string   `enum:"text,json" default:"text" help:"Output: text (a table) or json."`
	Failing  bool     `name:"failing" help:"Print only the cells that do not hold."`
	Every    bool     `name:"every-account" help:"Ask every account's principals of every resource, not one account of each class its policy draws (the same decisions; slow with many accounts)."`
	MaxRows  int      `name:"max-rows" default:"${accessMaxRows}" help:"Print the whole table only up to this many cells; past it, the classes and the failing cells alone, and a line that says so."`
	orgPolicyFlags
}

// accessMaxRows is how many cells erasurectl access prints whole by
// default: a million lines, about 100 MB of text, in well under a minute.
// An assembly of 10,000 roles made a table of 9.8 million cells that took
// past 120 s and 2 GiB to print; its verdict and failing cells take 15 s.
const accessMaxRows = 1_000_000

// Run evaluates the channel's data path over the synthesized policies and
// exits 1 when a cell is not what the channel needs.
func (c *accessCmd) Run(g *globals) error {
	scps, rcps, units, err := c.Policies()
	if err != nil {
		return err
	}
	org, err := c.Organization()
	if err != nil {
		return err
	}
	m, err := erasurecheck.Access(c.Paths, erasurecheck.Config{TopicArns: c.TopicArn, EveryAccount: c.Every, SCPs: scps, RCPs: rcps, Units: units, OrganizationID: org})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	failing := m.Failing()
	cells := m.Cells
	capped := !c.Failing && len(cells) > c.MaxRows
	if c.Failing || capped {
		cells = failing
	}
	if c.Format == "json" || g.JSON {
		out := struct {
			Classes []accessmodel.ClassCount `json:"classes"`
			Cells   []accessmodel.Cell       `json:"cells"`
			Failing int                      `json:"failing"`
			Capped  bool                     `json:"capped,omitempty"`
		}{Classes: m.Classes(), Cells: append([]accessmodel.Cell{}, cells...), Failing: len(failing), Capped: capped}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(g.Stdout, string(b))
	} else {
		fmt.Fprintf(g.Stdout, "access matrix: %d cells, %d do not hold\n\n", len(m.Cells), len(failing))
		w := tabwriter.NewWriter(g.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(w, "CLASS\tPRINCIPALS\tCELLS\tNEEDED ALLOWED\tFAILING")
		for _, cc := range m.Classes() {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\n", cc.Class, cc.Principals, cc.Cells, cc.Allowed, cc.Failing)
		}
		w.Flush()
		fmt.Fprintln(g.Stdout)
		if capped {
			fmt.Fprintf(g.Stdout, "the table's %d cells are past --max-rows %d: only the %d failing cells follow\n\n", len(m.Cells), c.MaxRows, len(failing))
		}
		w = tabwriter.NewWriter(g.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(w, "\tPRINCIPAL\tACTION\tRESOURCE\tNEEDED\tPOLICIES\tBECAUSE")
		for i, cell := range cells {
			mark := "ok"
			if !cell.Holds() {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, cell.Principal, cell.Action, cell.Resource, cell.Want, cell.Got, cell.Because)
			if i%4096 == 4095 {
				w.Flush() // a table of a million cells is not held whole
			}
		}
		w.Flush()
	}
	if n := len(failing); n > 0 {
		return fail(exitCheckFailed, "%d access cells do not hold", n)
	}
	if len(m.Cells) == 0 {
		return fail(exitCheckFailed, "no part of the channel's data path was found, so nothing was evaluated: synthesize the app first or name the topic with --topic-arn")
	}
	return nil
}
