package iameval

import "strings"

// Scope renders a policy value (a literal, or a CloudFormation intrinsic in
// the template the policy was read from) as a comparable string: a literal
// ARN, a reference to a resource, or a pattern over an account or region the
// template leaves unknown; "" where the value cannot be known.
type Scope interface {
	Pattern(v any) string
}

// Literal is the Scope of a policy with no template: strings are themselves
// and nothing else is known.
type Literal struct{}

// Pattern renders a literal string as itself.
func (Literal) Pattern(v any) string { s, _ := v.(string); return s }

// Statement is one policy statement, with the Scope its values are rendered in.
type Statement struct {
	Sid          string
	Effect       string
	Principal    any
	NotPrincipal any
	Action       any
	NotAction    any
	Resource     any
	NotResource  any
	Condition    map[string]any

	// Scope renders the statement's values; nil renders literals only.
	Scope Scope
	// From names where the statement is, for a decision's reason (stack and
	// resource, never a value).
	From string
	// Source is the policy object the statement was read from (nil when built).
	Source map[string]any

	actions *[]string // Action or NotAction in lower case, from Parse
	cache   *rendered // the statement's values rendered once, from Parse
}

// rendered is a statement's values rendered in its scope, once: the
// evaluator asks every statement for every cell of a matrix.
type rendered struct {
	resources []string // Resource, or NotResource
	// resourceVars: a resource holds a policy variable
	// (arn:aws:kms:*:${aws:PrincipalAccount}:key/*), rendered from each request.
	resourceVars bool
	awsPrin      []string // Principal's AWS values
	conditions   []condition
	done         bool
	denyReason   string // the reason a Deny of it gives, at denyIndex
	denyIndex    int
}

// condition is one key of one operator of a Condition block, parsed.
type condition struct {
	op       string // lower case, without ForAnyValue:/ForAllValues: and IfExists
	ifExists bool
	forAll   bool   // ForAllValues: every value of the request's key must match
	key      string // lower case
	values   []string
	unknown  bool // a value the scope cannot render
	// variables: a value holds a policy variable (${aws:PrincipalAccount}),
	// rendered from each request (String and Arn operators).
	variables bool
}

// Parse reads a policy document's statements (a list, or one statement
// standing alone), each rendered in scope and labelled from.
func Parse(doc any, scope Scope, from string) []Statement {
	m, _ := doc.(map[string]any)
	var list []any
	switch s := m["Statement"].(type) {
	case []any:
		list = s
	case map[string]any:
		list = []any{s}
	}
	out := make([]Statement, 0, len(list))
	for _, s := range list {
		sm, _ := s.(map[string]any)
		st := Statement{Scope: scope, From: from, Source: sm, Principal: sm["Principal"], NotPrincipal: sm["NotPrincipal"],
			Action: sm["Action"], NotAction: sm["NotAction"], Resource: sm["Resource"], NotResource: sm["NotResource"]}
		st.Sid, _ = sm["Sid"].(string)
		st.Effect, _ = sm["Effect"].(string)
		st.Condition, _ = sm["Condition"].(map[string]any)
		lower := st.lowerActions()
		st.actions = &lower
		st.cache = &rendered{}
		out = append(out, st)
	}
	return out
}

// Render renders v in the statement's scope.
func (s *Statement) Render(v any) string {
	if s.Scope == nil {
		return Literal{}.Pattern(v)
	}
	return s.Scope.Pattern(v)
}

