package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// storeCall is one call of a store's own data path, made by its handler's
// role (or the event source with it), as AWS receives it: SNS's delivery is
// judged by the delivery family; these are the rest.
type storeCall struct {
	rule    *Rule    // the rule a denial breaks
	actions []string // every action the call needs, judged in order
	target  *accessmodel.Target
	on      string       // how a finding names the target ("the store's queue")
	breaks  string       // what a denial breaks, for the finding
	at      problem.Path // the store's property the finding is about
}

// judgeCall decides every action of c for the role of function fnID: a
// denial is a finding of c.rule that names the statement that denies and
// what to change in it; a call a boundary nobody could read leaves undecided
// is EC323's, on the role; any other undecided call is EC326's, naming the
// key or statement that left it so (a finding the team may acknowledge). It
// says whether every action was allowed.
func (a *assembly) judgeCall(sc *storeCheck, fnID string, roleT *template, roleID string, role *accessmodel.Principal, c storeCall) bool {
	f := &sc.f
	for _, act := range c.actions {
		v := a.context().Decide(role, act, c.target)
		switch {
		case v.Decision == iameval.Denied:
			f.add(c.rule, fnID, c.at, props("Role"), "the role of function %s may not %s on %s (%s): %s", fnID, act, c.on, v.Because, c.breaks)
			f.fix("%s", fixFor(v, act, c.on))
			return false
		case v.Decision == iameval.Undecided && v.Cause == iameval.CauseBoundaryUnread && role.Boundary != nil:
			sc.boundaryUnread = true // one EC323 for the role (reportUnreadBoundary)
			return false
		case v.Decision == iameval.Undecided && v.Cause == iameval.CauseStatement:
			f.add(ruleCallUndecided, fnID, c.at, props("Role"), "whether the role of function %s may %s on %s is not known at synth (%s); give the check what decides it (--organization-id, --boundary, --scp, --rcp) or acknowledge EC326 with the key, the statement and why the call is allowed", fnID, act, c.on, v.Because)
			return false
		}
	}
	return true
}

// fixFor is what to change so that act on what is allowed, from the verdict
// that denied it: the statement that denies it, the policy that lacks an
// Allow, never "grant" what is granted.
func fixFor(v iameval.Verdict, act, what string) string {
	switch {
	case v.Explicit:
		return fmt.Sprintf("Change %s of the %s so that it no longer denies %s on %s to this role (an exception for the role, or a condition the call meets).", v.Statement, v.By, act, what)
	case v.By == iameval.FromBoundary:
		return fmt.Sprintf("Add an Allow of %s on %s to the role's permissions boundary, or give the role a boundary that allows it.", act, what)
	case v.By == iameval.FromSCP || v.By == iameval.FromRCP:
		return fmt.Sprintf("Let the %s over this account allow %s on %s.", v.By, act, what)
	case v.By == iameval.FromResource && strings.HasPrefix(act, "kms:"):
		return fmt.Sprintf("Let the key policy of %s allow the role %s, or delegate to the role's account.", what, act)
	case v.By == iameval.FromResource:
		return fmt.Sprintf("Let the resource policy of %s allow the role %s.", what, act)
	}
	return fmt.Sprintf("Grant %s on %s to the role.", act, what)
}

// checkRolePaths judges, for a store whose roles carry the names the channel
// admits (ErasureSubscriber's), what a landing zone's conventions move: the handler role's path, which the channel's
// response queue admits (judged here when that queue's policy is not in the
// app: in it, the policy itself decides, EC319), and the lookup role's path
// and its one call, iam:GetRole on the handler role, under its boundary and
// the organisation's SCPs.
func (a *assembly) checkRolePaths(sc *storeCheck, roleT *template, roleID string, rq *accessmodel.Target) {
	s, f := sc.store, &sc.f
	if s.Spec.Name == "" || roleT == nil {
		return
	}
	// The channel admits a handler by its name under its path: a role named
	// so (ErasureSubscriber's, or a hand-rolled store's that follows it) is
	// meant to be admitted, and a path moved away from it is not.
	if n, _ := roleT.Resources[roleID].Properties["RoleName"].(string); n == contract.HandlerName(s.Spec.Name) && rq != nil && rq.PolicyUnknown {
		if p, moved := movedPath(roleT, roleID, contract.HandlerRolePath); moved {
			f.in(roleT, roleID)
			f.add(ruleHandlerRolePath, roleID, s.Path.Child("handlerRole"), props("Path"), "the role of store %s's handler is at path %s, but the channel's response queue admits only roles under %s: every answer is denied", s.Spec.Name, p, contract.HandlerRolePath)
			f.fix("Exempt the erasure channel's roles from the convention that set the path (the Aspect, or the landing zone's role path rule); keep %s.", contract.HandlerRolePath)
		}
	}
	lookupID := ""
	for _, id := range roleT.IDsOf("AWS::IAM::Role") {
		if n, _ := roleT.Resources[id].Properties["RoleName"].(string); n == contract.RosterLookupRoleName(s.Spec.Name) {
			lookupID = id
			break
		}
	}
	if lookupID == "" {
		return // a store in the channel's own account: the ledger reads its role directly
	}
	f.in(roleT, lookupID)
	if p, moved := movedPath(roleT, lookupID, contract.RosterLookupRolePath); moved {
		f.add(ruleHandlerRolePath, lookupID, s.Path.Child("lookupRole"), props("Path"), "store %s's lookup role is at path %s, but the channel's ledger reader assumes only roles under %s: the ledger never learns the store's role id and never authenticates its answers", s.Spec.Name, p, contract.RosterLookupRolePath)
		f.fix("Exempt the erasure channel's roles from the convention that set the path; keep %s.", contract.RosterLookupRolePath)
	}
	lookup := a.rolePrincipal(roleT, cfnmodel.GetAtt(lookupID, "Arn"))
	handler := &accessmodel.Target{Resource: iameval.Resource{Aliases: withDeployARN([]string{cfnmodel.ResIdent(roleT, roleID)}, roleT, roleID), Account: roleT.Account, Region: roleT.Region}, Template: roleT, ID: roleID}
	if n, _ := roleT.Resources[roleID].Properties["RoleName"].(string); n != "" {
		path, _ := roleT.Resources[roleID].Properties["Path"].(string)
		if path == "" {
			path = "/"
		}
		handler.Aliases = append(handler.Aliases, "arn:aws:iam::"+iameval.OrStar(roleT.Account)+":role"+path+n)
	}
	switch v := a.context().Decide(lookup, "iam:GetRole", handler); v.Decision {
	case iameval.Denied:
		f.add(ruleLookupRoleReads, lookupID, s.Path.Child("lookupRole"), props("Policies"), "store %s's lookup role may not iam:GetRole on its handler's role (%s): the ledger never learns the store's role id and never authenticates its answers", s.Spec.Name, v.Because)
		f.fix("%s", fixFor(v, "iam:GetRole", "the handler's role"))
	case iameval.Undecided:
		if v.Cause == iameval.CauseBoundaryUnread && lookup.Boundary != nil {
			f.add(ruleUnreadableBoundary, lookupID, s.Path.Child("lookupRole"), props("PermissionsBoundary"), "store %s's lookup role has a permissions boundary the check cannot read (%s), so whether it may iam:GetRole on its handler's role is not known; pass its document (--boundary), declare it in this app, or acknowledge EC323 on the role with a reason", s.Spec.Name, lookup.Boundary.Unknown)
			break
		}
		if v.Cause != iameval.CauseStatement {
			break
		}
		f.add(ruleCallUndecided, lookupID, s.Path.Child("lookupRole"), props("Policies"), "whether store %s's lookup role may iam:GetRole on its handler's role is not known at synth (%s); give the check what decides it or acknowledge EC326 with a reason", s.Spec.Name, v.Because)
	}
}

