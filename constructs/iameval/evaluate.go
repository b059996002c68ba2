package iameval

import (
	"fmt"
	"strings"
)

// Decision is what IAM would answer to one request, as far as the policies
// tell.
type Decision string

// The decisions.
const (
	Allowed   Decision = "allowed"
	Denied    Decision = "denied"
	Undecided Decision = "undecided" // a policy uses something the evaluator does not judge
)

// Principal is who makes a request: an IAM principal (a role, a user, a
// class of principals) with its identity policies, or a service acting for a
// source.
type Principal struct {
	// Aliases are every identity a policy can name it by: its ARN, its
	// reference in a template; for a service, the ARNs of the source it acts
	// for (aws:SourceArn).
	Aliases []string
	// Account is its account (for a service, the source's owner); "" for an
	// environment-agnostic stack's, matched as "*".
	Account string
	// Service is the service principal (sns.amazonaws.com); "" for an IAM
	// principal.
	Service string
	// Region is where a service's source is ("" when unknown): SNS presents
	// a regional principal across an opt-in region (SNSServicePrincipal).
	Region   string
	Identity []Statement
	// Session is the session name a role acts under (Lambda's is the
	// function name), "" when unknown: a NotPrincipal spares a role's
	// session only by its exact sts session ARN (notPrincipalSpares).
	Session string
	// Boundary is its permissions boundary, when it has one (nil: none).
	Boundary *Boundary
}

// Boundary is a role's or user's permissions boundary: the most its
// identity-based permissions can grant. A request it does not allow is
// denied even where a policy allows it; an explicit Deny in it denies.
// Statements are the boundary policy's; Unknown, when not "", says why it
// cannot be read (a managed policy outside what was read): every request it
// would limit is then Undecided, never allowed.
type Boundary struct {
	Statements []Statement
	Unknown    string
}

// Resource is what a request reaches: a queue, topic, key, bucket or object,
// with its resource policy.
type Resource struct {
	Aliases []string // its ARN and reference, or patterns over them
	Account string
	Region  string // "" when unknown
	Policy  []Statement
	// IsKey: a KMS key, whose key policy must allow the principal or
	// delegate to its account.
	IsKey bool
	// Via is the service a key's callers use it through (kms:ViaService).
	Via string
	// Conflict says why the resource policy cannot be known (two policies
	// set it), or "".
	Conflict string
	// PolicyUnknown: the resource policy is not in what was read (a queue
	// or key of another app). Only the identity side is decided then.
	PolicyUnknown bool
}

// Request is one call: P calls Action on R, with the request context's
// condition keys (lower case) and their values (NewCall builds it).
type Request struct {
	P      *Principal
	Action string
	R      *Resource
	Ctx    map[string][]string
	// Unknown are keys the request carries whose values the check cannot
	// know (lower case). A key in neither Ctx nor Unknown is absent when the
	// evaluator decides its presence (decidedKeys), unknown otherwise.
	Unknown map[string]Unknown
	// SCPs are the service control policies over the principal's account,
	// one list of statements a level (the account and each organisational
	// unit above it): every level must allow what the principal does. RCPs
	// are the resource control policies over the resource's account, the
	// same way, for the services RCPs govern. Neither applies to an AWS
	// service principal. Nil: none given.
	SCPs, RCPs [][]Statement
	lower      string // Action in lower case, when set
}

// rcpServices are the services resource control policies govern.
var rcpServices = map[string]bool{"s3": true, "sqs": true, "kms": true, "sts": true, "secretsmanager": true}

// orgLimits is the decision of an organisation's policies (SCPs or RCPs,
// by levels) when they keep q from being allowed: each level caps it
// (capLimits).
func orgLimits(q Request, levels [][]Statement, by Source, resourceSide bool) (Verdict, bool) {
	for lvl, stmts := range levels {
		if v, limited := capLimits(q, stmts, fmt.Sprintf("the %s (level %d)", by, lvl+1), by, resourceSide); limited {
			return v, true
		}
	}
	return Verdict{}, false
}

