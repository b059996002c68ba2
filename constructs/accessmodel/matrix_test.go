package accessmodel_test

import (
	"errors"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

const (
	account   = "111111111111"
	region    = "eu-west-1"
	topicARN  = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
	publisher = "arn:aws:iam::111111111111:role/account-service"
)

// topicChannel is a channel told to the model by hand, with no template:
// one topic whose policy is stmts, one declared publisher.
func topicChannel(stmts ...map[string]any) *accessmodel.Channel {
	list := make([]any, len(stmts))
	for i, s := range stmts {
		list[i] = s
	}
	ch := &accessmodel.Channel{TopicAccount: account, TopicRegion: region, TopicIdents: []string{topicARN},
		Declared: accessmodel.Declared{Publishers: []string{publisher}}}
	mustAdd(ch, &accessmodel.Target{Name: "topic", Kind: channelpolicy.Topic,
		Admins: []string{channelpolicy.DefaultAdministrators("aws", account, region)},
		Resource: iameval.Resource{Aliases: []string{topicARN}, Account: account, Region: region,
			Policy: iameval.Parse(map[string]any{"Statement": list}, nil, "the topic's policy")}})
	return ch
}

func mustAdd(ch *accessmodel.Channel, t *accessmodel.Target) {
	if err := ch.Add(t); err != nil {
		panic(err)
	}
}

var (
	allowPublisher = map[string]any{"Sid": "Publish", "Effect": "Allow", "Principal": map[string]any{"AWS": publisher},
		"Action": "sns:Publish", "Resource": topicARN}
	denyOthers = map[string]any{"Sid": "OnlyThePublisher", "Effect": "Deny", "Principal": "*", "Action": "sns:Publish", "Resource": topicARN,
		"Condition": map[string]any{"StringNotEquals": map[string]any{"aws:PrincipalArn": publisher}}}
)

// TestMatrixFromAChannelAlone: the model decides from what it is told, and
// a principal of the topic's own account whose identity allows everything
// publishes unless the topic's policy denies it. The witness is derived by
// the model, not listed by the test.
func TestMatrixFromAChannelAlone(t *testing.T) {
	ctx := accessmodel.Context{Region: region}
	open := accessmodel.New(topicChannel(allowPublisher), ctx, accessmodel.Options{})
	if got := open.Decide(accessmodel.AccountServicePrincipal, "sns:Publish", "topic"); got != iameval.Allowed {
		t.Fatalf("the declared publisher: %s", got)
	}
	var widened bool
	for _, c := range open.Failing() {
		if c.Resource == "topic" && c.Action == "sns:Publish" && c.Principal == "other/"+account && c.Got == iameval.Allowed {
			widened = true
		}
	}
	if !widened {
		t.Fatalf("a topic policy that only allows: any principal of %s should publish through its own identity; failing: %v", account, open.Failing())
	}

	locked := accessmodel.New(topicChannel(allowPublisher, denyOthers), ctx, accessmodel.Options{})
	for _, c := range locked.Cells {
		if c.Action == "sns:Publish" && !c.Holds() {
			t.Errorf("locked topic: %s %s %s: want %s, got %s (%s)", c.Principal, c.Action, c.Resource, c.Want, c.Got, c.Because)
		}
	}
	if n := len(locked.Cells); n == 0 || locked.Principal(accessmodel.AccountServicePrincipal) == nil || locked.Target("topic") == nil {
		t.Fatalf("the matrix names its principals and targets: %d cells", n)
	}
}

// TestOrganisationContext: the request context carries the organisation's
// id for its accounts and marks every other account as outside it.
func TestOrganisationContext(t *testing.T) {
	o := accessmodel.Organisation{ID: "o-abcdefghij", Accounts: map[string]bool{account: true},
		Units: map[string][]string{account: {"r-ab12", "ou-ab12-abcdefgh"}}}
	for _, c := range []struct{ account, org, path string }{
		{account, "o-abcdefghij", "o-abcdefghij/r-ab12/ou-ab12-abcdefgh/"},
		{"222222222222", iameval.OrgOutside, ""},
		{"", "o-abcdefghij", ""},
	} {
		if got := o.OrgOf(c.account); got != c.org {
			t.Errorf("OrgOf(%q) = %q, want %q", c.account, got, c.org)
		}
		if got := o.OrgPath(c.account); got != c.path {
			t.Errorf("OrgPath(%q) = %q, want %q", c.account, got, c.path)
		}
	}
	// With no organisation: the app's own accounts are in none that is
	// known, and an account the app does not hold is outside.
	none := accessmodel.Organisation{Accounts: map[string]bool{account: true}}
	if got := none.OrgOf(account); got != "" {
		t.Errorf("no organisation given: OrgOf(the app's account) = %q, want none", got)
	}
	if got := none.OrgOf("222222222222"); got != iameval.OrgOutside {
		t.Errorf("no organisation given: OrgOf(another account) = %q, want outside", got)
	}
}

// TestChannelRefusesASecondTargetOfOneName: cells name their target, so a
// second target of a name on the channel is refused with a typed error and
// the first stays, the only one asked.
func TestChannelRefusesASecondTargetOfOneName(t *testing.T) {
	ch := topicChannel(allowPublisher)
	second := &accessmodel.Target{Name: "topic", Kind: channelpolicy.Topic}
	var dup *accessmodel.DuplicateTargetError
	if err := ch.Add(second); !errors.As(err, &dup) || dup.Name != "topic" {
		t.Fatalf("a second target named topic: want *DuplicateTargetError naming it, got %v", err)
	}
	if len(ch.Targets) != 1 || ch.Target("topic") == second {
		t.Fatalf("the refused target was put on the channel: %d targets", len(ch.Targets))
	}
	if err := ch.Add(nil); err != nil {
		t.Fatalf("a nil target is no target: %v", err)
	}
}
