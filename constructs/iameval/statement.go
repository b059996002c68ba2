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
		out = append(out, st)
	}
	return out
}

// Render renders v in the statement's scope.
func (s Statement) Render(v any) string {
	if s.Scope == nil {
		return Literal{}.Pattern(v)
	}
	return s.Scope.Pattern(v)
}

// HasAction says whether the statement's actions include action (IAM
// wildcards; actions are case-insensitive). A NotAction statement covers
// every action it does not list.
func (s Statement) HasAction(action string) bool { return s.hasLowerAction(strings.ToLower(action)) }

func (s Statement) hasLowerAction(action string) bool {
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

func (s Statement) lowerActions() []string {
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
func (s Statement) Covers(targets []string) bool {
	if s.NotResource != nil {
		for _, r := range ListOf(s.NotResource) {
			if CoversAny(s.Render(r), targets) {
				return false
			}
		}
		return true
	}
	for _, r := range ListOf(s.Resource) {
		if CoversAny(s.Render(r), targets) {
			return true
		}
	}
	return false
}

// PrincipalValues are the statement's rendered AWS principals (Principal
// and NotPrincipal), "*" for everyone, and the service principals it names.
func (s Statement) PrincipalValues() (aws, services []string) {
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
func (s Statement) ConditionValues(key string) []string {
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
