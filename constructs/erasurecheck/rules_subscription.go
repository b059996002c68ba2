package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// The subscription family: how a store's queue is subscribed to the erasure
// topic.
var (
	ruleRawDelivery = declare(Rule{ID: "EC104", Name: "RawMessageDelivery", Type: problem.Invalid, Source: FromSeed, Reference: "seed: the message on the queue is the published request",
		Title: "The subscription delivers raw messages",
		Why:   "Without RawMessageDelivery the handler receives an SNS envelope, refuses it as a request and dead-letters every request.",
		Fix:   "Set RawMessageDelivery: true on the AWS::SNS::Subscription (ErasureSubscriber does)."})
	ruleSubscriptionFilter = declare(Rule{ID: "EC105", Name: "SubscriptionFilterPolicy", Type: problem.BreaksErasure, Source: FromSeed, Reference: "seed: every store answers every request",
		Title: "The subscription has no filter policy",
		Why:   "SNS drops every request the filter does not match, without a trace: the store never answers, and the round cannot complete.",
		Fix:   "Remove FilterPolicy and FilterPolicyScope; answer NOT_APPLICABLE from the handler instead."})
	ruleSubscriptionRegion = declare(Rule{ID: "EC106", Name: "SubscriptionRegion", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-sns-subscription.html#cfn-sns-subscription-region",
		Title: "A subscription's Region is the topic's",
		Why:   "SNS rejects a subscription whose Region is not the topic's at deploy.",
		Fix:   "Remove Region, or set it to the topic's region."})
	ruleInlineSubscription = declare(Rule{ID: "EC107", Name: "InlineSubscription", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-sns-subscription.html",
		Title: "No store is subscribed inside the topic's own Subscription property",
		Why:   "An inline subscription cannot set RawMessageDelivery or a redrive policy: the handler receives SNS envelopes and dead-letters every request, and the check cannot read it as a store.",
		Fix:   "Subscribe with an AWS::SNS::Subscription resource (ErasureSubscriber does)."})
)

// subscriptionFamily judges the subscription's own settings.
var subscriptionFamily = storeFamily{name: "subscription", rules: []*Rule{ruleRawDelivery, ruleSubscriptionFilter, ruleSubscriptionRegion}, check: func(a *assembly, sc *storeCheck) {
	s, sub, subF := sc.store, sc.sub, sc.subF
	if region, ok := sub.Properties["Region"].(string); ok && region != "" {
		if arn := a.Ident(sc.st, sub.Properties["TopicArn"]); strings.HasPrefix(arn, "arn:") {
			if parts := strings.Split(arn, ":"); len(parts) > 3 && parts[3] != "" && parts[3] != region {
				subF.add(ruleSubscriptionRegion, sc.subID, s.Path.Child("subscription").Child("region"), props("Region"), "%s is not the topic's region (%s): SNS rejects the subscription at deploy (the Region of a subscription is the topic's); remove Region or set it to the topic's", region, parts[3])
			}
		}
	}
	if !s.RawDelivery {
		subF.add(ruleRawDelivery, sc.subID, s.Path.Child("rawMessageDelivery"), props("RawMessageDelivery"), "off: the handler would receive an SNS envelope and dead-letter every request; set RawMessageDelivery true")
	}
	for _, k := range []string{"FilterPolicy", "FilterPolicyScope"} {
		if sub.Properties[k] != nil {
			subF.add(ruleSubscriptionFilter, sc.subID, s.Path.Child("filterPolicy"), props(k), "a filter policy drops the requests it does not match without a trace; remove it and answer NOT_APPLICABLE instead")
			break
		}
	}
}}

// checkInlineSubscriptions: a subscription written inside the erasure
// topic's own Subscription property cannot set RawMessageDelivery (SNS's
// inline subscriptions take only an endpoint and a protocol), so an SQS
// store subscribed that way gets SNS envelopes and dead-letters every
// request, and nothing else of it can be read as a store.
func (a *assembly) checkInlineSubscriptions(topics topicRefs) Findings {
	var out Findings
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			r := t.Resources[id]
			if r.Type != "AWS::SNS::Topic" || r.Properties["Subscription"] == nil || !topics.isTopic(t, id) {
				continue
			}
			f := findings{t: t}
			for i, sub := range iameval.ListOf(r.Properties["Subscription"]) {
				m, _ := sub.(map[string]any)
				proto := a.Ident(t, m["Protocol"])
				f.add(ruleInlineSubscription, id, problem.Root("Topic").Key(t.Stack+"/"+id).Child("subscription").Index(i), props("Subscription", fmt.Sprint(i)),
					"an inline subscription (protocol %q) cannot set RawMessageDelivery or a redrive policy: a store's handler would receive SNS envelopes and dead-letter every request, and the check cannot read it as a store; subscribe with an AWS::SNS::Subscription", proto)
			}
			out = append(out, f.out...)
		}
	}
	return out
}
