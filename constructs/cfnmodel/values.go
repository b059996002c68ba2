package cfnmodel

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// maxIdentDepth bounds the references followed to render one value (imports
// of imports, parameters of nested stacks): it also stops a cycle.
const maxIdentDepth = 24

// Ident renders a CloudFormation value as one comparable string. A literal
// stays itself; a reference to a resource, by Ref or Fn::GetAtt whatever the
// attribute, becomes "res:<template file>#<logical id>" (a queue's URL and
// its ARN name the same queue); pseudo parameters resolve from the stack's
// environment; Fn::ImportValue resolves to the exporting stack's value; a
// nested stack's parameter to what its parent passes; Fn::Join and Fn::Sub
// to their parts. It returns "" when any part is unknown.
func (a *Assembly) Ident(t *Template, v any) string { return a.identAt(t, v, 0, false) }

// IdentPattern is ident with the pseudo parameters a plain template leaves
// unknown (its account, region, stack) rendered as "*": a pattern that an
// ARN of the erasure topic can be matched against.
func (a *Assembly) IdentPattern(t *Template, v any) string { return a.identAt(t, v, 0, true) }

func (a *Assembly) identAt(t *Template, v any, depth int, wild bool) string {
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
			v, known := a.conditionAt(t, name, depth)
			if !known {
				return ""
			}
			if v {
				return a.identAt(t, args[1], depth+1, wild)
			}
			return a.identAt(t, args[2], depth+1, wild)
		}
		if id := RefID(x); id != "" { // Fn::GetAtt
			if _, ok := t.Resources[id]; ok {
				return ResIdent(t, id)
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
		if args, ok := x["Fn::FindInMap"].([]any); ok {
			if v, found := a.findInMap(t, args, depth); found {
				return a.identAt(t, v, depth+1, wild)
			}
			return ""
		}
		if _, ok := x["Fn::Select"]; ok {
			if r := a.resolve(t, x, depth+1); !isIntrinsic(r, "Fn::Select") {
				return a.identAt(t, r, depth+1, wild)
			}
			return ""
		}
		if sub, ok := x["Fn::Sub"]; ok {
			return a.subIdent(t, sub, depth, wild)
		}
	}
	return ""
}

