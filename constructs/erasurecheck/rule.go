package erasurecheck

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Severity is how much a rule's finding weighs: an error fails the check and
// the synth; a warning is advice, reported and never failing.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Source is where what a rule enforces comes from.
type Source string

// The sources.
const (
	// FromSeed: the channel's constants and their derivations
	// (contract/constants.json). Never acknowledgeable.
	FromSeed Source = "seed"
	// FromAWS: an AWS quota or documented behaviour, cited in the rule's
	// reference.
	FromAWS Source = "aws"
	// FromLockdown: the channel's lockdown: who may do what to its
	// resources (docs/lockdown-and-access.md).
	FromLockdown Source = "lockdown"
	// FromCheck: what the check can read; a finding says it could not
	// judge something and never that it is wrong.
	FromCheck Source = "check"
)

// Rule is one rule of the app-wide check: declared once, in the family file
// that implements it, and listed by Rules, `erasurectl check --list-rules`
// and docs/check-rules.md.
type Rule struct {
	// ID is stable: a rule renamed or reworded keeps it, a rule removed
	// never gives it to another.
	ID string
	// Name is the rule's CamelCase name, as cdk-nag names its rules.
	Name string
	// Title is one line: what the rule refuses.
	Title string
	// Why is what goes wrong on AWS when the rule is broken.
	Why string
	// Fix is what to change.
	Fix string
	// Severity of its findings.
	Severity Severity
	// Type is the problem type its findings carry (a rule that maps a shared
	// rule's problems, timing.SubscriberSettings.Check or CheckBitmapBucket, keeps theirs).
	Type problem.Type
	// Source and Reference: where what it enforces comes from (a constant of
	// contract/constants.json, an AWS documentation page, the lockdown).
	Source    Source
	Reference string
	// Acknowledgeable says whether a team may acknowledge a finding of it
	// with a reason (Acknowledge, --acknowledgements). The seed's caps and
	// derivations, and what breaks an erasure outright, never are.
	Acknowledgeable bool
}

// HelpURI is the rule's section of docs/check-rules.md.
func (r *Rule) HelpURI() string {
	return "https://github.com/linn-cloud/erasure-channel/blob/main/docs/check-rules.md#" + strings.ToLower(r.ID)
}

// String is "ID Name".
func (r *Rule) String() string { return r.ID + " " + r.Name }

// constantRef is a constant named in a rule's text, {handlerTimeoutCapSeconds}:
// the text states the number, declared once in the constants file.
var constantRef = regexp.MustCompile(`\{[a-zA-Z.]+\}`)

// registry is every rule, by id.
var registry = map[string]*Rule{}

// declare registers a rule; a second rule with one id or name is a
// programming error, found by the first test that loads the package.
func declare(r Rule) *Rule {
	if _, dup := registry[r.ID]; dup {
		panic("erasurecheck: rule id declared twice: " + r.ID)
	}
	for _, o := range registry {
		if o.Name == r.Name {
			panic("erasurecheck: rule name declared twice: " + r.Name)
		}
	}
	if r.Severity == "" {
		r.Severity = SeverityError
	}
	if r.Severity == SeverityWarning && !r.Acknowledgeable {
		// CDK's report offers an acknowledgement under every violation but a
		// fatal one: a warning is never fatal, so it must be one a team may make.
		panic("erasurecheck: rule " + r.ID + " is a warning that may not be acknowledged")
	}
	c := contract.Channel()
	for _, text := range []*string{&r.Title, &r.Why, &r.Fix} {
		*text = constantRef.ReplaceAllStringFunc(*text, func(m string) string {
			v, ok := c.Named(m[1 : len(m)-1])
			if !ok {
				panic("erasurecheck: rule " + r.ID + " names no constant: " + m)
			}
			return strconv.Itoa(v)
		})
	}
	registry[r.ID] = &r
	return &r
}

// Rules returns every rule, ordered by id.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RuleByID returns the rule with id, or nil.
func RuleByID(id string) *Rule { return registry[id] }

// Implementation is where a rule lives in the source: the functions that
// report it, and the test that holds it to its fixtures (rule_sources.go,
// generated from the package's source; docs/check-rules.md shows it).
type Implementation struct {
	Functions []string
	Fixture   string
	// File declares the rule, beside a function that reports it.
	File string
}

// Implementation is where r lives in the source.
func (r *Rule) Implementation() Implementation { return ruleSources[r.Name] }

// storeFamily is a family of rules judged per store: its rules and the
// function that judges one store by them. checkStore reads the store, then
// walks storeFamilies.
type storeFamily struct {
	name  string
	rules []*Rule
	check func(a *assembly, sc *storeCheck)
}

// problemOf is a line of rule r at path.
func problemOf(r *Rule, path problem.Path, detail string) problem.Problem {
	return problem.Problem{Path: path, Type: r.Type, Detail: detail}
}

// Violation is a finding as a policy validation report states it: the
// plugins of both languages (Report; the package's ErasureCheck) fill CDK's
// report from it.
type Violation struct {
	RuleName string `json:"ruleName"` // the rule's id
	// Severity is "fatal" for an error of a rule that may not be
	// acknowledged: CDK neither offers nor applies an acknowledgement of a
	// fatal violation. "error" for an error that may be acknowledged (CDK
	// offers Validations.acknowledge of erasure-channel::ECnnn, which the
	// check honours under its own rules); "warning" for advice; "info" once
	// acknowledged.
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description"` // the finding's line; an acknowledgement's reason after it
	Fix         string `json:"fix"`
	HelpURI     string `json:"helpUri"`
}

// ViolationOf states f as a validation report's violation.
func ViolationOf(f Finding) Violation {
	v := Violation{Severity: "fatal", Description: f.String()}
	if r := f.Rule; r != nil {
		v.RuleName, v.Title, v.Fix, v.HelpURI = r.ID, r.Title, r.Fix, r.HelpURI()
		if f.Fix != "" {
			v.Fix = f.Fix
		}
		v.Description = r.ID + " " + f.String()
		switch {
		case r.Severity == SeverityWarning:
			v.Severity = "warning"
		case r.Acknowledgeable:
			v.Severity = "error"
		}
	}
	if k := f.Acknowledged; k != nil {
		v.Severity = "info"
		v.Description = "acknowledged: " + v.Description + " (reason: " + k.Reason + ")"
	}
	return v
}
