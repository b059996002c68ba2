package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/stacks"
)

type synthFlags struct {
	Out     string `default:"cdk.out" help:"The cloud assembly directory."`
	CDKJSON string `name:"cdk-json" default:"cdk.json" help:"The cdk.json whose context the app reads."`
}

type synthCmd struct {
	synthFlags
}

// synthesize runs the app into f.Out and reads its stores back.
func (f synthFlags) synthesize(g *globals) ([]local.TemplateStore, error) {
	props, err := stacks.LocalAppProps(f.CDKJSON, f.Out)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	if _, err := stacks.Synthesize(props); err != nil {
		var se *stacks.SynthError
		if errors.As(err, &se) {
			fmt.Fprintln(g.Stderr, "synth refused; every violation:")
			for _, l := range se.Lines {
				fmt.Fprintln(g.Stderr, "  "+l)
			}
			return nil, fail(exitCheckFailed, "%d violations", len(se.Lines))
		}
		return nil, fail(exitEnvironment, "%v", err)
	}
	stores, err := local.StoresFromTemplates(f.Out)
	if err != nil {
		return nil, fail(exitEnvironment, "%v", err)
	}
	return stores, nil
}

// wiringProblems runs the app-wide check over the cloud assembly in dir.
func wiringProblems(dir string) (problem.List, error) {
	r, err := erasurecheck.CheckDirectory(dir, erasurecheck.Config{})
	if err != nil {
		return nil, err
	}
	return r.Findings.Problems(), nil
}

type capCell struct {
	Value int `json:"value"`
	Cap   int `json:"cap"`
}

type storeRow struct {
	Name              string     `json:"name"`
	Stack             string     `json:"stack"`
	Queue             string     `json:"queue"`
	DeadLetterQueue   string     `json:"deadLetterQueue"`
	HandlerTimeout    capCell    `json:"handlerTimeoutSeconds"`
	VisibilityTimeout capCell    `json:"visibilityTimeoutSeconds"` // cap: exactly multiplier x handler timeout
	MaxReceiveCount   capCell    `json:"maxReceiveCount"`
	PassTwoDelay      capCell    `json:"passTwoDelaySeconds"`
	BatchTimeout      capCell    `json:"batchTimeoutSeconds"`
	Bitmap            *bitmapRow `json:"bitmapBucket,omitempty"`
	Violations        []string   `json:"violations"`
}

// bitmapRow is a bitmap store's bucket: its read TTL against the store's
// pass-two delay, and its declared bound on noncurrent versions against the cap.
type bitmapRow struct {
	Bucket                  string  `json:"bucket"`
	Prefix                  string  `json:"prefix"`
	ReadTTLMillis           capCell `json:"readTtlMilliseconds"` // cap: the pass-two delay
	NoncurrentVersionExpiry capCell `json:"noncurrentVersionExpiryDays"`
	// Lingering is the longest any copy of an erased id can survive
	// (noncurrent versions, backups), against the noncurrent-version cap.
	Lingering       capCell  `json:"lingeringBoundDays"`
	LingeringCopies []string `json:"lingeringCopies"`
}

