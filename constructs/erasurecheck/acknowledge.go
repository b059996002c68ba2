package erasurecheck

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"go.yaml.in/yaml/v3"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
)

// AcknowledgeMetadataType is the construct metadata type an acknowledgement
// is recorded under in a cloud assembly (Acknowledge; the package's
// ErasureCheck.acknowledge): data {"rule": id, "reason": text}.
const AcknowledgeMetadataType = cfnmodel.CheckMetadataPrefix + "acknowledge"

// PluginName is the name CDK's validation report shows for the check, and
// the namespace of its rules in CDK's own acknowledgements
// (erasure-channel::EC323).
const PluginName = "erasure-channel"

// MinReasonLength is the fewest characters an acknowledgement's reason may
// have, as cdk-nag asks of a suppression's.
const MinReasonLength = 10

// Acknowledgement is a team's word that one finding of one rule on one
// construct or resource is known and accepted, and why. An acknowledged
// finding is still reported, as acknowledged; it no longer fails the check.
type Acknowledgement struct {
	// Rule is the rule's id (EC323).
	Rule string `json:"rule" yaml:"rule"`
	// ConstructPath is the construct the acknowledgement is on: it covers the
	// findings on that construct's resources and its children's (Stack/Orders
	// covers Stack/Orders/Queue/Resource).
	ConstructPath string `json:"constructPath,omitempty" yaml:"constructPath,omitempty"`
	// Stack and LogicalID name a resource of a template instead (a plain
	// template's stack is its file name without .template.json/.yaml). Stack
	// may be left out when the logical id is in one template only; a
	// LogicalID left out names the template itself (EC601).
	Stack     string `json:"stack,omitempty" yaml:"stack,omitempty"`
	LogicalID string `json:"logicalId,omitempty" yaml:"logicalId,omitempty"`
	// Reason says why the finding is accepted: at least MinReasonLength
	// characters.
	Reason string `json:"reason" yaml:"reason"`
	// Source is where it was read: "cloud assembly" or the file's name.
	Source string `json:"source,omitempty" yaml:"-"`

	matched bool
}

// Where names what the acknowledgement is on, for its lines.
func (k Acknowledgement) Where() string {
	if k.ConstructPath != "" {
		return k.ConstructPath
	}
	if k.Stack != "" {
		return k.Stack + "/" + k.LogicalID
	}
	return k.LogicalID
}

// covers says whether k acknowledges f.
func (k *Acknowledgement) covers(f Finding) bool {
	if f.Rule == nil || f.Rule.ID != k.Rule {
		return false
	}
	if k.ConstructPath != "" {
		return f.ConstructPath == k.ConstructPath || strings.HasPrefix(f.ConstructPath, k.ConstructPath+"/")
	}
	return f.LogicalID == k.LogicalID && (k.Stack == "" || k.Stack == f.Stack)
}

// AcknowledgementError is an acknowledgement the check refuses: an unknown
// rule, a rule that may not be acknowledged, a reason too short, nothing
// named. The check does not run past it: a guardrail that a typo could
// silence is no guardrail.
type AcknowledgementError struct {
	Source string // "cloud assembly" or the file's name
	Where  string // the construct or resource it is on
	Rule   string
	Err    error // ErrUnknownRule, ErrNotAcknowledgeable, ErrShortReason or ErrNothingNamed, wrapped
}

func (e *AcknowledgementError) Error() string {
	return fmt.Sprintf("erasurecheck: the acknowledgement of %s on %s (%s) is refused: %v", e.Rule, e.Where, e.Source, e.Err)
}

// Unwrap returns the reason it is refused.
func (e *AcknowledgementError) Unwrap() error { return e.Err }

// Why an acknowledgement is refused.
var (
	ErrUnknownRule        = errors.New("there is no such rule (erasurectl check --list-rules lists them)")
	ErrNotAcknowledgeable = errors.New("the rule may not be acknowledged")
	ErrShortReason        = fmt.Errorf("the reason must have at least %d characters", MinReasonLength)
	ErrNothingNamed       = errors.New("it names no construct path and no logical id")
)

