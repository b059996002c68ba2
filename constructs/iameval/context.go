package iameval

import (
	"strings"
)

// The global condition keys (IAM user guide, "AWS global condition context
// keys") and the service keys the evaluator builds a request context from,
// in lower case: IAM compares key names case-insensitively.
const (
	KeyRequestedRegion       = "aws:requestedregion"
	KeyPrincipalAccount      = "aws:principalaccount"
	KeyPrincipalArn          = "aws:principalarn"
	KeyPrincipalOrgID        = "aws:principalorgid"
	KeyPrincipalIsAWSService = "aws:principalisawsservice"
	KeyPrincipalServiceName  = "aws:principalservicename"
	KeyResourceAccount       = "aws:resourceaccount"
	KeyResourceOrgID         = "aws:resourceorgid"
	KeyPrincipalOrgPaths     = "aws:principalorgpaths"
	KeyResourceOrgPaths      = "aws:resourceorgpaths"
	KeySourceOrgPaths        = "aws:sourceorgpaths"
	KeySourceAccount         = "aws:sourceaccount"
	KeySourceArn             = "aws:sourcearn"
	KeySourceOrgID           = "aws:sourceorgid"
	KeyViaAWSService         = "aws:viaawsservice"
	KeyCalledVia             = "aws:calledvia"
	KeyCalledViaFirst        = "aws:calledviafirst"
	KeyCalledViaLast         = "aws:calledvialast"
	KeySecureTransport       = "aws:securetransport"
	KeyUserID                = "aws:userid"
	KeyUsername              = "aws:username"
	KeyMultiFactorAuth       = "aws:multifactorauthpresent"
	KeyKMSViaService         = "kms:viaservice"
	KeyKMSCallerAccount      = "kms:calleraccount"
	KeySNSProtocol           = "sns:protocol"
	KeySNSEndpoint           = "sns:endpoint"
)

// decidedKeys are the keys whose presence every request of the evaluator
// decides: a key of these that a request does not carry (neither in Ctx nor
// in Unknown) is absent from AWS's request, as for a role's own call
// aws:SourceArn. Every other key (a tag, a source IP or VPC endpoint, a time,
// a service key the evaluator does not build) is one the check cannot know:
// a condition on it leaves the question undecided, never guessed.
var decidedKeys = map[string]bool{
	KeyRequestedRegion: true, KeyPrincipalAccount: true, KeyPrincipalArn: true, KeyPrincipalOrgID: true,
	KeyPrincipalIsAWSService: true, KeyPrincipalServiceName: true, KeyResourceAccount: true, KeyResourceOrgID: true,
	KeySourceAccount: true, KeySourceArn: true, KeySourceOrgID: true, KeyPrincipalOrgPaths: true, KeyResourceOrgPaths: true, KeySourceOrgPaths: true, KeyViaAWSService: true, KeyCalledVia: true,
	KeyCalledViaFirst: true, KeyCalledViaLast: true, KeySecureTransport: true, KeyUserID: true, KeyUsername: true,
	KeyMultiFactorAuth: true, KeyKMSViaService: true, KeyKMSCallerAccount: true, KeySNSProtocol: true, KeySNSEndpoint: true,
}

// Unknown is a key a request carries whose value a template cannot tell: a
// role's unique id, the organisation of an account nobody named, the region
// of an environment-agnostic stack.
type Unknown struct {
	// Why says what would make it known, for a finding (never a value).
	Why string
	// Present: AWS sends the key on this call for sure (a Null condition on
	// it is decided); otherwise whether it is sent is not known either.
	Present bool
}

// keyState is what a request tells of one key.
type keyState int

const (
	keyAbsent keyState = iota
	keyKnown
	keyUnknown
)

// lookup is what q carries for key (lower case): its values, absent, or
// unknown (with why).
func (q *Request) lookup(key string) (values []string, state keyState, u Unknown) {
	if v, ok := q.Ctx[key]; ok {
		return v, keyKnown, Unknown{}
	}
	if u, ok := q.Unknown[key]; ok {
		return nil, keyUnknown, u
	}
	if decidedKeys[key] {
		return nil, keyAbsent, Unknown{}
	}
	return nil, keyUnknown, Unknown{Why: key + " is not known before the call is made"}
}