// capLimits is the decision of a policy that caps what q may be allowed (a
// permissions boundary, one level of SCPs or RCPs) when it keeps q from
// being allowed: an explicit Deny, no Allow that matches (IAM's implicit
// deny), or a statement the evaluator cannot judge. what names the policy.
func capLimits(q Request, stmts []Statement, what string, by Source, resourceSide bool) (Verdict, bool) {
	allow, unknown := false, ""
	for i := range stmts {
		s := &stmts[i]
		m, _, why := applies(s, &q, "", resourceSide)
		switch {
		case m == unknownMatch && unknown == "":
			unknown = s.describe(i) + ": " + why
		case m != matches:
		case s.Effect == "Deny":
			return Verdict{Decision: Denied, Because: what + " denies it: " + s.explicitDeny(i), By: by, Explicit: true, Statement: s.describe(i)}, true
		case s.Effect == "Allow":
			allow = true
		}
	}
	switch {
	case unknown != "":
		return Verdict{Decision: Undecided, Because: "cannot judge " + what + ": " + unknown, By: by, Cause: CauseStatement}, true
	case !allow:
		return Verdict{Decision: Denied, Because: what + " does not allow it", By: by}, true
	}
	return Verdict{}, false
}

// WithLowerAction returns q with its action's lower-case form given (the
// evaluator lower-cases it otherwise, once per statement).
func (q Request) WithLowerAction(action, lower string) Request {
	q.Action, q.lower = action, lower
	return q
}

func (q Request) lowerAction() string {
	if q.lower != "" {
		return q.lower
	}
	return strings.ToLower(q.Action)
}

// Verdict is a decision and the statement that made it.
type Verdict struct {
	Decision Decision
	Because  string
	// DeniedByResource: an explicit Deny of the resource's own policy
	// decided it (not the principal's identity policy).
	DeniedByResource bool
	// By is the kind of policy that decided a denial or left it undecided
	// ("" when no one policy did).
	By Source
	// Explicit: an explicit Deny decided it, Statement's; otherwise no
	// statement of By allows it.
	Explicit bool
	// Statement names the statement that decided it ("" for none): where it
	// is, never a value.
	Statement string
	// Cause says why an Undecided verdict is undecided.
	Cause Cause
}

// Cause is why a request is undecided.
type Cause string

// The causes.
const (
	// CauseStatement: a statement over the request depends on a condition
	// key or operator the check cannot judge (Because names both).
	CauseStatement Cause = "statement"
	// CauseBoundaryUnread: the principal's permissions boundary is not in
	// what was read.
	CauseBoundaryUnread Cause = "boundary"
	// CausePolicyUnread: the resource policy that would decide is not in
	// what was read (a resource of another app).
	CausePolicyUnread Cause = "policy"
	// CauseConflict: two policies set the resource's one policy.
	CauseConflict Cause = "conflict"
)

// Source is a kind of policy IAM evaluates.
type Source string

// The kinds of policy.
const (
	FromIdentity Source = "identity policy"
	FromResource Source = "resource policy"
	FromBoundary Source = "permissions boundary"
	FromSCP      Source = "service control policy"
	FromRCP      Source = "resource control policy"
)

// NewRequest builds the request context IAM sees for p calling action on r,
// with region the app's region where r's is unknown (NewCall).
func NewRequest(p *Principal, action string, r *Resource, region string) Request {
	return NewCall(p, action, r, CallContext{Region: region})
}

