package accessmodel

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Either is what the channel wants of a cell it leaves to the operator (an
// administrator's action off the data path that CloudFormation does not
// need): allowed or denied both hold, undecided does not.
const Either iameval.Decision = "either"

// Organisation is the AWS organisation the channel's shared policies admit
// (the response queue's organisation metadata) and the accounts taken to be
// in it: every account a stack of the app deploys to.
type Organisation struct {
	// ID is the organisation's id (o-…), "" for a channel that names its
	// roster's accounts instead.
	ID string
	// Accounts are the accounts in it that the app knows.
	Accounts map[string]bool
	// Units are each placed account's path from its root down to its unit
	// (r-…, ou-…), for aws:PrincipalOrgPaths and the like.
	Units map[string][]string
	// witness is the account of the organisation that nothing of the app
	// names, once the matrix has added it ("" before).
	witness string
}

// Context is what AWS puts in the request context of every call besides
// the principal and the resource: the region called, the organisation of
// either side, and the organisation's control policies on each account. It
// is the one place a request is built, for the matrix and for the check's
// own rules alike.
type Context struct {
	Region       string
	Organisation Organisation
	// SCPs and RCPs are the service and resource control policies in force
	// on each account, one list of statements per level from the root down.
	SCPs, RCPs map[string][][]iameval.Statement
}

// OrgPath is account's organisation path as AWS writes it (o-…/r-…/ou-…/),
// "" when the organisation or its place is not known.
func (o *Organisation) OrgPath(account string) string {
	path, placed := o.Units[account]
	if o.ID == "" || !placed {
		return ""
	}
	return o.ID + "/" + strings.Join(path, "/") + "/"
}

// InOrganisation says whether a principal of account is in the channel's
// organisation ("": an environment-agnostic stack's own account, which is).
func (o *Organisation) InOrganisation(account string) bool {
	return o.ID != "" && (account == "" || o.Accounts[account] || account == o.witness)
}

// OrgOf is the organisation of account as a request context carries it: the
// organisation's id for an account in it; iameval.OrgOutside for an account
// outside it (a witness of "another account"); "" for an account of the app
// when nobody said which organisation it is in.
func (o *Organisation) OrgOf(account string) string {
	switch {
	case o.InOrganisation(account):
		return o.ID
	case o.ID != "" || !(account == "" || o.Accounts[account]):
		return iameval.OrgOutside
	}
	return ""
}

// Request is the request p makes to take action on r, with the request
// context AWS sends (iameval.NewCall).
func (c *Context) Request(p *Principal, action string, r *Target) iameval.Request {
	o := &c.Organisation
	cc := iameval.CallContext{Region: c.Region, PrincipalOrg: o.OrgOf(p.Account), ResourceOrg: o.OrgOf(r.Account),
		PrincipalOrgPath: o.OrgPath(p.Account), ResourceOrgPath: o.OrgPath(r.Account),
		Global: strings.HasPrefix(strings.ToLower(action), "iam:")}
	q := iameval.NewCall(&p.Principal, action, &r.Resource, cc)
	q.SCPs, q.RCPs = c.SCPs[p.Account], c.RCPs[r.Account]
	return q
}

// Decide asks the evaluator whether p may take action on r, with the
// request context AWS sends.
func (c *Context) Decide(p *Principal, action string, r *Target) iameval.Verdict {
	return iameval.Evaluate(c.Request(p, action, r))
}
