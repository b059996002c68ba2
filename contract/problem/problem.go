// Package problem is the channel's one validation vocabulary: the kinds of
// problem (Type), where a problem is (Path, built, never joined by hand), a
// Problem that is an error, and a List that is one too. The constructs, the
// plan, the app-wide check and the store handler's configuration all report
// in it, as Kubernetes' field.ErrorList does for its API. It imports only
// the standard library, so everything can.
package problem

import (
	"fmt"
	"strconv"
	"strings"
)

// Type classifies a problem. Tests compare the type and the path, never the
// prose.
type Type string

// The problem types.
const (
	AboveCap        Type = "AboveCap"        // past a channel cap or an AWS limit
	BelowMinimum    Type = "BelowMinimum"    // below the least that works
	NotDerived      Type = "NotDerived"      // must equal a derivation and does not
	UnresolvedToken Type = "UnresolvedToken" // a value only deploy knows where one must be checked at synth
	FIFO            Type = "FIFO"            // pass two needs per-message delay
	Invalid         Type = "Invalid"         // wrong shape: a name, a fraction, a missing input
	BreaksTiming    Type = "BreaksTiming"    // within the caps, but the sum breaks R
	BreaksErasure   Type = "BreaksErasure"   // deploys cleanly, then silently defeats an erasure
	Missing         Type = "Missing"         // a required safeguard is absent
	ConfusedDeputy  Type = "ConfusedDeputy"  // a service may act for any resource, not only the channel's
)

// Path is where a problem is: a root, then fields, keys and indexes, as
// ErasureSubscriber[orders].handler.role or ErasureChannel.stores[2].name.
// It is a value: each step returns a new Path and leaves the receiver as it
// was. The zero Path is empty.
type Path struct{ steps []step }

type stepKind uint8

const (
	field stepKind = iota // .name (the root is a field with no dot)
	key                   // [key]
	index                 // [i]
)

type step struct {
	kind stepKind
	name string
	i    int
}

// Root is a path of one field: the construct or resource a problem is of.
func Root(name string) Path { return Path{}.Child(name) }

func (p Path) with(s step) Path {
	out := make([]step, len(p.steps), len(p.steps)+1)
	copy(out, p.steps)
	return Path{steps: append(out, s)}
}

// Child is p's field name.
func (p Path) Child(name string) Path { return p.with(step{kind: field, name: name}) }

// Key is p's entry k: a named member of a collection.
func (p Path) Key(k string) Path { return p.with(step{kind: key, name: k}) }

// Index is p's i-th item.
func (p Path) Index(i int) Path { return p.with(step{kind: index, i: i}) }

// IsZero says whether p has no step.
func (p Path) IsZero() bool { return len(p.steps) == 0 }

// RootName is p's first field ("" when p is empty): what the problem is of.
func (p Path) RootName() string {
	if len(p.steps) > 0 && p.steps[0].kind == field {
		return p.steps[0].name
	}
	return ""
}

// Under says whether p is below parent: parent's steps, then at least one more.
func (p Path) Under(parent Path) bool {
	if len(p.steps) <= len(parent.steps) {
		return false
	}
	for i, s := range parent.steps {
		if p.steps[i] != s {
			return false
		}
	}
	return true
}

// Field is p's last field name ("" when p ends with a key or an index or is
// empty): what a rule about one setting matches on.
func (p Path) Field() string {
	if n := len(p.steps); n > 0 && p.steps[n-1].kind == field {
		return p.steps[n-1].name
	}
	return ""
}

// String renders p: fields joined by dots, keys and indexes in brackets.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		switch s.kind {
		case field:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case key:
			b.WriteByte('[')
			b.WriteString(s.name)
			b.WriteByte(']')
		case index:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.i))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// MarshalText renders p (String), so a Problem encodes to JSON with its path
// as the line names it.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a rendered path (Parse).
func (p *Path) UnmarshalText(b []byte) error {
	*p = Parse(string(b))
	return nil
}

// Parse reads a rendered path back into its steps: a bracketed part that is
// a whole number is an index, any other a key. Parse(p.String()) equals p
// for every path whose fields hold no '.', '[' or ']', and whose keys no ']'
// and are not whole numbers.
func Parse(s string) Path {
	var p Path
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return p.Child(s)
			}
			k := s[1:end]
			if n, err := strconv.Atoi(k); err == nil && n >= 0 && strconv.Itoa(n) == k {
				p = p.Index(n)
			} else {
				p = p.Key(k)
			}
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			p = p.Child(s[:end])
			s = s[end:]
		}
	}
	return p
}

// Problem is one problem: where, what kind, and the value and the bound it
// breaks. It is an error; its text never holds a message body, key, address
// or request id, only configuration.
type Problem struct {
	// RuleID is the rule the problem breaks, as docs/check-rules.md and the
	// app-wide check name it (EC201): the construct's refusal and the
	// check's finding of one value name one rule. "" where no rule names it.
	RuleID string `json:",omitempty"`
	Path   Path
	Type   Type
	Detail string
	// Fix is what to change, in the words of whoever reported the problem (a
	// construct's props, a template's properties); "" when not known.
	Fix string `json:",omitempty"`
}

// New is the problem of type t at path.
func New(path Path, t Type, format string, args ...any) Problem {
	return Problem{Path: path, Type: t, Detail: fmt.Sprintf(format, args...)}
}

// String is the problem's line: its rule, path, type and detail
// ("EC201 ErasureSubscriber[orders].handlerTimeout: AboveCap: 120 is above
// the cap of 60 (…)").
func (p Problem) String() string {
	line := p.Path.String() + ": " + string(p.Type) + ": " + p.Detail
	if p.RuleID != "" {
		line = p.RuleID + " " + line
	}
	return line
}

// Refusal is the problem as a construct refuses it: its line (String), then
// its fix on a second line, indented, when it has one.
func (p Problem) Refusal() string {
	if p.Fix == "" {
		return p.String()
	}
	return p.String() + "\n  Fix: " + p.Fix
}

// Error is String: a Problem is an error.
func (p Problem) Error() string { return p.String() }

// List is every problem of one construct, configuration or check, reported
// together. It is an error when not empty (Err).
type List []Problem

// Add appends the problem of type t at path.
func (l *List) Add(path Path, t Type, format string, args ...any) {
	*l = append(*l, New(path, t, format, args...))
}

// Strings returns one line per problem.
func (l List) Strings() []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.String()
	}
	return out
}

// Refusals returns each problem's Refusal: its line and its fix.
func (l List) Refusals() []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.Refusal()
	}
	return out
}

// Name gives each problem that has no rule id or fix the ones of names
// (problems it cannot name keep theirs empty): the reporter's one map
// from what went wrong to the rule it breaks and what to change.
func (l List) Name(names func(Problem) (ruleID, fix string)) {
	for i := range l {
		id, fix := names(l[i])
		if l[i].RuleID == "" {
			l[i].RuleID = id
		}
		if l[i].Fix == "" {
			l[i].Fix = fix
		}
	}
}

func (l List) String() string { return strings.Join(l.Strings(), "\n") }

// Error is every problem, one a line.
func (l List) Error() string { return l.String() }

// Err is l as an error, nil when l is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
