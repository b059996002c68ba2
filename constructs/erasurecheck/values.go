package erasurecheck

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// maxIdentDepth bounds the references followed to render one value (imports
// of imports, parameters of nested stacks): it also stops a cycle.
const maxIdentDepth = 24

// ident renders a CloudFormation value as one comparable string. A literal
// stays itself; a reference to a resource, by Ref or Fn::GetAtt whatever the
// attribute, becomes "res:<template file>#<logical id>" (a queue's URL and
// its ARN name the same queue); pseudo parameters resolve from the stack's
// environment; Fn::ImportValue resolves to the exporting stack's value; a
// nested stack's parameter to what its parent passes; Fn::Join and Fn::Sub
// to their parts. It returns "" when any part is unknown.
func (a *assembly) ident(t *template, v any) string { return a.identAt(t, v, 0, false) }

// identPattern is ident with the pseudo parameters a plain template leaves
// unknown (its account, region, stack) rendered as "*": a pattern that an
// ARN of the erasure topic can be matched against.
func (a *assembly) identPattern(t *template, v any) string { return a.identAt(t, v, 0, true) }

func (a *assembly) identAt(t *template, v any, depth int, wild bool) string {
	if depth > maxIdentDepth {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		if len(x) != 1 || t == nil {
			return ""
		}
		if r, ok := x["Ref"].(string); ok {
			return a.refIdent(t, r, "", depth, wild)
		}
		if id := refID(x); id != "" { // Fn::GetAtt
			if _, ok := t.Resources[id]; ok {
				return resIdent(t, id)
			}
			return ""
		}
		if n, ok := x["Fn::ImportValue"]; ok {
			name := a.identAt(t, n, depth+1, wild)
			if e, ok := a.exports[name]; ok && name != "" {
				return a.identAt(e.t, e.value, depth+1, wild)
			}
			return ""
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			sep, _ := j[0].(string)
			parts, _ := j[1].([]any)
			out := make([]string, 0, len(parts))
			for _, p := range parts {
				s := a.identAt(t, p, depth+1, wild)
				if s == "" {
					return ""
				}
				out = append(out, s)
			}
			return strings.Join(out, sep)
		}
		if sub, ok := x["Fn::Sub"]; ok {
			return a.subIdent(t, sub, depth, wild)
		}
	}
	return ""
}

// refIdent renders Ref name (or ${name} in Fn::Sub, with attr for ${name.attr}).
func (a *assembly) refIdent(t *template, name, attr string, depth int, wild bool) string {
	or := func(known string) string {
		if known == "" && wild {
			return "*"
		}
		return known
	}
	switch name {
	case "AWS::URLSuffix":
		return "amazonaws.com"
	case "AWS::Partition":
		return "aws"
	case "AWS::Region":
		return or(t.Region)
	case "AWS::AccountId":
		return or(t.Account)
	case "AWS::StackName", "AWS::StackId":
		return or("")
	}
	if _, ok := t.Resources[name]; ok {
		return resIdent(t, name)
	}
	if _, ok := t.Parameters[name]; ok && attr == "" {
		if v, ok := t.parentParams[name]; ok && t.parent != nil {
			return a.identAt(t.parent, v, depth+1, wild)
		}
	}
	return ""
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

func (a *assembly) subIdent(t *template, sub any, depth int, wild bool) string {
	var text string
	vars := map[string]any{}
	switch s := sub.(type) {
	case string:
		text = s
	case []any:
		if len(s) != 2 {
			return ""
		}
		text, _ = s[0].(string)
		vars, _ = s[1].(map[string]any)
	}
	unknown := false
	out := subVar.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		var r string
		if v, ok := vars[name]; ok {
			r = a.identAt(t, v, depth+1, wild)
		} else {
			base, attr, _ := strings.Cut(name, ".")
			r = a.refIdent(t, base, attr, depth, wild)
		}
		if r == "" {
			unknown = true
		}
		return r
	})
	if unknown {
		return ""
	}
	return strings.ReplaceAll(out, "${!", "${")
}

func resIdent(t *template, id string) string { return "res:" + t.Path + "#" + id }

// resourceOf returns the template and logical id an identity names, if it
// names a resource of the assembly.
func (a *assembly) resourceOf(ident string) (*template, string, bool) {
	rest, ok := strings.CutPrefix(ident, "res:")
	if !ok {
		return nil, "", false
	}
	file, id, ok := strings.Cut(rest, "#")
	if !ok {
		return nil, "", false
	}
	for _, t := range a.templates {
		if t.Path == file {
			_, found := t.Resources[id]
			return t, id, found
		}
	}
	return nil, "", false
}