// NewCall builds the request context AWS sends when p calls action on r
// (IAM user guide, "AWS global condition context keys"; the service
// authorization reference for the service keys): TLS; the endpoint's region
// (aws:RequestedRegion); for a service, the source it acts for
// (aws:SourceArn, aws:SourceAccount, aws:SourceOrgID) and no principal keys;
// for an IAM principal its ARN, account, organisation and unique id (a
// role's is known only once deployed); the resource's account and
// organisation; for a key used through a service, kms:ViaService and
// aws:ViaAWSService. Keys a template cannot tell are Unknown: a condition on
// one leaves the question undecided.
func NewCall(p *Principal, action string, r *Resource, c CallContext) Request {
	q := Request{P: p, Action: action, R: r, Ctx: make(map[string][]string, 12)}
	q.Ctx[KeySecureTransport] = secureTransport
	region := r.Region
	if !known(region) && known(c.Region) {
		region = c.Region
	}
	if c.Global {
		region = homeRegion(PartitionOf(region))
	}
	if known(region) {
		q.Ctx[KeyRequestedRegion] = []string{region}
	} else {
		q.SetUnknown(KeyRequestedRegion, Unknown{Why: "the region of an environment-agnostic stack is known only once deployed (give the stack an env)", Present: true})
	}
	account := []string{OrStar(p.Account)}
	if p.Service != "" {
		q.Ctx[KeySourceArn] = p.Aliases
		q.Ctx[KeySourceAccount] = account
		q.Ctx[KeyPrincipalIsAWSService] = []string{"true"}
		q.Ctx[KeyPrincipalServiceName] = []string{p.Service}
		q.Ctx[KeyViaAWSService] = []string{"false"}
		q.setOrg(KeySourceOrgID, c.PrincipalOrg, "source")
		q.setOrgPath(KeySourceOrgPaths, c.PrincipalOrg, c.PrincipalOrgPath, "source")
	} else {
		q.Ctx[KeyPrincipalArn] = p.Aliases
		q.Ctx[KeyPrincipalAccount] = account
		q.Ctx[KeyKMSCallerAccount] = account
		q.Ctx[KeyPrincipalIsAWSService] = []string{"false"}
		q.Ctx[KeyViaAWSService] = []string{"false"}
		q.setOrg(KeyPrincipalOrgID, c.PrincipalOrg, "principal")
		q.setOrgPath(KeyPrincipalOrgPaths, c.PrincipalOrg, c.PrincipalOrgPath, "principal")
		q.SetUnknown(KeyUserID, Unknown{Why: "a role's unique id (aws:userid) is known only once deployed", Present: true})
	}
	if known(r.Account) {
		q.Ctx[KeyResourceAccount] = []string{r.Account}
	} else {
		q.SetUnknown(KeyResourceAccount, Unknown{Why: "the account of an environment-agnostic stack is known only once deployed (give the stack an env)", Present: true})
	}
	q.setOrg(KeyResourceOrgID, c.ResourceOrg, "resource")
	q.setOrgPath(KeyResourceOrgPaths, c.ResourceOrg, c.ResourceOrgPath, "resource")
	if r.IsKey && p.Service == "" && r.Via != "" {
		q.Ctx[KeyKMSViaService] = []string{r.Via + "." + OrStar(region) + ".amazonaws.com"}
		q.Ctx[KeyViaAWSService] = []string{"true"}
	}
	return q
}

// secureTransport is aws:SecureTransport's value on every call (shared: a
// request's values are never changed in place).
var secureTransport = []string{"true"}

// OrStar is an account or region, "*" where it is unknown.
func OrStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// snsOptInRegions are the opt-in regions SNS names (Amazon SNS developer
// guide, "Sending Amazon SNS messages to an Amazon SQS queue or AWS Lambda
// function in a different Region"), and the opt-in regions opened since.
var snsOptInRegions = map[string]bool{
	"af-south-1": true, "ap-east-1": true, "ap-east-2": true, "ap-south-2": true, "ap-southeast-3": true,
	"ap-southeast-4": true, "ap-southeast-5": true, "ap-southeast-7": true, "ap-northeast-3": true,
	"ca-west-1": true, "eu-south-1": true, "eu-south-2": true, "eu-central-2": true, "il-central-1": true,
	"me-central-1": true, "me-south-1": true, "mx-central-1": true,
}