// storeRows is one row per store, with its problems from the app-wide check.
func storeRows(stores []local.TemplateStore, wiring problem.List, c contract.Constants) []storeRow {
	var rows []storeRow
	for _, s := range stores {
		st := s.Spec.Settings
		r := storeRow{
			Name: s.Spec.Name, Stack: s.Stack, Queue: s.QueueID, DeadLetterQueue: s.DeadLetterID,
			HandlerTimeout:    capCell{st.HandlerTimeoutSeconds, c.HandlerTimeoutCapSeconds},
			VisibilityTimeout: capCell{st.VisibilityTimeoutSeconds, timing.VisibilityFor(c, st.HandlerTimeoutSeconds)},
			MaxReceiveCount:   capCell{st.MaxReceiveCount, c.MaxReceiveCount},
			PassTwoDelay:      capCell{st.PassTwoDelaySeconds, c.PassTwoDelayCapSeconds},
			BatchTimeout:      capCell{st.BatchTimeoutSeconds, min(c.BatchTimeoutCapSeconds, st.HandlerTimeoutSeconds)},
			Violations:        []string{},
		}
		if b := s.Bitmap; b != nil {
			r.Bitmap = &bitmapRow{Bucket: b.BucketID, Prefix: b.Prefix,
				ReadTTLMillis:           capCell{b.ReadTTLMillis, st.PassTwoDelaySeconds * 1000},
				NoncurrentVersionExpiry: capCell{b.NoncurrentVersionExpiryDays(), c.NoncurrentVersionExpiryCapDays},
				Lingering:               capCell{b.LingeringDays, c.NoncurrentVersionExpiryCapDays},
				LingeringCopies:         append([]string{}, b.LingeringCopies...)}
		}
		for _, p := range wiring {
			if p.Path.Under(s.Path) {
				r.Violations = append(r.Violations, p.String())
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func (s *synthCmd) Run(g *globals) error {
	stores, err := s.synthesize(g)
	if err != nil {
		return err
	}
	c := contract.Channel()
	wiring, err := wiringProblems(s.Out)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	rows := storeRows(stores, wiring, c)
	broken := wiring.Strings() // the bitmap buckets' problems are the check's too
	access, err := erasurecheck.Access([]string{s.Out}, erasurecheck.Config{})
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	failing := access.Failing()
	for _, cell := range failing {
		broken = append(broken, fmt.Sprintf("access: %s %s %s: the channel needs it %s, the policies say %s (%s)", cell.Principal, cell.Action, cell.Resource, cell.Want, cell.Got, cell.Because))
	}
	if g.JSON {
		b, _ := json.MarshalIndent(map[string]any{"out": s.Out, "stores": rows,
			"access": map[string]any{"cells": len(access.Cells), "failing": append([]accessmodel.Cell{}, failing...)}}, "", "  ")
		fmt.Fprintln(g.Stdout, string(b))
	} else {
		fmt.Fprintf(g.Stdout, "synthesized to %s: %d stores\n\n", s.Out, len(rows))
		printStoreTable(g, rows)
		fmt.Fprintf(g.Stdout, "\naccess matrix over the synthesized policies: %d cells, %d do not hold (every cell: erasurectl access %s)\n", len(access.Cells), len(failing), s.Out)
	}
	if len(broken) > 0 {
		for _, v := range broken {
			fmt.Fprintln(g.Stderr, "  "+v)
		}
		return fail(exitCheckFailed, "%d violations", len(broken))
	}
	return nil
}

func printStoreTable(g *globals, rows []storeRow) {
	w := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "STORE\tSTACK\tQUEUE\tDLQ\tHANDLER TIMEOUT\tVISIBILITY\tMAX RECEIVE\tPASS-TWO DELAY\tBATCH TIMEOUT\tCAPS\t")
	for _, r := range rows {
		ok := "ok"
		if len(r.Violations) > 0 {
			ok = fmt.Sprintf("%d BROKEN", len(r.Violations))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d s / %d\t%d s = %d\t%d / %d\t%d s / %d\t%d s / %d\t%s\n",
			r.Name, r.Stack, r.Queue, r.DeadLetterQueue,
			r.HandlerTimeout.Value, r.HandlerTimeout.Cap, r.VisibilityTimeout.Value, r.VisibilityTimeout.Cap,
			r.MaxReceiveCount.Value, r.MaxReceiveCount.Cap, r.PassTwoDelay.Value, r.PassTwoDelay.Cap,
			r.BatchTimeout.Value, r.BatchTimeout.Cap, ok)
	}
	_ = w.Flush()
	var bitmaps []storeRow
	for _, r := range rows {
		if r.Bitmap != nil {
			bitmaps = append(bitmaps, r)
		}
	}
	if len(bitmaps) == 0 {
		return
	}
	fmt.Fprintln(g.Stdout, "\nbitmap store buckets (an erased id lingers in noncurrent versions and backups until their expiry; the lingering bound is the longest):")
	w = tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "STORE\tBUCKET\tPREFIX\tREAD TTL / PASS-TWO DELAY\tNONCURRENT VERSIONS EXPIRE\tLINGERING BOUND\tCOPIES\t")
	for _, r := range bitmaps {
		b := r.Bitmap
		copies := strings.Join(b.LingeringCopies, ", ")
		if copies == "" {
			copies = "none bounded"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d ms / %d ms\tafter %d days / cap %d\t%d days / cap %d\t%s\t\n", r.Name, b.Bucket, b.Prefix,
			b.ReadTTLMillis.Value, b.ReadTTLMillis.Cap, b.NoncurrentVersionExpiry.Value, b.NoncurrentVersionExpiry.Cap,
			b.Lingering.Value, b.Lingering.Cap, copies)
	}
	_ = w.Flush()
}
