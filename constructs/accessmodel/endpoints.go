package accessmodel

import (
	"fmt"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// endpoints are the classes of sns:Subscribe request: every protocol with
// every class of endpoint (each roster queue, a queue of each account, an
// endpoint that is no queue), so that protocol and endpoint are each judged
// on their own. The queues of an account are asked for the accounts that
// stand for their class (standsFor), and for the accounts of the principals
// asked: the topic's policy ties an endpoint to its subscriber's account.
func (m *Matrix) endpoints(standsFor func(string) string, askers []*Principal) []*endpoint {
	type ep struct {
		label   string
		values  []string
		queue   *Target
		account string
	}
	var eps []ep
	accounts := map[string]bool{}
	for _, name := range m.order {
		t := m.targets[name]
		accounts[t.Account] = true
		if t.Kind == channelpolicy.Queue {
			eps = append(eps, ep{name, t.Aliases, t, t.Account})
		}
	}
	for acct := range m.decl.RosterAccounts {
		accounts[acct] = true
	}
	if w := m.ctx.Organisation.witness; w != "" {
		accounts[w] = true
	}
	for acct := range m.endpointAccounts {
		accounts[acct] = true
	}
	// Of each class, the account that stands for it and one more: a
	// subscriber's queue of another account of its own class.
	asked := map[string]bool{}
	second := map[string]bool{}
	for _, acct := range cfnmodel.SortedKeys(accounts) {
		switch r := standsFor(acct); {
		case r == acct:
			asked[acct] = true
		case !second[r]:
			second[r], asked[acct] = true, true
		}
	}
	// And a queue of each subscriber's own account. Not in an
	// environment-agnostic app: its stacks' one account is unknown at synth,
	// and may be any account the policies name.
	if !m.agnostic() {
		for _, p := range askers {
			asked[p.Account] = true
		}
	}
	accounts = asked
	region := m.ctx.Region
	for _, acct := range cfnmodel.SortedKeys(accounts) {
		eps = append(eps, ep{"a-queue-of/" + orLabel(acct), []string{fmt.Sprintf("arn:aws:sqs:%s:%s:erasure-witness-queue", region, iameval.OrStar(acct))}, nil, acct})
		// A queue named like a store's (contract.QueueNamePrefix) that is no
		// queue of this app: the class a store-queue pattern draws.
		eps = append(eps, ep{"a-store-queue-of/" + orLabel(acct), []string{fmt.Sprintf("arn:aws:sqs:%s:%s:%serasure-witness", region, iameval.OrStar(acct), contract.QueueNamePrefix)}, nil, acct})
	}
	eps = append(eps, ep{"not-a-queue", []string{"https://erasure-witness.invalid/"}, nil, ""})
	var out []*endpoint
	for _, proto := range []string{"sqs", "http", "https", "email", "email-json", "lambda", "application", "firehose", "sms"} {
		for _, e := range eps {
			label := proto + ":" + e.label
			out = append(out, &endpoint{label: label, cellLabel: "sns:Subscribe(" + label + ")", protocol: proto, values: e.values, queue: e.queue, account: e.account})
		}
	}
	return out
}
