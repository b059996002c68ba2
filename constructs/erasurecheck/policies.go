package erasurecheck

import (
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// The template model and the IAM evaluator, under the names the rules use.
type (
	template  = cfnmodel.Template
	resource  = cfnmodel.Resource
	statement = iameval.Statement
)

// scope renders a policy's values in the template it was read from: the
// Scope the evaluator renders every statement's values in.
type scope struct {
	a *assembly
	t *template
}

func (s scope) Pattern(v any) string { return s.a.Pattern(s.t, v) }

// policy reads a policy document of resource id in t.
func (a *assembly) policy(t *template, doc any, id string) []statement {
	return iameval.Parse(doc, scope{a, t}, t.Stack+"/"+id)
}

// roleStatements are every identity-policy statement attached to role id in
// t (identityStatements), read once per role.
func (a *assembly) roleStatements(t *template, roleID string) []statement {
	key := cfnmodel.ResIdent(t, roleID)
	if st, ok := a.roleStmts[key]; ok {
		return st
	}
	st := a.identityStatements(t, roleID)
	if a.roleStmts == nil {
		a.roleStmts = map[string][]statement{}
	}
	a.roleStmts[key] = st
	return st
}

// identityStatements are every identity-policy statement IAM attaches to
// the role, user or group id of t: its inline policies, its managed policies
// of the assembly, AWS::IAM::Policy, ManagedPolicy, RolePolicy, UserPolicy
// and GroupPolicy resources naming it, and for a user its groups'.
func (a *assembly) identityStatements(t *template, id string) []statement {
	r, ok := t.Resources[id]
	if !ok {
		return nil
	}
	switch r.Type {
	case "AWS::IAM::Role", "AWS::IAM::User", "AWS::IAM::Group":
	default:
		return nil
	}
	var out []statement
	for _, p := range iameval.ListOf(r.Properties["Policies"]) {
		pm, _ := p.(map[string]any)
		out = append(out, a.policy(t, pm["PolicyDocument"], id)...)
	}
	for _, m := range iameval.ListOf(r.Properties["ManagedPolicyArns"]) {
		if ref, ok := a.ResourceOf(a.Ident(t, m)); ok && ref.Resource().Type == "AWS::IAM::ManagedPolicy" {
			mt, mid := ref.Template, ref.ID
			out = append(out, a.policy(mt, mt.Resources[mid].Properties["PolicyDocument"], mid)...)
		}
	}
	// Every policy of the app that names it, in any stack, by reference or
	// by name (the model resolves parameters, nested stacks and imports).
	inline := map[string]string{"AWS::IAM::Role": "AWS::IAM::RolePolicy", "AWS::IAM::User": "AWS::IAM::UserPolicy", "AWS::IAM::Group": "AWS::IAM::GroupPolicy"}[r.Type]
	list := map[string]string{"AWS::IAM::Role": "Roles", "AWS::IAM::User": "Users", "AWS::IAM::Group": "Groups"}[r.Type]
	for _, at := range a.AttachedTo(t, id) {
		pr := at.T.Resources[at.ID]
		switch {
		case (pr.Type == "AWS::IAM::Policy" || pr.Type == "AWS::IAM::ManagedPolicy") && at.Prop == list,
			pr.Type == inline:
			out = append(out, a.policy(at.T, pr.Properties["PolicyDocument"], at.ID)...)
		case pr.Type == "AWS::IAM::UserToGroupAddition" && r.Type == "AWS::IAM::User":
			if gt, gid, ok := a.ResourceNamed(at.T, pr.Properties["GroupName"], "AWS::IAM::Group"); ok {
				out = append(out, a.identityStatements(gt, gid)...)
			}
		}
	}
	if r.Type == "AWS::IAM::User" {
		for _, g := range iameval.ListOf(r.Properties["Groups"]) {
			if gt, gid, ok := a.ResourceNamed(t, g, "AWS::IAM::Group"); ok {
				out = append(out, a.identityStatements(gt, gid)...)
			}
		}
	}
	return out
}

// readAssembly reads the templates at paths and the nested stacks they name.
func readAssembly(paths []string) (*assembly, error) {
	m, err := cfnmodel.ReadAssembly(paths)
	if err != nil {
		return nil, err
	}
	return &assembly{Assembly: m}, nil
}

// readPaths reads cloud assembly directories and template files.
func readPaths(paths []string) (*assembly, error) {
	m, err := cfnmodel.ReadPaths(paths)
	if err != nil {
		return nil, err
	}
	return &assembly{Assembly: m}, nil
}

// setParams and setAssume resolve the templates again (cfnmodel) and drop
// what was read from the previous resolution.
func (a *assembly) setParams(p map[string]string) {
	a.SetParams(p)
	a.roleStmts, a.roles, a.policyIndexes = nil, nil, nil
}

func (a *assembly) setAssume(assume map[*template]map[string]bool) {
	a.SetAssume(assume)
	a.roleStmts, a.roles, a.eventSources, a.policyIndexes = nil, nil, nil, nil
}

// boundaryOf is the permissions boundary of role or user id of t, nil when it
// has none: the managed policy of the app it names (in any form the model
// resolves), or, for one outside what was read, a boundary the evaluator
// cannot read (its cells undecided, never allowed).
func (a *assembly) boundaryOf(t *template, id string) *iameval.Boundary {
	v, ok := t.Resources[id].Properties["PermissionsBoundary"]
	if !ok || v == nil {
		return nil
	}
	if mt, mid, ok := a.ResourceNamed(t, v, "AWS::IAM::ManagedPolicy"); ok {
		return &iameval.Boundary{Statements: a.policy(mt, mt.Resources[mid].Properties["PolicyDocument"], mid)}
	}
	arn := a.Pattern(t, v)
	names := make([]string, 0, len(a.boundaries))
	for name := range a.boundaries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if arn != "" && (name == arn || iameval.ARNsMeet(name, arn)) {
			return &iameval.Boundary{Statements: a.policy(t, a.boundaries[name], "boundary:"+name)}
		}
	}
	if i := strings.Index(arn, ":iam::aws:policy/"); i >= 0 {
		if doc, ok := awsManagedPolicies[arn[i+len(":iam::aws:policy/"):]]; ok {
			return &iameval.Boundary{Statements: a.policy(t, doc, "aws-managed:"+arn)}
		}
	}
	return &iameval.Boundary{Unknown: "it is a managed policy outside the app (" + iameval.OrStar(arn) + ")"}
}