// values renders the statement's resources, AWS principals and conditions,
// once for a statement read by Parse.
func (s *Statement) values() *rendered {
	if s.cache != nil && s.cache.done {
		return s.cache
	}
	r := s.cache
	if r == nil {
		r = &rendered{}
	}
	src := s.Resource
	if s.NotResource != nil {
		src = s.NotResource
	}
	r.resources, r.resourceVars = nil, false
	for _, v := range ListOf(src) {
		w := s.Render(v)
		r.resources = append(r.resources, w)
		r.resourceVars = r.resourceVars || strings.Contains(w, "${")
	}
	pm, _ := s.Principal.(map[string]any)
	r.awsPrin = nil
	for _, v := range ListOf(pm["AWS"]) {
		r.awsPrin = append(r.awsPrin, s.Render(v))
	}
	r.conditions = nil
	for op, block := range s.Condition {
		name := strings.ToLower(op)
		forAll := strings.HasPrefix(name, "forallvalues:")
		name = strings.TrimPrefix(strings.TrimPrefix(name, "foranyvalue:"), "forallvalues:")
		c := condition{op: strings.TrimSuffix(name, "ifexists"), ifExists: strings.HasSuffix(name, "ifexists"), forAll: forAll}
		m, _ := block.(map[string]any)
		for key, vals := range m {
			ck := c
			ck.key = strings.ToLower(key)
			for _, v := range ListOf(vals) {
				w := s.Render(v)
				if w == "" {
					ck.unknown = true
				}
				if strings.Contains(w, "${") && (strings.Contains(ck.op, "string") || strings.Contains(ck.op, "arn")) {
					ck.variables = true
				}
				ck.values = append(ck.values, w)
			}
			r.conditions = append(r.conditions, ck)
		}
	}
	r.done = true
	return r
}

// HasAction says whether the statement's actions include action (IAM
// wildcards; actions are case-insensitive). A NotAction statement covers
// every action it does not list.
func (s *Statement) HasAction(action string) bool { return s.hasLowerAction(strings.ToLower(action)) }

func (s *Statement) hasLowerAction(action string) bool {
	if s.NotAction != nil {
		for _, a := range s.lowerActions() {
			if GlobMatch(a, action) {
				return false
			}
		}
		return true
	}
	for _, a := range s.lowerActions() {
		if GlobMatch(a, action) {
			return true
		}
	}
	return false
}

func (s *Statement) lowerActions() []string {
	if s.actions != nil {
		return *s.actions
	}
	src := s.Action
	if s.NotAction != nil {
		src = s.NotAction
	}
	var out []string
	for _, a := range StringsOf(src) {
		out = append(out, strings.ToLower(a))
	}
	return out
}

// Covers says whether the statement's resources reach one of targets. A
// resource that cannot be rendered reaches nothing; NotResource reaches
// everything it does not list.
func (s *Statement) Covers(targets []string) bool {
	resources := s.values().resources
	if s.NotResource != nil {
		for _, r := range resources {
			if CoversAny(r, targets) {
				return false
			}
		}
		return true
	}
	for _, r := range resources {
		if CoversAny(r, targets) {
			return true
		}
	}
	return false
}

// PrincipalValues are the statement's rendered AWS principals (Principal
// and NotPrincipal), "*" for everyone, and the service principals it names.
func (s *Statement) PrincipalValues() (aws, services []string) {
	for _, pv := range []any{s.Principal, s.NotPrincipal} {
		if pv == "*" {
			aws = append(aws, "*")
			continue
		}
		pm, _ := pv.(map[string]any)
		for _, v := range ListOf(pm["AWS"]) {
			aws = append(aws, s.Render(v))
		}
		services = append(services, StringsOf(pm["Service"])...)
	}
	return aws, services
}

// ConditionValues are the rendered values the statement's conditions give
// the context key (case-insensitive), over every operator.
func (s *Statement) ConditionValues(key string) []string {
	var out []string
	for _, block := range s.Condition {
		bm, _ := block.(map[string]any)
		for k, vals := range bm {
			if strings.EqualFold(k, key) {
				for _, v := range ListOf(vals) {
					out = append(out, s.Render(v))
				}
			}
		}
	}
	return out
}

// StringsOf is a policy value's strings: one, or each string of a list.
func StringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ListOf is a policy value as a list: a list, one value, or none.
func ListOf(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}