// refIdent renders Ref name (or ${name} in Fn::Sub, with attr for ${name.attr}).
func (a *Assembly) refIdent(t *Template, name, attr string, depth int, wild bool) string {
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
		return ResIdent(t, name)
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
func (a *Assembly) parameterValue(name string, decl any) string {
	d, _ := decl.(map[string]any)
	if typ, _ := d["Type"].(string); strings.HasPrefix(typ, "AWS::SSM::Parameter::") {
		return ""
	}
	if v, ok := a.Params[name]; ok {
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

// Condition evaluates a template condition as CloudFormation does, over the
// parameters' values; known is false where a value it needs is unknowable at
// synth (an SSM parameter, an import).
func (a *Assembly) Condition(t *Template, name string) (value, known bool) {
	return a.conditionAt(t, name, 0)
}

func (a *Assembly) conditionAt(t *Template, name string, depth int) (value, known bool) {
	if v, ok := a.Assume[t][name]; ok {
		return v, true
	}
	c, ok := t.Conditions[name]
	if !ok || depth > maxIdentDepth {
		return false, false
	}
	return a.conditionValue(t, c, depth+1)
}

func (a *Assembly) conditionValue(t *Template, v any, depth int) (value, known bool) {
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
			return a.conditionAt(t, name, depth)
		case "Fn::Equals":
			if len(args) != 2 {
				return false, false
			}
			l, r := a.identAt(t, args[0], depth, false), a.identAt(t, args[1], depth, false)
			if l == "" && args[0] != "" || r == "" && args[1] != "" || IsResourceIdent(l) || IsResourceIdent(r) {
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

// ConditionsReferred are the conditions a condition's definition refers to
// ({"Condition": name} anywhere in it), read from the model.
func ConditionsReferred(def any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if name, ok := v["Condition"].(string); ok && len(v) == 1 {
				out = append(out, name)
				return
			}
			for _, k := range SortedKeys(v) {
				walk(v[k])
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(def)
	return out
}

// Created reports whether a resource is created under its template's
// conditions: known is false where the condition cannot be decided.
func (a *Assembly) Created(t *Template, r Resource) (created, known bool) {
	if r.Condition == "" {
		return true, true
	}
	return a.Condition(t, r.Condition)
}

// NumAt is a number as CloudFormation resolves the value (a literal, a
// parameter, a condition's branch), or def where it is not known.
func (a *Assembly) NumAt(t *Template, v any, def int) int {
	if _, ok := v.(map[string]any); ok {
		return Number(a.Ident(t, v), def)
	}
	return Number(v, def)
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

func (a *Assembly) subIdent(t *Template, sub any, depth int, wild bool) string {
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

// identPrefix starts the text of a resource's identity: ResourceID.String
// writes it, IsResourceIdent and ResourceOf read it, and nothing else
// spells it.
const identPrefix = "res:"

// ResourceID is a resource of the assembly: the template it is in and its
// logical id. Its String is the identity values carry and policies are
// matched against: "res:<template path>#<logical id>".
type ResourceID struct {
	Template *Template
	ID       string
}

// String is r's identity as values carry it (ResourceOf reads it back).
func (r ResourceID) String() string { return identPrefix + r.Template.Path + "#" + r.ID }

// Resource is the resource r names.
func (r ResourceID) Resource() Resource { return r.Template.Resources[r.ID] }

// ResIdent is ResourceID{t, id}'s identity.
func ResIdent(t *Template, id string) string { return ResourceID{Template: t, ID: id}.String() }

// IsResourceIdent says whether s is a resource's identity (ResourceID), not
// a name, ARN or URL.
func IsResourceIdent(s string) bool { return strings.HasPrefix(s, identPrefix) }

// ResourceOf is the resource an identity names, if it names a resource of
// the assembly (the template found by its path through an index, not a
// scan).
func (a *Assembly) ResourceOf(ident string) (ResourceID, bool) {
	rest, ok := strings.CutPrefix(ident, identPrefix)
	if !ok {
		return ResourceID{}, false
	}
	file, id, ok := strings.Cut(rest, "#")
	if !ok {
		return ResourceID{}, false
	}
	t := a.templateAt(file)
	if t == nil {
		return ResourceID{}, false
	}
	_, found := t.Resources[id]
	return ResourceID{Template: t, ID: id}, found
}

// templateAt is the first template read from path, nil when none; its
// index is rebuilt when templates were added.
func (a *Assembly) templateAt(path string) *Template {
	if a.byPath == nil || a.byPathOf != len(a.Templates) {
		a.byPath, a.byPathOf = make(map[string]*Template, len(a.Templates)), len(a.Templates)
		for _, t := range a.Templates {
			if _, seen := a.byPath[t.Path]; !seen {
				a.byPath[t.Path] = t
			}
		}
	}
	return a.byPath[path]
}

// Aliases are every identity a resource is known by: its reference, and the
// literal ARN its physical name gives where the template names it and the
// stack's environment is known.
func Aliases(t *Template, id string) []string {
	out := []string{ResIdent(t, id)}
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
	case "AWS::Lambda::Function":
		if n := name("FunctionName"); n != "" {
			out = append(out, fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, account, n))
		}
	case "AWS::IAM::ManagedPolicy":
		if n := name("ManagedPolicyName"); n != "" {
			path := name("Path")
			if path == "" {
				path = "/"
			}
			out = append(out, fmt.Sprintf("arn:aws:iam::%s:policy%s%s", account, path, n))
		}
	}
	return out
}

// SQSURLToARN turns a queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>)
// into its ARN; any other string is returned unchanged.
func SQSURLToARN(s string) string {
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

func UniqueSorted(in []string) []string {
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

// JSONObject is v as an object: a map, or a JSON string that holds one (as
// CloudFormation takes RedrivePolicy); nil otherwise.
func JSONObject(v any) map[string]any {
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

// RedriveOf reads a queue's RedrivePolicy as CloudFormation does: an object,
// or a JSON string (literal, or built with Fn::Join or Fn::Sub), and the
// logical id of the dead-letter queue it names in t ("" if none).
func (a *Assembly) RedriveOf(t *Template, props map[string]any) (map[string]any, string) {
	v := props["RedrivePolicy"]
	if m, ok := v.(map[string]any); ok && (m["deadLetterTargetArn"] != nil || m["maxReceiveCount"] != nil) {
		if qt, id, ok := a.ResourceNamed(t, m["deadLetterTargetArn"], "AWS::SQS::Queue"); ok && qt == t {
			return m, id
		}
		return m, ""
	}
	text, _ := v.(string)
	if text == "" {
		text = a.Ident(t, v) // a JSON string built with intrinsics, rendered
	}
	m := JSONObject(text)
	target, _ := m["deadLetterTargetArn"].(string)
	if ref, ok := a.ResourceOf(target); ok && ref.Template == t {
		id := ref.ID
		return m, id
	}
	if qt, id, ok := a.ByAlias(target, "AWS::SQS::Queue"); ok && qt == t {
		return m, id
	}
	return m, ""
}

// KeyIdent is the KMS key a key reference names, as KMS resolves it: a key
// resource, or an alias (by name, alias ARN, or a Ref to an AWS::KMS::Alias)
// resolved to the key its TargetKeyId names, where the alias is in this
// assembly. Otherwise ident's value (an imported or literal key).
func (a *Assembly) KeyIdent(t *Template, v any) string {
	id := a.Ident(t, v)
	if ref, ok := a.ResourceOf(id); ok && ref.Resource().Type == "AWS::KMS::Alias" {
		at, aid := ref.Template, ref.ID
		return a.Ident(at, at.Resources[aid].Properties["TargetKeyId"])
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
	for _, at := range append([]*Template{t}, a.Templates...) {
		if at != t && (at.Account == "" || !strings.Contains(id, ":"+at.Account+":")) {
			continue
		}
		for _, aid := range at.IDs() {
			r := at.Resources[aid]
			if r.Type == "AWS::KMS::Alias" && a.Ident(at, r.Properties["AliasName"]) == name {
				return a.Ident(at, r.Properties["TargetKeyId"])
			}
		}
	}
	return id
}

// Pattern renders a statement's resource; one that names its own
// account or region in a plain template becomes a pattern over them.
func (a *Assembly) Pattern(t *Template, v any) string {
	k, cacheable := keyOf(v)
	if cacheable && t != nil {
		if s, ok := t.patterns[k]; ok {
			return s
		}
	}
	out := a.Ident(t, v)
	if out == "" {
		out = a.IdentPattern(t, v)
	}
	if cacheable && t != nil {
		if t.patterns == nil {
			t.patterns = map[patternKey]string{}
		}
		t.patterns[k] = out
	}
	return out
}

// patternKey names a template value for resourcePattern's cache: a string
// by its text, a map or list by its identity (the templates are not changed
// once read).
type patternKey struct {
	s   string
	ptr uintptr
	n   int
}

func keyOf(v any) (patternKey, bool) {
	switch x := v.(type) {
	case string:
		return patternKey{s: x}, true
	case map[string]any:
		return patternKey{ptr: reflect.ValueOf(x).Pointer(), n: -1}, x != nil
	case []any:
		if len(x) == 0 {
			return patternKey{}, false
		}
		return patternKey{ptr: reflect.ValueOf(x).Pointer(), n: len(x)}, true
	}
	return patternKey{}, false
}

// ByAlias finds a resource of type typ whose literal ARN (from its name) is
// arn.
func (a *Assembly) ByAlias(arn, typ string) (*Template, string, bool) {
	ix := a.aliasIndexOf(typ)
	best := -1
	if strings.ContainsAny(arn, "*?") {
		// A pattern meets aliases no index can find: every one, in order.
		for _, e := range ix.all {
			if iameval.ARNsMeet(e.alias, arn) {
				best = e.at
				break
			}
		}
	} else {
		// A plain ARN meets an equal plain alias, or a pattern alias (an
		// environment-agnostic stack's) that matches it: the first in the
		// assembly's order of either.
		if at, ok := ix.exact[arn]; ok && arn != "" {
			best = at
		}
		for _, e := range ix.patterns {
			if best >= 0 && e.at >= best {
				break
			}
			if iameval.ARNsMeet(e.alias, arn) {
				best = e.at
				break
			}
		}
	}
	if best < 0 {
		return nil, "", false
	}
	r := ix.resources[best]
	return r.t, r.id, true
}

// aliasIndex is ByAlias's index of one resource type's literal ARNs: its
// resources in the assembly's order (templates, then sorted ids), every
// alias with its resource's place, the plain ones by value and the patterns
// apart. Built once a type: a lookup for every store over every resource
// made the check quadratic in the assembly's size.
type aliasIndex struct {
	resources []struct {
		t  *Template
		id string
	}
	all, patterns []aliasEntry
	exact         map[string]int
}

type aliasEntry struct {
	alias string
	at    int // the resource's place in resources
}

// aliasIndexOf is the index of typ, built on first use (and again if the
// assembly's templates change).
func (a *Assembly) aliasIndexOf(typ string) *aliasIndex {
	if a.aliases == nil || a.aliasesOf != len(a.Templates) {
		a.aliases, a.aliasesOf = map[string]*aliasIndex{}, len(a.Templates)
	}
	if ix, ok := a.aliases[typ]; ok {
		return ix
	}
	ix := &aliasIndex{exact: map[string]int{}}
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if t.Resources[id].Type != typ {
				continue
			}
			at := len(ix.resources)
			ix.resources = append(ix.resources, struct {
				t  *Template
				id string
			}{t, id})
			for _, al := range Aliases(t, id)[1:] {
				e := aliasEntry{al, at}
				ix.all = append(ix.all, e)
				if strings.ContainsAny(al, "*?") {
					ix.patterns = append(ix.patterns, e)
				} else if _, seen := ix.exact[al]; !seen {
					ix.exact[al] = at
				}
			}
		}
	}
	a.aliases[typ] = ix
	return ix
}

// TemplateAt is the template read from path, or nil.
func (a *Assembly) TemplateAt(path string) *Template {
	for _, t := range a.Templates {
		if t.Path == path {
			return t
		}
	}
	return nil
}

// Region is the app's region (the first stack's that names one), "*" when
// no stack names one.
func (a *Assembly) Region() string {
	for _, t := range a.Templates {
		if t.Region != "" {
			return t.Region
		}
	}
	return "*"
}

// isIntrinsic says whether v is the one-key map of intrinsic fn.
func isIntrinsic(v any, fn string) bool {
	m, ok := v.(map[string]any)
	_, has := m[fn]
	return ok && len(m) == 1 && has
}

// FunctionARN is the unqualified ARN a Lambda FunctionName value names in
// t's environment: a name, a partial ARN (account:function:name) or an ARN,
// with its version or alias qualifier dropped, as Lambda reads it.
func FunctionARN(t *Template, name string) string {
	region, account := t.Region, t.Account
	if region == "" {
		region = "*"
	}
	if account == "" {
		account = "*"
	}
	f := strings.Split(name, ":")
	switch {
	case len(f) >= 7 && f[0] == "arn" && f[5] == "function":
		return strings.Join(f[:7], ":")
	case len(f) >= 3 && f[1] == "function":
		return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, f[0], f[2])
	case len(f) >= 1 && name != "" && !strings.Contains(f[0], "/"):
		return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, account, f[0])
	}
	return ""
}

// physicalNameProp is the property a type's physical name is written in.
var physicalNameProp = map[string]string{
	"AWS::IAM::Role": "RoleName", "AWS::IAM::User": "UserName", "AWS::IAM::Group": "GroupName",
	"AWS::IAM::ManagedPolicy": "ManagedPolicyName", "AWS::SQS::Queue": "QueueName", "AWS::SNS::Topic": "TopicName",
	"AWS::S3::Bucket": "BucketName", "AWS::Lambda::Function": "FunctionName",
}

// PhysicalName is the name a resource of rt is deployed under, where its
// template gives it (a literal, or a value the model resolves); "" otherwise.
func (a *Assembly) PhysicalName(rt *Template, id string) string {
	r, ok := rt.Resources[id]
	if !ok {
		return ""
	}
	prop := physicalNameProp[r.Type]
	if prop == "" {
		return ""
	}
	n := a.Ident(rt, r.Properties[prop])
	if IsResourceIdent(n) {
		return ""
	}
	return n
}

// Targets are the identities v names, as CloudFormation resolves it in t:
// each element of a list (a literal list, Fn::Split, a list parameter, an
// Fn::If whose condition is known), each rendered by Ident, so that a Ref, an
// Fn::GetAtt, an Fn::Sub "${X}" or "${X.Arn}", a nested stack's parameter and
// an import of one resource all render as that resource (ResIdent). A value
// the model cannot render is left out.
func (a *Assembly) Targets(t *Template, v any) []string {
	r := a.resolve(t, v, 0)
	list, ok := r.([]any)
	if !ok {
		if l := a.listParameter(t, r); l != nil {
			list = l
		} else {
			list = []any{r}
		}
	}
	var out []string
	for _, e := range list {
		if s := a.Ident(t, e); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Names says whether v, as CloudFormation resolves it in t, names resource
// id of rt: a reference to it in any form Targets renders, one of its
// literal ARNs or queue URLs (Aliases), or its physical name. A value the
// model cannot render names it when it refers to it anywhere inside (the
// model keeps such a reference rather than drop it).
func (a *Assembly) Names(t *Template, v any, rt *Template, id string) bool {
	if rt == nil || id == "" {
		return false
	}
	self, aliases, name := ResIdent(rt, id), Aliases(rt, id), a.PhysicalName(rt, id)
	for _, s := range a.Targets(t, v) {
		if s == self || name != "" && s == name || slices.Contains(aliases, SQSURLToARN(s)) {
			return true
		}
	}
	return t == rt && a.unrendered(t, v) && Mentions(v, id)
}

// Unrendered says whether some element of v is a value the model cannot
// render (an Fn::If on an unknown condition, a value only deploy knows).
func (a *Assembly) Unrendered(t *Template, v any) bool { return a.unrendered(t, v) }

func (a *Assembly) unrendered(t *Template, v any) bool {
	r := a.resolve(t, v, 0)
	list, ok := r.([]any)
	if !ok {
		list = []any{r}
	}
	for _, e := range list {
		if a.Ident(t, e) == "" {
			return true
		}
	}
	return false
}

// ResourceNamed is the resource of type typ that v names, as Targets renders
// it: a reference (in any form), one of its literal ARNs, or its physical
// name in t's account.
func (a *Assembly) ResourceNamed(t *Template, v any, typ string) (*Template, string, bool) {
	for _, s := range a.Targets(t, v) {
		if ref, ok := a.ResourceOf(s); ok && ref.Resource().Type == typ {
			rt, id := ref.Template, ref.ID
			return rt, id, true
		}
		if rt, id, ok := a.ByAlias(SQSURLToARN(s), typ); ok {
			return rt, id, true
		}
		if physicalNameProp[typ] == "" || IsResourceIdent(s) {
			continue
		}
		for _, rt := range a.Templates { // by its name, in the same account
			if rt.Account != t.Account {
				continue
			}
			for _, id := range rt.IDs() {
				if rt.Resources[id].Type == typ && a.PhysicalName(rt, id) == s {
					return rt, id, true
				}
			}
		}
	}
	return nil, "", false
}

// Attachment is a resource of the assembly that names a role, user or group
// in one of its properties: a policy attached to it, or a group membership.
type Attachment struct {
	T    *Template
	ID   string
	Prop string // the property that names it (Roles, Users, Groups, RoleName, …)
}

// attachProps are the properties by which a resource of the type names the
// roles, users and groups it attaches to.
var attachProps = map[string][]string{
	"AWS::IAM::Policy": {"Roles", "Users", "Groups"}, "AWS::IAM::ManagedPolicy": {"Roles", "Users", "Groups"},
	"AWS::IAM::RolePolicy": {"RoleName"}, "AWS::IAM::UserPolicy": {"UserName"}, "AWS::IAM::GroupPolicy": {"GroupName"},
	"AWS::IAM::UserToGroupAddition": {"Users"},
}

// nameKey is the index key of a physical name in an account ("" unknown).
func nameKey(account, name string) string { return "name:" + account + ":" + name }

// AttachedTo is every resource of any template of the assembly that names
// the role, user or group id of t, as CloudFormation resolves the names:
// by reference in any form (a Ref, an Fn::GetAtt, an Fn::Sub, a nested
// stack's parameter, an import) or by its physical name in its account. It
// is indexed once per resolution of the assembly.
func (a *Assembly) AttachedTo(t *Template, id string) []Attachment {
	if a.attached == nil {
		a.attached = map[string][]Attachment{}
		for _, pt := range a.Templates {
			for _, pid := range pt.IDs() {
				for _, prop := range attachProps[pt.Resources[pid].Type] {
					v := pt.Resources[pid].Properties[prop]
					keys := map[string]bool{}
					for _, s := range a.Targets(pt, v) {
						if IsResourceIdent(s) {
							keys[s] = true
						} else {
							keys[nameKey(pt.Account, s)] = true
						}
					}
					if a.unrendered(pt, v) { // kept, not dropped: every resource it mentions
						for _, rid := range refIDs(v) {
							keys[ResIdent(pt, rid)] = true
						}
					}
					for k := range keys {
						a.attached[k] = append(a.attached[k], Attachment{pt, pid, prop})
					}
				}
			}
		}
	}
	out := slices.Clone(a.attached[ResIdent(t, id)])
	if n := a.PhysicalName(t, id); n != "" {
		for _, at := range a.attached[nameKey(t.Account, n)] {
			if !slices.Contains(out, at) {
				out = append(out, at)
			}
		}
	}
	return out
}

// refIDs are the logical ids v refers to anywhere inside.
func refIDs(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if id := RefID(x); id != "" {
				out = append(out, id)
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// Ref is the value a template writes for a reference to resource id, for
// asking the model what it resolves to.
func Ref(id string) any { return map[string]any{"Ref": id} }

// GetAtt is the value a template writes for attribute attr of resource id.
func GetAtt(id, attr string) any { return map[string]any{"Fn::GetAtt": []any{id, attr}} }