// SNSServicePrincipal is the principal SNS presents to a subscribed queue or
// function: sns.amazonaws.com within a region or between default regions;
// across an opt-in region, the regional principal of the subscriber's region
// when that is opt-in, else of the topic's. An unknown region ("" or
// patterned) is taken to be a default one.
func SNSServicePrincipal(topicRegion, subscriberRegion string) string {
	known := func(r string) bool { return r != "" && !strings.ContainsAny(r, "*?") }
	if !known(topicRegion) || !known(subscriberRegion) || topicRegion == subscriberRegion {
		return "sns.amazonaws.com"
	}
	switch {
	case snsOptInRegions[subscriberRegion]:
		return "sns." + subscriberRegion + ".amazonaws.com"
	case snsOptInRegions[topicRegion]:
		return "sns." + topicRegion + ".amazonaws.com"
	}
	return "sns.amazonaws.com"
}

// serviceName is the service principal p presents to r.
func serviceName(p *Principal, r *Resource) string {
	if p.Service == "sns.amazonaws.com" {
		return SNSServicePrincipal(p.Region, r.Region)
	}
	return p.Service
}

// match is one statement's answer to a request.
type match int

const (
	noMatch match = iota
	matches
	unknownMatch
)

// Evaluate decides a request the way IAM does for one account boundary: an
// explicit Deny anywhere wins; a service is let in by the resource policy
// alone; a principal of the resource's account by its identity policy or the
// resource policy; a principal of another account needs both. A KMS key
// policy must allow the principal or delegate to its account (then the
// identity policy decides), whatever the account.
func Evaluate(q Request) Verdict {
	if q.R.Conflict != "" {
		return Verdict{Decision: Undecided, Because: q.R.Conflict, Cause: CauseConflict}
	}
	if q.P.Service == "" {
		// An organisation's policy that denies decides; one that cannot be
		// judged leaves the request undecided unless another policy denies
		// it (an explicit Deny anywhere wins).
		var org *Verdict
		if v, limited := orgLimits(q, q.SCPs, FromSCP, false); limited {
			if v.Decision != Undecided {
				return v
			}
			org = &v
		}
		if svc, _, _ := strings.Cut(q.lowerAction(), ":"); rcpServices[svc] {
			if v, limited := orgLimits(q, q.RCPs, FromRCP, true); limited {
				if v.Decision != Undecided {
					return v
				}
				if org == nil {
					org = &v
				}
			}
		}
		if org != nil {
			q.SCPs, q.RCPs = nil, nil
			if v := Evaluate(q); v.Decision == Denied {
				return v
			}
			return *org
		}
	}
	// The first statement of each kind, named only when a reason needs it
	// (this runs for every cell of a matrix).
	var unknownDenyRef, unknownAllowRef, idAllowRef, resDirectRef, resAccountRef stmtRef
	service := ""
	if q.P.Service != "" {
		service = serviceName(q.P, q.R)
	}
	// consider is the explicit Deny among stmts that decides q, if any (a
	// Verdict by value: this runs for every cell of a matrix).
	consider := func(stmts []Statement, resourcePolicy bool) (Verdict, bool) {
		for i := range stmts {
			s := &stmts[i]
			m, direct, why := applies(s, &q, service, resourcePolicy)
			var slot *stmtRef
			switch {
			case m == unknownMatch && s.Effect == "Deny":
				slot = &unknownDenyRef
			case m == unknownMatch:
				slot = &unknownAllowRef
			case m != matches:
			case s.Effect == "Deny":
				by := FromIdentity
				if resourcePolicy {
					by = FromResource
				}
				return Verdict{Decision: Denied, Because: s.explicitDeny(i), DeniedByResource: resourcePolicy, By: by, Explicit: true, Statement: s.describe(i)}, true
			case s.Effect == "Allow" && !resourcePolicy:
				slot = &idAllowRef
			case s.Effect == "Allow" && direct:
				slot = &resDirectRef
			case s.Effect == "Allow":
				slot = &resAccountRef
			}
			if slot != nil && slot.s == nil {
				*slot = stmtRef{s, i, why}
			}
		}
		return Verdict{}, false
	}
	if q.P.Service == "" {
		if v, denied := consider(q.P.Identity, false); denied {
			return v
		}
	}
	if v, denied := consider(q.R.Policy, true); denied {
		return v
	}
	unknownDeny, unknownAllow, idAllow := unknownDenyRef.name(), unknownAllowRef.name(), idAllowRef.name()
	resDirect, resAccount := resDirectRef.name(), resAccountRef.name()
	// Stacks without an account (environment-agnostic) deploy to one account.
	sameAccount := q.P.Account == q.R.Account
	if q.R.PolicyUnknown {
		return identityOnly(q, sameAccount, idAllow, unknownDeny, unknownAllow)
	}
	var allowed bool
	var because string
	switch {
	case q.P.Service != "":
		allowed, because = resDirect != "", resDirect
	case q.R.IsKey && resDirect != "" && sameAccount:
		allowed, because = true, resDirect
	case q.R.IsKey:
		allowed = (resDirect != "" || resAccount != "") && idAllow != ""
		because = or(resDirect, resAccount) + " and " + idAllow
	case sameAccount && resDirect != "":
		allowed, because = true, resDirect
	case sameAccount:
		allowed, because = idAllow != "", idAllow
	default:
		allowed = (resDirect != "" || resAccount != "") && idAllow != ""
		because = or(resDirect, resAccount) + " and " + idAllow
	}
	if allowed && q.P.Service == "" && q.P.Boundary != nil {
		if v, limited := q.P.Boundary.limits(q); limited {
			return v
		}
	}
	switch {
	case allowed && unknownDeny != "":
		return Verdict{Decision: Undecided, Because: "cannot judge " + unknownDeny, Statement: unknownDenyRef.s.describe(unknownDenyRef.i), Cause: CauseStatement}
	case allowed:
		return Verdict{Decision: Allowed, Because: because}
	case unknownAllow != "":
		return Verdict{Decision: Undecided, Because: "cannot judge " + unknownAllow, Statement: unknownAllowRef.s.describe(unknownAllowRef.i), Cause: CauseStatement}
	case q.P.Service != "":
		return Verdict{Decision: Denied, Because: "no statement of the resource policy allows the service", By: FromResource}
	case q.R.IsKey && resDirect == "" && resAccount == "":
		return Verdict{Decision: Denied, Because: "the key policy neither allows the principal nor delegates to its account", By: FromResource}
	case !sameAccount && resDirect == "" && resAccount == "":
		return Verdict{Decision: Denied, Because: "no statement of the resource policy allows a principal of another account", By: FromResource}
	}
	return Verdict{Decision: Denied, Because: "no identity-policy statement allows it", By: FromIdentity}
}