// movedPath is the literal path of role id when it is not want ("/" when
// the template gives none); a path only the deploy knows is not judged.
func movedPath(t *template, id, want string) (string, bool) {
	p, given := t.Resources[id].Properties["Path"]
	if !given {
		return "/", want != "/"
	}
	s, literal := p.(string)
	return s, literal && s != want
}

// reportUnreadBoundary adds EC323 once for the handler's role when a call of
// the store's path was left undecided by a permissions boundary the check
// cannot read: about the role's boundary, so that it is the role (or a
// construct above it) a team acknowledges it on.
func (a *assembly) reportUnreadBoundary(sc *storeCheck, fnID string, roleT *template, roleID string, role *accessmodel.Principal) {
	if !sc.boundaryUnread || role.Boundary == nil {
		return
	}
	sc.boundaryUnread = false
	f := &sc.f
	f.in(roleT, roleID)
	f.add(ruleUnreadableBoundary, roleID, sc.store.Path.Child("responseQueue"), props("PermissionsBoundary"), "the role of function %s has a permissions boundary the check cannot read (%s), so whether it may read its queue, send pass two and answer is not known; pass its document (--boundary), declare it in this app, or acknowledge EC323 on the role with a reason", fnID, role.Boundary.Unknown)
}

// The rules this file reports.
var (
	ruleUnreadableBoundary = declare(Rule{ID: "EC323", Name: "PermissionsBoundaryReadable", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "The handler role's and the lookup role's permissions boundaries can be read",
		Why:   "A boundary defined outside the app (a landing zone's) may deny the handler its reads and answers, or the lookup role its iam:GetRole: without its document, whether they may is not known.",
		Fix:   "Pass the boundary's document (erasurectl check --boundary ARN=FILE; the plugin's boundaries), or acknowledge the finding with the boundary's owner and why it allows the answers. AWS managed policies the check knows (AdministratorAccess, PowerUserAccess) are read without a document."})
	ruleCallUndecided = declare(Rule{ID: "EC326", Name: "StorePathDecided", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html",
		Title: "Every call of the store's own path, and the deploy's use of its keys, can be decided at synth",
		Why:   "A statement over the call depends on a condition key no template can tell (a tag, a VPC endpoint, a source IP, a time, an organisation nobody named): whether the store works, or its key can be created, is then not known before it is deployed.",
		Fix:   "Give the check what decides it (the organisation's id, a boundary's document, the SCPs and RCPs), or acknowledge the finding with the key, the statement and why the call is allowed."})
	ruleHandlerRolePath = declare(Rule{ID: "EC327", Name: "ChannelRolePaths", Type: problem.Missing, Source: FromLockdown, Reference: "docs/landing-zone.md",
		Title: "The handler's role and the lookup role keep the paths the channel admits",
		Why:   "The channel's response queue admits only roles under " + contract.HandlerRolePath + " and the ledger's reader assumes only roles under " + contract.RosterLookupRolePath + ": a role moved by a path convention sends no answer, or is never looked up.",
		Fix:   "Exempt the erasure channel's roles from the Aspect or convention that sets role paths."})
	ruleLookupRoleReads = declare(Rule{ID: "EC328", Name: "LookupRoleMayReadHandlerRole", Type: problem.Missing, Source: FromLockdown, Reference: "docs/ledger-and-evidence.md",
		Title: "The lookup role may iam:GetRole the handler's role",
		Why:   "The channel's ledger learns the store's role id through the lookup role: denied (by a permissions boundary or an SCP), it never authenticates the store's answers.",
		Fix:   "Let the lookup role's permissions boundary and the organisation's SCPs allow iam:GetRole on the handler's role."})
)
