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
		if args, ok := x["Fn::If"].([]any); ok && len(args) == 3 {
			name, _ := args[0].(string)
			v, known := a.condition(t, name, depth)
			if !known {
				return ""
			}
			if v {
				return a.identAt(t, args[1], depth+1, wild)
			}
			return a.identAt(t, args[2], depth+1, wild)
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
	if decl, ok := t.Parameters[name]; ok && attr == "" {
		if v, ok := t.parentParams[name]; ok && t.parent != nil {
			return a.identAt(t.parent, v, depth+1, wild)
		}
		return a.parameterValue(name, decl)
	}
	return ""
}

// parameterValue is a parameter's value as CloudFormation resolves it with no
// value passed at deploy: the one the check was given (erasurectl check
// --parameter, Config.Parameters), else its Default. An SSM-typed parameter is
// resolved from Parameter Store at deploy, unknowable here: "".
func (a *assembly) parameterValue(name string, decl any) string {
	d, _ := decl.(map[string]any)
	if typ, _ := d["Type"].(string); strings.HasPrefix(typ, "AWS::SSM::Parameter::") {
		return ""
	}
	if v, ok := a.params[name]; ok {
		return v
	}
	switch v := d["Default"].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// condition evaluates a template condition as CloudFormation does, over the
// parameters' values; known is false where a value it needs is unknowable at
// synth (an SSM parameter, an import).
func (a *assembly) condition(t *template, name string, depth int) (value, known bool) {
	if v, ok := a.assume[t][name]; ok {
		return v, true
	}
	c, ok := t.Conditions[name]
	if !ok || depth > maxIdentDepth {
		return false, false
	}
	return a.conditionValue(t, c, depth+1)
}

func (a *assembly) conditionValue(t *template, v any, depth int) (value, known bool) {
	if depth > maxIdentDepth {
		return false, false
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false, false
	}
	for fn, arg := range m {
		args, _ := arg.([]any)
		switch fn {
		case "Condition":
			name, _ := arg.(string)
			return a.condition(t, name, depth)
		case "Fn::Equals":
			if len(args) != 2 {
				return false, false
			}
			l, r := a.identAt(t, args[0], depth, false), a.identAt(t, args[1], depth, false)
			if l == "" && args[0] != "" || r == "" && args[1] != "" || strings.HasPrefix(l, "res:") || strings.HasPrefix(r, "res:") {
				return false, false
			}
			return l == r, true
		case "Fn::Not":
			if len(args) != 1 {
				return false, false
			}
			v, k := a.conditionValue(t, args[0], depth+1)
			return !v, k
		case "Fn::And", "Fn::Or":
			and := fn == "Fn::And"
			all := true
			for _, x := range args {
				v, k := a.conditionValue(t, x, depth+1)
				if !k {
					all = false
					continue
				}
				if v != and { // a false in an And, a true in an Or, decides it
					return v, true
				}
			}
			return and, all
		}
	}
	return false, false
}

// created reports whether a resource is created under its template's
// conditions: known is false where the condition cannot be decided.
func (a *assembly) created(t *template, r resource) (created, known bool) {
	if r.Condition == "" {
		return true, true
	}
	return a.condition(t, r.Condition, 0)
}

// numAt is a number as CloudFormation resolves the value (a literal, a
// parameter, a condition's branch), or def where it is not known.
func (a *assembly) numAt(t *template, v any, def int) int {
	if _, ok := v.(map[string]any); ok {
		return num(a.ident(t, v), def)
	}
	return num(v, def)
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

// keyIdent is the KMS key a key reference names, as KMS resolves it: a key
// resource, or an alias (by name, alias ARN, or a Ref to an AWS::KMS::Alias)
// resolved to the key its TargetKeyId names, where the alias is in this
// assembly. Otherwise ident's value (an imported or literal key).
func (a *assembly) keyIdent(t *template, v any) string {
	id := a.ident(t, v)
	if at, aid, ok := a.resourceOf(id); ok && at.Resources[aid].Type == "AWS::KMS::Alias" {
		return a.ident(at, at.Resources[aid].Properties["TargetKeyId"])
	}
	name := id
	if i := strings.Index(id, ":alias/"); i >= 0 {
		name = id[i+1:]
	}
	if !strings.HasPrefix(name, "alias/") || strings.HasPrefix(name, "alias/aws/") {
		return id
	}
	// The template's own alias first (a name is unique in an account and
	// region), then one another stack of the alias ARN's account declares.
	for _, at := range append([]*template{t}, a.templates...) {
		if at != t && (at.Account == "" || !strings.Contains(id, ":"+at.Account+":")) {
			continue
		}
		for _, aid := range at.ids() {
			r := at.Resources[aid]
			if r.Type == "AWS::KMS::Alias" && a.ident(at, r.Properties["AliasName"]) == name {
				return a.ident(at, r.Properties["TargetKeyId"])
			}
		}
	}
	return id
}