// limits says whether the boundary keeps q from being allowed: an explicit
// Deny in it, no Allow of it (IAM's implicit deny), a statement it cannot
// judge, or a boundary it cannot read. It is asked of a request the
// policies allow. (AWS lets a same-account resource policy that names a role
// session's ARN past a boundary; the evaluator does not tell which alias a
// policy matched, so such a grant is judged as limited: a refusal, never a
// false pass.)
func (b *Boundary) limits(q Request) (Verdict, bool) {
	if b.Unknown != "" {
		return Verdict{Decision: Undecided, Because: "cannot judge the permissions boundary: " + b.Unknown, By: FromBoundary, Cause: CauseBoundaryUnread}, true
	}
	return capLimits(q, b.Statements, "the permissions boundary", FromBoundary, false)
}

// identityOnly decides a request whose resource policy is not known: a
// principal's identity policy that does not allow it (or denies it) decides
// Denied where the resource policy alone could not let it in (another
// account, a key); otherwise the resource policy would decide: Undecided.
func identityOnly(q Request, sameAccount bool, idAllow, unknownDeny, unknownAllow string) Verdict {
	const outside = "the resource policy is outside what was read"
	if q.P.Service != "" {
		return Verdict{Decision: Undecided, Because: outside, Cause: CausePolicyUnread}
	}
	// The boundary limits whatever the unread resource policy would grant
	// (to the role's ARN), and the identity side across accounts.
	if q.P.Boundary != nil {
		if v, limited := q.P.Boundary.limits(q); limited {
			return v
		}
	}
	switch {
	case idAllow != "" && unknownDeny != "":
		return Verdict{Decision: Undecided, Because: "cannot judge " + unknownDeny, Cause: CauseStatement}
	case idAllow != "" && sameAccount && !q.R.IsKey:
		return Verdict{Decision: Allowed, Because: idAllow}
	case idAllow != "":
		return Verdict{Decision: Undecided, Because: idAllow + "; " + outside, Cause: CausePolicyUnread}
	case unknownAllow != "":
		return Verdict{Decision: Undecided, Because: "cannot judge " + unknownAllow, Cause: CauseStatement}
	case sameAccount && !q.R.IsKey:
		return Verdict{Decision: Undecided, Because: "no identity-policy statement allows it; " + outside, Cause: CausePolicyUnread}
	}
	return Verdict{Decision: Denied, Because: "no identity-policy statement allows it", By: FromIdentity}
}