// ValidateAcknowledgement says what is wrong with acknowledging rule id with
// reason (nil when nothing): the one judgement the CDK helpers, the file
// reader and the check share.
func ValidateAcknowledgement(id, reason string) error {
	r := RuleByID(id)
	switch {
	case r == nil:
		return ErrUnknownRule
	case !r.Acknowledgeable:
		return fmt.Errorf("%w: %s %s %s; fix what it names", ErrNotAcknowledgeable, r.ID, r.Name, acknowledgeableWhy(r))
	case len([]rune(strings.TrimSpace(reason))) < MinReasonLength:
		return ErrShortReason
	}
	return nil
}

// acknowledgeableWhy says why a rule may not be acknowledged.
func acknowledgeableWhy(r *Rule) string {
	switch r.Source {
	case FromSeed:
		return "enforces the channel's constants, which no store may waive"
	case FromLockdown:
		return "enforces the channel's lockdown"
	}
	return "names what breaks the channel"
}

// validate checks k, read from source.
func (k *Acknowledgement) validate() error {
	k.Rule, k.Reason = strings.TrimSpace(k.Rule), strings.TrimSpace(k.Reason)
	if k.ConstructPath == "" && k.LogicalID == "" && k.Stack == "" {
		return &AcknowledgementError{Source: k.Source, Where: "nothing", Rule: k.Rule, Err: ErrNothingNamed}
	}
	if err := ValidateAcknowledgement(k.Rule, k.Reason); err != nil {
		return &AcknowledgementError{Source: k.Source, Where: k.Where(), Rule: k.Rule, Err: err}
	}
	return nil
}

// maxAcknowledgementBytes bounds an acknowledgements file.
const maxAcknowledgementBytes = 1 << 20

