package accessmodel

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Cell is one row of the access matrix: may this principal take this action
// on this resource, what the channel needs, and what the synthesized
// policies decide.
type Cell struct {
	Principal string           `json:"principal"` // e.g. handler/space, other/222222222222, sns/erasure-topic
	Class     string           `json:"class"`     // the principal's Class: handler, declared, administrators, any-other-principal, …
	Action    string           `json:"action"`    // sns:Subscribe(<endpoint class>) for a subscription`
	Resource  string           `json:"resource"`  // e.g. queue/space, response-queue, bucket-objects/bitmaps
	Want      iameval.Decision `json:"want"`
	Got       iameval.Decision `json:"got"`
	Because   string           `json:"because"` // the statement that decided, by stack, resource and Sid
}

// Holds says whether the policies decide what the channel needs.
func (c Cell) Holds() bool { return c.Want == c.Got || c.Want == Either && c.Got != iameval.Undecided }

// Matrix is the channel's data path, evaluated offline over the
// synthesized identity, queue, topic, bucket and key policies.
type Matrix struct {
	Cells []Cell

	ctx            Context // the request context, with the organisation witness the matrix adds
	principals     map[string]*Principal
	principalOrder []string
	targets        map[string]*Target
	order          []string // target names in the order found
	handlers       map[string]*Principal
	decl           Declared
	everything     []iameval.Statement // EverythingPolicy, the witnesses' identity
	channelAccount string
	channelRegion  string // the erasure topic's region, "" when unknown
	topicIdents    []string
	endpointOf     map[int]*endpoint // cell index -> its sns:Subscribe endpoint
	plain          map[int]bool      // cell index -> asked without TLS (plainCell)
	direct         map[int]bool      // cell index -> a key asked without kms:ViaService (directCell)
	// witnessAccounts are the accounts with witnesses, the unnamed one first.
	witnessAccounts []string
	// endpointAccounts are the accounts only an sns:Endpoint condition may
	// name: each is a class of endpoint (endpoints).
	endpointAccounts map[string]bool
	everyAccount     bool // Config.EveryAccount
	only             func(channelpolicy.Kind, string) bool
}

// Failing returns the cells whose decision is not what the channel needs.
func (m *Matrix) Failing() []Cell {
	var out []Cell
	for _, c := range m.Cells {
		if !c.Holds() {
			out = append(out, c)
		}
	}
	return out
}

// Decide evaluates one request by the matrix's names (a principal such as
// handler/space or account-service, a resource such as response-queue):
// the local channel asks it before each call, so that a call the deployed
// policies would deny fails locally too. An unknown name is iameval.Undecided.
func (m *Matrix) Decide(principalName, action, resourceName string) iameval.Decision {
	p, r := m.principals[principalName], m.targets[resourceName]
	if p == nil || r == nil || strings.EqualFold(action, "sns:Subscribe") {
		return iameval.Undecided // a subscription is decided with its endpoint (DecideSubscribe)
	}
	return m.ctx.Decide(p, action, r).Decision
}

// DecideSubscribe decides an sns:Subscribe to the topic over protocol of an
// endpoint: a queue of the matrix by its name (queue/space), or any other
// endpoint as given (an SQS queue's ARN, a URL, …).
func (m *Matrix) DecideSubscribe(principalName, protocol, endpoint string) iameval.Decision {
	p, r := m.principals[principalName], m.targets["topic"]
	if p == nil || r == nil {
		return iameval.Undecided
	}
	q := m.ctx.Request(p, "sns:Subscribe", r)
	q.Ctx["sns:protocol"] = []string{protocol}
	q.Ctx["sns:endpoint"] = []string{endpoint}
	if t := m.targets[endpoint]; t != nil {
		q.Ctx["sns:endpoint"] = t.Aliases
	}
	return iameval.Evaluate(q).Decision
}

// RequestOf is the request cell i asked: for the cross-check against an
// independent evaluator.
func (m *Matrix) RequestOf(i int) iameval.Request {
	c := m.Cells[i]
	action := c.Action
	if j := strings.IndexByte(action, '('); j >= 0 {
		action = action[:j]
	}
	q := m.ctx.Request(m.principals[c.Principal], action, m.targets[c.Resource])
	if m.plain[i] {
		q.Ctx[iameval.KeySecureTransport] = []string{"false"}
	}
	if m.direct[i] {
		q = q.Direct()
	}
	if e := m.endpointOf[i]; e != nil {
		q.Ctx["sns:protocol"] = []string{e.protocol}
		q.Ctx["sns:endpoint"] = e.values
	}
	return q
}

// ClassCount is the matrix's cells of one principal class.
type ClassCount struct {
	Class      string `json:"class"`
	Principals int    `json:"principals"` // principals of the class evaluated
	Cells      int    `json:"cells"`
	Allowed    int    `json:"allowed"` // cells the channel needs allowed
	Failing    int    `json:"failing"`
}

// Classes counts the cells by principal class, in a stable order.
func (m *Matrix) Classes() []ClassCount {
	by := map[string]*ClassCount{}
	principals := map[string]map[string]bool{}
	for _, c := range m.Cells {
		cc := by[c.Class]
		if cc == nil {
			cc = &ClassCount{Class: c.Class}
			by[c.Class], principals[c.Class] = cc, map[string]bool{}
		}
		cc.Cells++
		principals[c.Class][c.Principal] = true
		if c.Want == iameval.Allowed {
			cc.Allowed++
		}
		if !c.Holds() {
			cc.Failing++
		}
	}
	var out []ClassCount
	for _, k := range cfnmodel.SortedKeys(by) {
		by[k].Principals = len(principals[k])
		out = append(out, *by[k])
	}
	return out
}