// awsManagedPolicies are the AWS managed policies a permissions boundary
// commonly names, read as what they are (their default versions as AWS
// publishes them; https://docs.aws.amazon.com/aws-managed-policy/latest/reference/).
var awsManagedPolicies = map[string]any{
	"AdministratorAccess": map[string]any{"Version": "2012-10-17", "Statement": []any{
		map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}},
	"PowerUserAccess": map[string]any{"Version": "2012-10-17", "Statement": []any{
		map[string]any{"Effect": "Allow", "NotAction": []any{"iam:*", "organizations:*", "account:*"}, "Resource": "*"},
		map[string]any{"Effect": "Allow", "Action": []any{"account:GetAccountInformation", "account:GetPrimaryEmail", "account:ListRegions",
			"iam:CreateServiceLinkedRole", "iam:DeleteServiceLinkedRole", "iam:ListRoles", "organizations:DescribeOrganization"}, "Resource": "*"}}},
}

// appRole is role id of t as a principal, built once a resolution (the
// readers rule asks every role about every store). Callers do not change it.
func (a *assembly) appRole(t *template, id string) *accessmodel.Principal {
	key := cfnmodel.ResIdent(t, id)
	if p, ok := a.roles[key]; ok {
		return p
	}
	if a.roles == nil {
		a.roles = map[string]*accessmodel.Principal{}
	}
	p := a.rolePrincipal(t, cfnmodel.GetAtt(id, "Arn"))
	a.roles[key] = p
	return p
}