// ParseAcknowledgements reads an acknowledgements file (YAML or JSON):
//
//	acknowledgements:
//	  - rule: EC323
//	    stack: Orders
//	    logicalId: HandlerRole
//	    reason: the landing zone's boundary allows sqs:SendMessage and kms:*
//
// name is the file's name, for the errors. Unknown keys are refused.
func ParseAcknowledgements(b []byte, name string) ([]Acknowledgement, error) {
	if len(b) > maxAcknowledgementBytes {
		return nil, fmt.Errorf("erasurecheck: %s: more than %d bytes", name, maxAcknowledgementBytes)
	}
	var doc struct {
		Acknowledgements []Acknowledgement `yaml:"acknowledgements"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("erasurecheck: %s is not an acknowledgements file (a list under acknowledgements: of rule, constructPath or stack and logicalId, reason): %s", name, yamlErrorLine(err))
	}
	for i := range doc.Acknowledgements {
		doc.Acknowledgements[i].Source = name
		if err := doc.Acknowledgements[i].validate(); err != nil {
			return nil, err
		}
	}
	return doc.Acknowledgements, nil
}

// yamlErrorLine keeps a YAML error's position and kind, never the input it
// quotes.
func yamlErrorLine(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		msg = msg[i:]
		if j := strings.IndexAny(msg, ":"); j >= 0 {
			return msg[:j]
		}
	}
	return "not YAML or JSON of that shape"
}

// assemblyAcknowledgements reads the acknowledgements recorded in the
// cloud assembly's construct metadata.
func (a *assembly) assemblyAcknowledgements() ([]Acknowledgement, error) {
	var out []Acknowledgement
	for _, t := range a.Templates {
		for _, e := range t.CheckMetadata {
			if e.Type == cfnmodel.CDKAcknowledgedRules {
				acks, err := cdkAcknowledgements(e)
				if err != nil {
					return nil, err
				}
				out = append(out, acks...)
				continue
			}
			if e.Type != AcknowledgeMetadataType {
				continue
			}
			m, _ := e.Data.(map[string]any)
			rule, _ := m["rule"].(string)
			reason, _ := m["reason"].(string)
			k := Acknowledgement{Rule: rule, ConstructPath: e.Path, Reason: reason, Source: "cloud assembly"}
			if err := k.validate(); err != nil {
				return nil, err
			}
			out = append(out, k)
		}
	}
	return out, nil
}

// acknowledge marks each finding an acknowledgement covers, and adds a
// warning (EC001) for each acknowledgement that covers none. An
// acknowledgement of EC001 covers those warnings on its scope (a team keeps
// acknowledgements there that may match nothing, for a variant of its app):
// what CDK's report offers under EC001 is honoured. One that covers no
// warning is stale too, an EC001 warning that nothing covers.
func acknowledge(res *Result, acks []Acknowledgement) {
	var stale []Acknowledgement
	for _, k := range acks {
		if k.Rule == ruleStaleAcknowledgement.ID {
			stale = append(stale, k)
		}
	}
	acks = slices.DeleteFunc(slices.Clone(acks), func(k Acknowledgement) bool { return k.Rule == ruleStaleAcknowledgement.ID })
	cover(res.Findings, acks)
	first := len(res.Findings)
	for _, k := range acks {
		if k.matched {
			continue
		}
		res.Findings = append(res.Findings, staleFinding(k))
	}
	cover(res.Findings[first:], stale)
	for _, k := range stale {
		if !k.matched {
			res.Findings = append(res.Findings, staleFinding(k))
		}
	}
}

// staleFinding is the EC001 warning of an acknowledgement k that matches no
// finding.
func staleFinding(k Acknowledgement) Finding {
	return Finding{Rule: ruleStaleAcknowledgement, ConstructPath: k.ConstructPath, Stack: k.Stack, LogicalID: k.LogicalID,
		Problem: problemOf(ruleStaleAcknowledgement, problem.Root("Acknowledgement").Key(k.Rule+" on "+k.Where()),
			fmt.Sprintf("the acknowledgement (%s) matches no finding of %s there: remove it, or point it at the finding", k.Source, k.Rule))}
}

// cover marks each finding the first of acks that covers it.
func cover(findings Findings, acks []Acknowledgement) {
	for i := range findings {
		f := &findings[i]
		for j := range acks {
			if acks[j].covers(*f) {
				acks[j].matched = true
				if f.Acknowledged == nil {
					k := acks[j]
					f.Acknowledged = &k
				}
			}
		}
	}
}

// cdkAcknowledgements are the check's rules among one entry of CDK's own
// acknowledgements (Validations.of(scope).acknowledge({ id:
// "erasure-channel::EC323", reason })): held to the same rules as
// Acknowledge's (a rule that may be acknowledged, a reason of
// MinReasonLength characters), refused the same way. Other plugins' rules
// are theirs.
func cdkAcknowledgements(e cfnmodel.ConstructEntry) ([]Acknowledgement, error) {
	m, _ := e.Data.(map[string]any)
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Acknowledgement
	for _, id := range ids {
		ns, rule, ok := strings.Cut(id, "::")
		if !ok || !strings.EqualFold(ns, PluginName) {
			continue
		}
		reason, _ := m[id].(string)
		k := Acknowledgement{Rule: rule, ConstructPath: e.Path, Reason: reason, Source: "cloud assembly"}
		if err := k.validate(); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// The rules this file reports.
var (
	ruleStaleAcknowledgement = declare(Rule{ID: "EC001", Name: "AcknowledgementMatches", Type: problem.Invalid, Severity: SeverityWarning, Source: FromCheck, Acknowledgeable: true,
		Title: "Every acknowledgement matches a finding",
		Why:   "An acknowledgement that matches nothing is stale: the finding it answered is gone, or it names the wrong rule or resource, and it would silently cover a later one.",
		Fix:   "Remove the acknowledgement, or point it at the finding's rule and resource; or acknowledge EC001 on the scope that keeps it on purpose."})
)