// stmtRef is a statement and its place in its policy, named on demand.
type stmtRef struct {
	s   *Statement
	i   int
	why string // why it could not be judged, for an unknownMatch
}

func (r stmtRef) name() string {
	if r.s == nil {
		return ""
	}
	if r.why != "" {
		return r.s.describe(r.i) + ": " + r.why
	}
	return r.s.describe(r.i)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// explicitDeny is the reason of a Deny that decided, built once a statement.
func (s *Statement) explicitDeny(i int) string {
	if s.cache == nil {
		return "explicit deny: " + s.describe(i)
	}
	if s.cache.denyReason == "" || s.cache.denyIndex != i {
		s.cache.denyReason, s.cache.denyIndex = "explicit deny: "+s.describe(i), i
	}
	return s.cache.denyReason
}

// describe names a statement for a reason: where it is, never a value.
func (s *Statement) describe(i int) string {
	name := s.Sid
	if name == "" {
		name = fmt.Sprintf("statement %d", i+1)
	}
	if s.From == "" {
		return name
	}
	return s.From + " " + name
}

// applies says whether statement s reaches request q: action, resource,
// principal (in a resource policy) and every condition. direct says a
// resource-policy statement names the principal itself (or everyone), not
// only its account.
func applies(s *Statement, q *Request, service string, resourcePolicy bool) (m match, direct bool, why string) {
	if s.Action != nil && s.NotAction != nil || s.Resource != nil && s.NotResource != nil || s.Principal != nil && s.NotPrincipal != nil {
		return unknownMatch, false, "it is not a valid statement" // IAM refuses the policy
	}
	if !s.hasLowerAction(q.lowerAction()) {
		return noMatch, false, ""
	}
	resourceWhy := ""
	if s.Resource != nil || s.NotResource != nil {
		switch c := s.coversFor(q); c {
		case noMatch:
			return noMatch, false, ""
		case unknownMatch:
			resourceWhy = "a policy variable of its resources is not known at synth"
		}
	}
	switch {
	case s.NotPrincipal != nil && !resourcePolicy:
		return unknownMatch, false, "NotPrincipal is not valid in an identity policy"
	case s.NotPrincipal != nil:
		// Every principal but those listed.
		if notPrincipalSpares(s, q.P, service) {
			return noMatch, false, ""
		}
		direct = true
	case resourcePolicy:
		var ok bool
		if ok, direct = principalMatches(s, q.P, service); !ok {
			return noMatch, false, ""
		}
	}
	m, why = conditionsHold(s, q)
	if m == matches && resourceWhy != "" {
		return unknownMatch, direct, resourceWhy
	}
	return m, direct, why
}

// coversFor says whether the statement's resources reach q's resource, its
// policy variables resolved from q's context: a variable of a key the
// request does not carry makes the statement apply to nothing (IAM), one
// whose value is not known at synth leaves it unknownMatch.
func (s *Statement) coversFor(q *Request) match {
	v := s.values()
	if !v.resourceVars {
		if s.Covers(q.R.Aliases) {
			return matches
		}
		return noMatch
	}
	resources, res := substituteVariables(v.resources, q)
	switch res {
	case varAbsent:
		return noMatch
	case varUnknown:
		return unknownMatch
	}
	hit := false
	for _, r := range resources {
		hit = hit || CoversAny(r, q.R.Aliases)
	}
	if hit != (s.NotResource != nil) {
		return matches
	}
	return noMatch
}

// principalMatches says whether a resource-policy statement names p: by "*"
// or {"AWS": "*"} (every principal, services included), its service, its ARN
// or reference (direct), or its account.
func principalMatches(s *Statement, p *Principal, service string) (ok, direct bool) {
	if s.Principal == "*" {
		return true, true
	}
	pm, _ := s.Principal.(map[string]any)
	if p.Service != "" {
		// {"AWS": "*"} is every principal, services included, as "*" is.
		return contains(StringsOf(pm["Service"]), service) || contains(StringsOf(pm["AWS"]), "*"), true
	}
	for _, id := range s.values().awsPrin {
		// A principal built from the stack's own unknown account is a
		// pattern over it (arn:aws:iam::*:root).
		switch {
		case id == "*" || CoversAny(id, p.Aliases):
			return true, true
		case id == p.Account || GlobMatch(id, "arn:aws:iam::"+p.Account+":root"):
			ok = true
		}
	}
	return ok, false
}

// notPrincipalSpares says whether a NotPrincipal statement leaves p out. A
// service, by its name (or "*"). An IAM principal only when the list names
// every identity AWS may check the request against (IAM user guide,
// "NotPrincipal"): its account (root ARN or id) and its ARN, and for a role,
// the exact sts ARN of the session it acts under, since AWS matches an
// assumed-role request by its session. A role listed by its ARN alone, or a
// session the evaluator does not know, is not spared; nor is a principal
// with a permissions boundary, however it is listed (the same page: such a
// Deny "will always deny any IAM principal that has a permissions boundary
// policy attached").
func notPrincipalSpares(s *Statement, p *Principal, service string) bool {
	if s.NotPrincipal == "*" {
		return true
	}
	list := Statement{Scope: s.Scope, Principal: s.NotPrincipal}
	if p.Service != "" {
		ok, _ := principalMatches(&list, p, service)
		return ok
	}
	if p.Boundary != nil {
		return false
	}
	names := list.values().awsPrin
	listed := func(ids ...string) bool {
		for _, n := range names {
			if n == "*" {
				return true
			}
			for _, id := range ids {
				if id != "" && n == id { // Principal names no pattern: only "*" is a wildcard
					return true
				}
			}
		}
		return false
	}
	if !listed(p.Account, "arn:aws:iam::"+p.Account+":root") || !listed(p.Aliases...) {
		return false
	}
	for _, al := range p.Aliases {
		f := strings.SplitN(al, ":", 6)
		if len(f) != 6 || f[2] != "iam" || !strings.HasPrefix(f[5], "role/") {
			continue
		}
		if p.Session == "" {
			return false // a role's request is its session's, named by an ARN nobody can know here
		}
		name := f[5][strings.LastIndex(f[5], "/")+1:]
		return listed(fmt.Sprintf("arn:%s:sts::%s:assumed-role/%s/%s", f[1], f[4], name, p.Session))
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// conditionsHold evaluates a statement's condition block against the
// request context. A key the request does not carry holds a negated operator,
// an IfExists operator and ForAllValues, and fails every other. A key whose
// value the request carries but the check cannot know, an operator the
// evaluator does not know, or a value it cannot render is unknownMatch
// (why names it) unless another key already fails.
func conditionsHold(s *Statement, q *Request) (match, string) {
	// A condition block is a conjunction: one key that fails decides it,
	// whatever the others; otherwise one the evaluator cannot judge leaves it
	// unknown.
	why := ""
	unknown := func(reason string) {
		if why == "" {
			why = reason
		}
	}
	for _, c := range s.values().conditions {
		if c.unknown {
			unknown("a value of its " + c.key + " condition is not known at synth")
			continue
		}
		have, state, u := q.lookup(c.key)
		if c.op == "null" {
			switch {
			case len(c.values) != 1:
				return noMatch, ""
			case state == keyUnknown && !u.Present:
				unknown(u.Why)
			case (c.values[0] == "true") == (state != keyAbsent):
				return noMatch, ""
			}
			continue
		}
		negated := strings.Contains(c.op, "not")
		var eq func(w, h string) bool
		switch strings.Replace(c.op, "not", "", 1) {
		case "stringequals":
			eq = func(w, h string) bool { return w == h }
		case "bool":
			eq = strings.EqualFold // "true" and "false", in any case
		case "stringequalsignorecase":
			eq = strings.EqualFold
		case "stringlike":
			eq = func(w, h string) bool { return CoversAny(w, []string{h}) }
		case "arnlike", "arnequals":
			// IAM matches an ARN field by field: a wildcard never
			// crosses a colon.
			eq = arnMatchAny
		default:
			unknown("the evaluator does not judge its " + c.op + " operator on " + c.key)
			continue
		}
		if state == keyUnknown {
			unknown(u.Why)
			continue
		}
		if state == keyAbsent {
			if negated || c.ifExists || c.forAll {
				continue // ForAllValues over no value holds
			}
			return noMatch, ""
		}
		values := c.values
		if c.variables {
			var res varResult
			if values, res = substituteVariables(c.values, q); res == varAbsent {
				// IAM: a variable it cannot resolve makes the statement
				// invalid, so it applies to nothing.
				return noMatch, ""
			} else if res == varUnknown {
				unknown("a policy variable of its " + c.key + " condition is not known at synth")
				continue
			}
		}
		matchesOne := func(h string) bool {
			for _, w := range values {
				if eq(w, h) {
					return true
				}
			}
			return false
		}
		hit := false
		if c.forAll { // every value of the request's key matches one of the policy's
			hit = true
			for _, h := range have {
				hit = hit && matchesOne(h)
			}
		} else {
			for _, h := range have {
				hit = hit || matchesOne(h)
			}
		}
		if hit == negated {
			return noMatch, ""
		}
	}
	if why != "" {
		return unknownMatch, why
	}
	return matches, ""
}

// varResult is what substituting a policy's variables came to.
type varResult int

const (
	varResolved varResult = iota
	varAbsent             // a variable names a key the request does not carry
	varUnknown            // a variable names a key whose value the check cannot know
)

// substituteVariables renders the policy variables of values (IAM policy
// elements: variables) from the request context: ${key} is the key's single
// value, and ${*}, ${?} and ${$} are the literal characters. A variable naming
// a key the request does not carry, or one with several values, cannot be
// resolved (IAM then applies the statement to nothing); one whose value is
// not known at synth leaves the statement undecided.
func substituteVariables(values []string, q *Request) (out []string, res varResult) {
	out = make([]string, 0, len(values))
	for _, v := range values {
		var b strings.Builder
		for {
			i := strings.Index(v, "${")
			if i < 0 {
				b.WriteString(v)
				break
			}
			j := strings.IndexByte(v[i:], '}')
			if j < 0 {
				b.WriteString(v)
				break
			}
			b.WriteString(v[:i])
			switch name := v[i+2 : i+j]; name {
			case "*", "?", "$":
				b.WriteString(name)
			default:
				have, state, _ := q.lookup(strings.ToLower(name))
				switch {
				case state == keyUnknown:
					return nil, varUnknown
				case state == keyAbsent || len(have) != 1:
					return nil, varAbsent
				}
				b.WriteString(have[0])
			}
			v = v[i+j+1:]
		}
		out = append(out, b.String())
	}
	return out, varResolved
}
