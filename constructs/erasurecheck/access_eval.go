package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Decision is what IAM would answer to one request, as far as the
// synthesized policies tell (iameval decides it).
type Decision = iameval.Decision

// The decisions of the access matrix.
const (
	Allowed   = iameval.Allowed
	Denied    = iameval.Denied
	Undecided = iameval.Undecided // a policy uses something the evaluator does not judge
	// Either is what the channel wants of a cell it leaves to the operator
	// (an administrator's action off the data path that CloudFormation does
	// not need): allowed or denied both hold, undecided does not.
	Either Decision = "either"
)

// assembly is the template model of what the check reads, with what the
// rules cache over it.
type assembly struct {
	*cfnmodel.Assembly
	roleStmts map[string][]statement // roleStatements, once per role
	roles     map[string]*principal  // appRole, once per role
	readers   *readerIndex           // the app's possible queue readers, once (readerIndexOf)
	// eventSources are the app's event sources by the source they name, once
	// a resolution (eventSourcesOf).
	eventSources *eventSourceIndex
	// scps and rcps are Config.SCPs and RCPs placed: by account, its levels.
	scps, rcps orgLevels
	// sizes are the resource policies' sizes (policySize), once per
	// resource: the quota rule and the quota uses both ask for each.
	sizes map[policyAt]policySized
	// org is the organisation the channel admits, read once (organisation).
	org *organisationView
	// responseQueue is the channel's response queue, found once
	// (channelResponseQueue): every store's wiring asks for it.
	responseQueue *resourceRef
	// boundaries are Config.Boundaries: permissions boundaries' documents.
	boundaries map[string]any
	// policyIndexes are which resource policies name which resources, by
	// template and policy types (policiesNaming), once a resolution.
	policyIndexes map[policyIndexKey]*policyIndex
}

// organisationView is the AWS organisation the channel's shared policies
// admit (OrganizationMetadataKey) and the accounts taken to be in it: every
// account a stack of the app deploys to, and the witness the access matrix
// adds for an account of the organisation that nothing of the app names.
type organisationView struct {
	id       string
	accounts map[string]bool
	witness  string
	// units are Config.Units: each placed account's path from its root
	// down to its unit, for aws:PrincipalOrgPaths and the like.
	units map[string][]string
}

// orgPath is account's organisation path as AWS writes it
// (o-…/r-…/ou-…/), "" when the organisation or its place is not known.
func (o *organisationView) orgPath(account string) string {
	path, placed := o.units[account]
	if o.id == "" || !placed {
		return ""
	}
	return o.id + "/" + strings.Join(path, "/") + "/"
}

// organisation is the channel's organisation ("" id for a channel that names
// its roster's accounts instead).
func (a *assembly) organisation() *organisationView {
	if a.org != nil {
		return a.org
	}
	a.org = &organisationView{accounts: map[string]bool{}}
	for _, t := range a.Templates {
		if t.Account != "" {
			a.org.accounts[t.Account] = true
		}
		for _, id := range t.IDsOf("AWS::SQS::Queue") {
			if o, ok := t.Resources[id].Metadata[OrganizationMetadataKey].(string); ok && a.org.id == "" {
				a.org.id = o
			}
		}
	}
	return a.org
}

// inOrganisation says whether a principal of account is in the channel's
// organisation ("": an environment-agnostic stack's own account, which is).
func (o *organisationView) inOrganisation(account string) bool {
	return o.id != "" && (account == "" || o.accounts[account] || account == o.witness)
}

// policyAt is a resource of a template.
type policyAt struct {
	t  *template
	id string
}

// policySized is what policySize found for a resource.
type policySized struct {
	size  int
	stmts []iameval.Statement
	ok    bool
}

// principal is who makes a request, as the matrix names and classes it.
type principal struct {
	iameval.Principal
	name  string // its class's name in the matrix (handler/space, other/222222222222, …)
	class string // its class (classHandler, classOther, …)
}

// target is what a request reaches, as the matrix names it, and where it is.
type target struct {
	iameval.Resource
	name   string             // its name in the matrix (queue/space, response-queue, …)
	kind   channelpolicy.Kind // what it is on the channel's path
	store  string             // the store it belongs to, "" for the channel's own
	admins []string           // the ARN patterns of its administrators
	// writers and readers are a ledger anchor's declared sweeper and
	// auditors (channelpolicy.WritersMetadataKey, ReadersMetadataKey).
	writers, readers []string
	t                *template // where it is
	id               string    // its logical id
}

// properties are t's resource's properties as CloudFormation resolves
// them, nil when t is not a resource of the app.
func (t *target) properties() map[string]any {
	if t.t == nil {
		return nil
	}
	if props := t.t.Resources[t.id].Properties; props != nil {
		return props
	}
	return map[string]any{}
}

// gated is what channelpolicy's gates read of the target's resource: its
// properties and deletion policies (nil when its template is unknown).
func (t *target) gated() *channelpolicy.Resource {
	if t.t == nil {
		return nil
	}
	r := t.t.Resources[t.id]
	return &channelpolicy.Resource{Properties: t.properties(), DeletionPolicy: r.DeletionPolicy, UpdateReplacePolicy: r.UpdateReplacePolicy}
}

// decide asks the evaluator whether p may take action on r, with the
// request context AWS sends.
func (a *assembly) decide(p *principal, action string, r *target) iameval.Verdict {
	return iameval.Evaluate(a.request(p, action, r))
}

// request is the request p makes to take action on r, with the request
// context AWS sends (iameval.NewCall).
func (a *assembly) request(p *principal, action string, r *target) iameval.Request {
	o := a.organisation()
	c := iameval.CallContext{Region: a.Region(), PrincipalOrg: o.orgOf(p.Account), ResourceOrg: o.orgOf(r.Account),
		PrincipalOrgPath: o.orgPath(p.Account), ResourceOrgPath: o.orgPath(r.Account),
		Global: strings.HasPrefix(strings.ToLower(action), "iam:")}
	q := iameval.NewCall(&p.Principal, action, &r.Resource, c)
	q.SCPs, q.RCPs = a.scps[p.Account], a.rcps[r.Account]
	return q
}

// orgOf is the organisation of account as a request context carries it: the
// organisation's id for an account in it; iameval.OrgOutside for an account
// outside it (a witness of "another account"); "" for an account of the app
// when nobody said which organisation it is in.
func (o *organisationView) orgOf(account string) string {
	switch {
	case o.inOrganisation(account):
		return o.id
	case o.id != "" || !(account == "" || o.accounts[account]):
		return iameval.OrgOutside
	}
	return ""
}
