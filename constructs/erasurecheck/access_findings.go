package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Access builds the access matrix of cloud assembly directories (nested
// assemblies and stacks included) or templates, as CheckPaths reads them.
func Access(paths []string, cfg Config) (*accessmodel.Matrix, error) {
	a, err := readPaths(paths)
	if err != nil {
		return nil, err
	}
	if err := a.setOrganisation(cfg); err != nil {
		return nil, err
	}
	return a.accessMatrix(cfg), nil
}

func (a *assembly) accessMatrix(cfg Config) *accessmodel.Matrix {
	cfg.Access = false
	return a.matrixOf(a.check(cfg).Stores, cfg, nil)
}

// findings are the failing cells, one line per resource and kind of
// failure (a widened policy fails many cells at once), on the resource they
// reach, naming the first few cells.
func matrixFindings(m *accessmodel.Matrix) Findings {
	return failingFindings(m, func(accessmodel.Cell) bool { return true })
}

// failingFindings is matrixFindings over the failing cells keep admits.
func failingFindings(m *accessmodel.Matrix, keep func(accessmodel.Cell) bool) Findings {
	type group struct {
		resource string
		typ      problem.Type
	}
	var order []group
	cells := map[group][]accessmodel.Cell{}
	for _, c := range m.Failing() {
		if !keep(c) {
			continue
		}
		typ := problem.BreaksErasure
		switch {
		case c.Got == iameval.Undecided:
			typ = problem.Invalid
		case c.Want == iameval.Allowed:
			typ = problem.Missing
		}
		g := group{c.Resource, typ}
		if cells[g] == nil {
			order = append(order, g)
		}
		cells[g] = append(cells[g], c)
	}
	var out Findings
	for _, g := range order {
		list := cells[g]
		var names []string
		for i, c := range list {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more (erasurectl access --failing)", len(list)-3))
				break
			}
			names = append(names, c.Principal+" "+c.Action)
		}
		first := list[0]
		var detail string
		switch g.typ {
		case problem.Invalid:
			detail = fmt.Sprintf("the check cannot judge %d cells (%s): %s; use the condition operators the channel's policies use, or leave the statement out", len(list), strings.Join(names, ", "), first.Because)
		case problem.Missing:
			detail = fmt.Sprintf("the channel needs %d cells allowed, and the synthesized policies deny them (%s; first: %s): the data path fails at run time", len(list), strings.Join(names, ", "), first.Because)
		default:
			detail = fmt.Sprintf("the channel needs %d cells denied, and the synthesized policies allow them (%s; first: %s): narrow the policy", len(list), strings.Join(names, ", "), first.Because)
		}
		r := m.Target(g.resource)
		rule := ruleAccessWidened
		switch g.typ {
		case problem.Invalid:
			rule = ruleAccessJudgeable
		case problem.Missing:
			rule = ruleAccessNeeded
		}
		f := findings{t: r.Template}
		f.addProblem(rule, r.ID, nil, problem.Problem{Path: problem.Root("Access").Key(g.resource), Type: g.typ, Detail: detail})
		out = append(out, f.out...)
	}
	return out
}

func storeName(s Store) string {
	if s.Spec.Name != "" {
		return s.Spec.Name
	}
	return s.Stack + "/" + s.QueueID
}

// The rules this file reports.
var (
	ruleAccessNeeded = declare(Rule{ID: "EC611", Name: "AccessNeededAllowed", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel needs is allowed",
		Why:   "The data path fails at run time: a delivery, a read, an answer or a key use is denied.",
		Fix:   "Restore the grant the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessWidened = declare(Rule{ID: "EC612", Name: "AccessOthersDenied", Type: problem.BreaksErasure, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel must deny is denied",
		Why:   "A widened policy lets another principal publish an ERASE, send a forged request, answer for a store or use its key.",
		Fix:   "Narrow the policy the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessJudgeable = declare(Rule{ID: "EC613", Name: "AccessJudgeable", Type: problem.Invalid, Source: FromCheck, Reference: "docs/lockdown-and-access.md",
		Title: "Every policy on the channel's resources can be judged",
		Why:   "A condition operator or key the evaluator does not model leaves a cell undecided, and an undecided lockdown is not a lockdown.",
		Fix:   "Use the condition operators the channel's policies use, or leave the statement out."})
)
