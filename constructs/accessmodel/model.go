package accessmodel

import (
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Principal is who makes a request, as the matrix names and classes it.
type Principal struct {
	iameval.Principal
	Name  string // its class's name in the matrix (handler/space, other/222222222222, …)
	Class string // its class (ClassHandler, ClassOther, …)
}

// Target is what a request reaches, as the matrix names it, and where it is.
type Target struct {
	iameval.Resource
	Name   string             // its name in the matrix (queue/space, response-queue, …)
	Kind   channelpolicy.Kind // what it is on the channel's path
	Store  string             // the store it belongs to, "" for the channel's own
	Admins []string           // the ARN patterns of its administrators
	// Writers and Readers are a ledger anchor's declared sweeper and
	// auditors (channelpolicy.WritersMetadataKey, ReadersMetadataKey).
	Writers, Readers []string
	// Locked says the channel's constructs built and locked it (their kind
	// metadata): it always denies requests without TLS.
	Locked bool
	// Gate is what channelpolicy's gates read of its resource (its
	// properties and deletion policies), nil for a resource of another app.
	Gate *channelpolicy.Resource
	// Template and ID are where it is, for the caller's findings: its
	// template (nil for a resource of another app) and its logical id. The
	// model reads neither.
	Template *cfnmodel.Template
	ID       string
}

// Names of the principal classes the matrix derives besides the app's roles.
const (
	AccountServicePrincipal = "account-service" // the channel's first declared publisher
	ErasureTopicSNS         = "sns/erasure-topic"
	otherTopicSNSName       = "sns/another-topic/" // + account
	otherPrincipal          = "other/"             // + account: any unnamed principal of it
	rootPrincipal           = "root/"              // + account: its root user
	federatedPrincipal      = "federated/"         // + account: a federated user of it
	adminPrincipal          = "admin/"             // + account: its administrators' region
	patternPrincipal        = "pattern/"           // + account + "/" + instance
	servicePrincipal        = "service/"           // + service + "/" + account
	handlerPrincipal        = "handler/"           // + store
	anyAccountLabel         = "any-account"
	// orgAccountLabel names the witness account of the channel's
	// organisation that nothing of the app names: in the organisation, off
	// the roster.
	orgAccountLabel = "an-account-of-the-organisation"
)

// EverythingPolicy is the identity policy of a principal that its own
// account lets do anything: only resource policies can keep it out. It is
// parsed (iameval.Parse), so the evaluator renders it once rather than at
// every cell; each matrix holds its own (the render cache is not shared
// between goroutines).
func EverythingPolicy() []iameval.Statement {
	return iameval.Parse(map[string]any{"Statement": []any{map[string]any{"Sid": "AllowEverything", "Effect": "Allow", "Action": "*", "Resource": "*"}}},
		nil, "its own identity policy")
}

// Classes of principal, for the counts erasurectl access prints.
const (
	ClassHandler   = "handler"
	ClassDeclared  = "declared"
	ClassRole      = "app-role"
	ClassAdmin     = "administrators"
	ClassOther     = "any-other-principal"
	ClassRoot      = "account-root"
	ClassFederated = "federated-user"
	ClassPattern   = "pattern-region"
	ClassService   = "service"
	ClassTopicSNS  = "erasure-topic-sns"
	ClassOtherSNS  = "another-topic-sns"
	defaultRegionW = "*"
)

// endpoint is one class of sns:Subscribe endpoint.
type endpoint struct {
	label string // queue/space, sqs-queue-of/<account>, https, …
	// cellLabel is the action of its cells: sns:Subscribe(<label>).
	cellLabel string
	protocol  string
	values    []string // sns:Endpoint values
	queue     *Target  // the roster queue it is, or nil
	account   string   // the account of an SQS endpoint
}

// Declared is what the channel declares of its principals (its constructs'
// metadata), against which every cell is judged.
type Declared struct {
	Publishers []string        // the topic's publishers, the account service first
	Readers    []string        // the response queue's readers
	Roster     map[string]bool // store names
	// RosterAccounts are the accounts whose handler path
	// (contract.HandlerRolePath) the channel admits.
	RosterAccounts map[string]bool
}