// aliases are every identity a resource is known by: its reference, and the
// literal ARN its physical name gives where the template names it and the
// stack's environment is known.
func aliases(t *template, id string) []string {
	out := []string{resIdent(t, id)}
	r := t.Resources[id]
	name := func(key string) string { s, _ := r.Properties[key].(string); return s }
	// In an environment-agnostic stack the account and region are unknown:
	// the ARN is then a pattern over them ("*"), as the stack's own
	// ${AWS::AccountId} and ${AWS::Region} render.
	region, account := t.Region, t.Account
	if region == "" {
		region = "*"
	}
	if account == "" {
		account = "*"
	}
	switch r.Type {
	case "AWS::SQS::Queue":
		if n := name("QueueName"); n != "" {
			out = append(out, fmt.Sprintf("arn:aws:sqs:%s:%s:%s", region, account, n))
		}
	case "AWS::SNS::Topic":
		if n := name("TopicName"); n != "" {
			out = append(out, fmt.Sprintf("arn:aws:sns:%s:%s:%s", region, account, n))
		}
	case "AWS::S3::Bucket":
		if n := name("BucketName"); n != "" {
			out = append(out, "arn:aws:s3:::"+n)
		}
	}
	return out
}

// sqsURLToARN turns a queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>)
// into its ARN; any other string is returned unchanged.
func sqsURLToARN(s string) string {
	rest, ok := strings.CutPrefix(s, "https://sqs.")
	if !ok {
		return s
	}
	host, p, ok := strings.Cut(rest, "/")
	region, _, _ := strings.Cut(host, ".")
	acct, name, ok2 := strings.Cut(p, "/")
	if !ok || !ok2 || region == "" || acct == "" || name == "" || strings.Contains(name, "/") {
		return s
	}
	return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", region, acct, name)
}

// arnAccount is the account field of an ARN, "" if s is not one.
func arnAccount(s string) string {
	f := strings.SplitN(s, ":", 6)
	if len(f) < 6 || f[0] != "arn" {
		return ""
	}
	return f[4]
}

// globMatch matches an IAM resource or action pattern against s: "*" is any
// run of characters (colons and slashes included) and "?" any one character;
// nothing else is special ("[" is a character like any other).
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return false
	}
	if !strings.ContainsAny(pattern, "*?") {
		return pattern == s
	}
	// Iterative wildcard matching with one backtrack point.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p, i = p+1, i+1
		case star >= 0:
			p, mark = star+1, mark+1
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// arnMatch matches an ARN pattern against an ARN as IAM's Arn* condition
// operators do: the six colon-separated fields one by one (the last may hold
// colons), each with "*" and "?" wildcards that stay within the field. A
// value that is not an ARN (a reference to a resource) is matched whole.
func arnMatch(pattern, s string) bool {
	if !strings.HasPrefix(pattern, "arn:") || !strings.HasPrefix(s, "arn:") {
		return globMatch(pattern, s) // a reference to a resource of the app
	}
	pf, sf := strings.SplitN(pattern, ":", 6), strings.SplitN(s, ":", 6)
	if len(pf) != 6 || len(sf) != 6 {
		return false // not an ARN: IAM matches nothing
	}
	for i := range pf {
		if pf[i] != sf[i] && !globMatch(pf[i], sf[i]) {
			return false
		}
	}
	return true
}

// arnMatchAny is arnMatch, either way round when the value is itself a
// pattern (a plain template's unknown account or region).
func arnMatchAny(pattern, s string) bool {
	return arnMatch(pattern, s) || strings.Contains(s, "*") && arnMatch(s, pattern)
}

// coversAny says whether a statement resource pattern names one of targets.
// A reference to a resource followed by a suffix (a bucket's ARN + "/prefix*")
// is matched as a pattern too.
func coversAny(pattern string, targets []string) bool {
	for _, t := range targets {
		// A target that is itself a pattern (a plain template's unknown
		// account or region) is met by a resource it could be.
		if globMatch(pattern, t) || strings.Contains(t, "*") && globMatch(t, pattern) {
			return true
		}
	}
	return false
}

func uniqueSorted(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// jsonObject is v as an object: a map, or a JSON string that holds one (as
// CloudFormation takes RedrivePolicy); nil otherwise.
func jsonObject(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(x), &m) == nil {
			return m
		}
	}
	return nil
}

// redriveOf reads a queue's RedrivePolicy as CloudFormation does: an object,
// or a JSON string (literal, or built with Fn::Join or Fn::Sub), and the
// logical id of the dead-letter queue it names in t ("" if none).
func (a *assembly) redriveOf(t *template, props map[string]any) (map[string]any, string) {
	v := props["RedrivePolicy"]
	if m, ok := v.(map[string]any); ok && (m["deadLetterTargetArn"] != nil || m["maxReceiveCount"] != nil) {
		return m, refID(m["deadLetterTargetArn"])
	}
	text, _ := v.(string)
	if text == "" {
		text = a.ident(t, v) // a JSON string built with intrinsics, rendered
	}
	m := jsonObject(text)
	target, _ := m["deadLetterTargetArn"].(string)
	if qt, id, ok := a.resourceOf(target); ok && qt == t {
		return m, id
	}
	if qt, id, ok := a.byAlias(target, "AWS::SQS::Queue"); ok && qt == t {
		return m, id
	}
	return m, ""
}