// SetUnknown records that q carries key (any case) with a value the check
// cannot know, and why.
func (q *Request) SetUnknown(key string, u Unknown) {
	key = strings.ToLower(key)
	delete(q.Ctx, key)
	if q.Unknown == nil {
		q.Unknown = make(map[string]Unknown, 4)
	}
	q.Unknown[key] = u
}

// Set records key's values in q's context (any case), known.
func (q *Request) Set(key string, values ...string) {
	key = strings.ToLower(key)
	if q.Unknown != nil {
		delete(q.Unknown, key)
	}
	q.Ctx[key] = values
}

// Clone is q with a context of its own, to be changed without changing q's.
func (q Request) Clone() Request {
	ctx := make(map[string][]string, len(q.Ctx)+2)
	for k, v := range q.Ctx {
		ctx[k] = v
	}
	q.Ctx = ctx
	if q.Unknown != nil {
		u := make(map[string]Unknown, len(q.Unknown))
		for k, v := range q.Unknown {
			u[k] = v
		}
		q.Unknown = u
	}
	return q
}

// Direct is q made by the principal itself rather than through the service
// that uses a key for it: no kms:ViaService, aws:ViaAWSService false.
func (q Request) Direct() Request {
	q = q.Clone()
	delete(q.Ctx, KeyKMSViaService)
	q.Ctx[KeyViaAWSService] = []string{"false"}
	return q
}

// CallContext is what the request context of one call depends on beyond the
// principal and the resource (NewRequest).
type CallContext struct {
	// Region is the region of the endpoint called (aws:RequestedRegion):
	// the resource's region, "" when unknown.
	Region string
	// PrincipalOrg and ResourceOrg are the organisation ids of the
	// principal's and the resource's accounts (aws:PrincipalOrgID,
	// aws:ResourceOrgID, aws:SourceOrgID): OrgOutside when the account is in
	// none, "" when that is not known.
	PrincipalOrg, ResourceOrg string
	// PrincipalOrgPath and ResourceOrgPath are the accounts' paths in the
	// organisation (o-…/r-…/ou-…/: aws:PrincipalOrgPaths,
	// aws:ResourceOrgPaths, aws:SourceOrgPaths), "" when not known: then
	// unknown inside the organisation, absent outside it.
	PrincipalOrgPath, ResourceOrgPath string
	// Global: the call is to a global service's endpoint (IAM), whose
	// aws:RequestedRegion is the partition's home region.
	Global bool
}

// OrgOutside is CallContext's organisation of an account known to be in no
// organisation the policies name (a witness of "any other account").
const OrgOutside = "-"

// PartitionOf is the partition of a region ("aws" when unknown or a pattern).
func PartitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// homeRegion is where a partition's global services (IAM) are called.
func homeRegion(partition string) string {
	switch partition {
	case "aws-cn":
		return "cn-north-1"
	case "aws-us-gov":
		return "us-gov-west-1"
	}
	return "us-east-1"
}

// known says a region or account is a literal (not "" nor a pattern).
func known(s string) bool { return s != "" && !strings.ContainsAny(s, "*?") }

// setOrgPath records an organisation path key: known when placed, absent
// outside any organisation, unknown otherwise.
func (q *Request) setOrgPath(key, org, path, role string) {
	switch {
	case org == OrgOutside:
	case path != "":
		q.Ctx[key] = []string{path}
	default:
		q.SetUnknown(key, Unknown{Why: "the " + role + "'s account has no place in the organisation the check was given (--ou, ErasureCheck's organizationalUnits)"})
	}
}

// setOrg records an organisation key from what CallContext says of it.
func (q *Request) setOrg(key, org, role string) {
	switch {
	case org == OrgOutside:
		// In no organisation: AWS sends no organisation key.
	case org != "":
		q.Ctx[key] = []string{org}
	default:
		q.SetUnknown(key, orgUnknown[role])
	}
}

// orgUnknown is why an organisation key is unknown, by whose account it is
// (one value each: this runs for every request of a matrix).
var orgUnknown = map[string]Unknown{
	"principal": {Why: "whether the principal's account is in an AWS organisation, and which, is not given (the organisation's id: --organization-id, ErasureCheck's organizationId)"},
	"resource":  {Why: "whether the resource's account is in an AWS organisation, and which, is not given (the organisation's id: --organization-id, ErasureCheck's organizationId)"},
	"source":    {Why: "whether the source's account is in an AWS organisation, and which, is not given (the organisation's id: --organization-id, ErasureCheck's organizationId)"},
}
