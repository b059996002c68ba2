package erasurecheck

import (
	"reflect"
	"strings"
)

// statement is one IAM policy statement, with the template its values are
// evaluated in.
type statement struct {
	t            *template
	Sid          string
	Effect       string
	Principal    any
	NotPrincipal any
	Action       any
	NotAction    any
	Resource     any
	NotResource  any
	Condition    map[string]any

	from    string         // where the statement is, for a reason: stack, resource
	actions *[]string      // Action or NotAction in lower case, from statementsIn
	src     map[string]any // the template's statement object it was read from
}

func statementsIn(t *template, doc any) []statement {
	m, _ := doc.(map[string]any)
	var list []any
	switch s := m["Statement"].(type) {
	case []any:
		list = s
	case map[string]any: // a single statement may stand alone
		list = []any{s}
	}
	var out []statement
	for _, s := range list {
		sm, _ := s.(map[string]any)
		st := statement{t: t, src: sm, Principal: sm["Principal"], NotPrincipal: sm["NotPrincipal"], Action: sm["Action"],
			NotAction: sm["NotAction"], Resource: sm["Resource"], NotResource: sm["NotResource"]}
		st.Sid, _ = sm["Sid"].(string)
		st.Effect, _ = sm["Effect"].(string)
		st.Condition, _ = sm["Condition"].(map[string]any)
		lower := st.lowerActions()
		st.actions = &lower
		out = append(out, st)
	}
	return out
}

// labelled marks statements with the stack and resource that hold them.
func labelled(stmts []statement, t *template, id string) []statement {
	for i := range stmts {
		stmts[i].from = t.Stack + "/" + id
	}
	return stmts
}

// statements reads a policy document without a template (service principals,
// actions and conditions only).
func statements(doc any) []statement { return statementsIn(nil, doc) }

func stringsOf(v any) []string {
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

func listOf(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

// hasAction says whether the statement's actions include action (IAM
// wildcards; actions are case-insensitive). A NotAction statement covers
// every action it does not list.
func (s statement) hasAction(action string) bool { return s.hasLowerAction(strings.ToLower(action)) }

// hasLowerAction is hasAction of an action already in lower case.
func (s statement) hasLowerAction(action string) bool {
	if s.NotAction != nil {
		for _, a := range s.lowerActions() {
			if globMatch(a, action) {
				return false
			}
		}
		return true
	}
	for _, a := range s.lowerActions() {
		if globMatch(a, action) {
			return true
		}
	}
	return false
}

// lowerActions are the statement's Action (or NotAction) in lower case.
func (s statement) lowerActions() []string {
	if s.actions != nil {
		return *s.actions
	}
	src := s.Action
	if s.NotAction != nil {
		src = s.NotAction
	}
	var out []string
	for _, a := range stringsOf(src) {
		out = append(out, strings.ToLower(a))
	}
	return out
}

// covers says whether the statement's resources reach one of targets. A
// resource that cannot be evaluated reaches nothing; NotResource reaches
// everything it does not list.
func (a *assembly) covers(s statement, targets []string) bool {
	if s.NotResource != nil {
		for _, r := range listOf(s.NotResource) {
			if coversAny(a.resourcePattern(s.t, r), targets) {
				return false
			}
		}
		return true
	}
	for _, r := range listOf(s.Resource) {
		if coversAny(a.resourcePattern(s.t, r), targets) {
			return true
		}
	}
	return false
}

// resourcePattern renders a statement's resource; one that names its own
// account or region in a plain template becomes a pattern over them.
func (a *assembly) resourcePattern(t *template, v any) string {
	k, cacheable := keyOf(v)
	if cacheable && t != nil {
		if s, ok := t.patterns[k]; ok {
			return s
		}
	}
	out := a.ident(t, v)
	if out == "" {
		out = a.identPattern(t, v)
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

// identityAllows says whether the identity statements allow every one of
// actions on one of targets, with no Deny reaching them. Conditions are not
// evaluated: an Allow with a condition counts (the check refuses what cannot
// work, not what might), a Deny with a condition does not.
func (a *assembly) identityAllows(stmts []statement, targets []string, actions ...string) bool {
	for _, act := range actions {
		allowed := false
		for _, s := range stmts {
			if !s.hasAction(act) || !a.covers(s, targets) {
				continue
			}
			switch s.Effect {
			case "Deny":
				if len(s.Condition) == 0 {
					return false
				}
			case "Allow":
				allowed = true
			}
		}
		if !allowed {
			return false
		}
	}
	return true
}

// roleStatements are every identity-policy statement attached to role id in
// t: inline policies, AWS::IAM::Policy and RolePolicy resources, and managed
// policies of the assembly.
func (a *assembly) roleStatements(t *template, roleID string) []statement {
	if st, ok := t.roleStmts[roleID]; ok {
		return st
	}
	st := a.readRoleStatements(t, roleID)
	if t.roleStmts == nil {
		t.roleStmts = map[string][]statement{}
	}
	t.roleStmts[roleID] = st
	return st
}

func (a *assembly) readRoleStatements(t *template, roleID string) []statement {
	role, ok := t.Resources[roleID]
	if !ok || role.Type != "AWS::IAM::Role" {
		return nil
	}
	var out []statement
	for _, p := range listOf(role.Properties["Policies"]) {
		pm, _ := p.(map[string]any)
		out = append(out, labelled(statementsIn(t, pm["PolicyDocument"]), t, roleID)...)
	}
	for _, m := range listOf(role.Properties["ManagedPolicyArns"]) {
		if mt, id, ok := a.resourceOf(a.ident(t, m)); ok && mt.Resources[id].Type == "AWS::IAM::ManagedPolicy" {
			out = append(out, labelled(statementsIn(mt, mt.Resources[id].Properties["PolicyDocument"]), mt, id)...)
		}
	}
	for _, id := range t.ids() {
		r := t.Resources[id]
		switch r.Type {
		case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy":
			if mentions(r.Properties["Roles"], roleID) {
				out = append(out, labelled(statementsIn(t, r.Properties["PolicyDocument"]), t, id)...)
			}
		case "AWS::IAM::RolePolicy":
			if refersTo(r.Properties["RoleName"], roleID) {
				out = append(out, labelled(statementsIn(t, r.Properties["PolicyDocument"]), t, id)...)
			}
		}
	}
	return out
}

// allows says whether a resource-policy statement lets service take action.
func (s statement) allows(service, action string) bool {
	p, _ := s.Principal.(map[string]any)
	return s.Effect == "Allow" && containsString(stringsOf(p["Service"]), service) && s.hasAction(action)
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// scoped says whether the statement is limited to a source resource or account.
func (s statement) scoped() bool {
	for _, op := range s.Condition {
		m, _ := op.(map[string]any)
		for k := range m {
			switch strings.ToLower(k) {
			case "aws:sourcearn", "aws:sourceaccount", "aws:sourceowner":
				return true
			}
		}
	}
	return false
}

// principalsOf lists a resource-policy statement's AWS principals ("*" for
// everyone), rendered where possible.
func (a *assembly) principalsOf(s statement) []string {
	if p, ok := s.Principal.(string); ok {
		return []string{p}
	}
	pm, _ := s.Principal.(map[string]any)
	var out []string
	for _, v := range listOf(pm["AWS"]) {
		id := a.ident(s.t, v)
		if id == "" {
			id = "an unresolved principal"
		}
		out = append(out, id)
	}
	return out
}
