package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The delivery family: whether SNS, acting for the erasure topic and for
// nothing else, can deliver to the store's queue under its key. Each is
// asked of the access evaluator.
var (
	ruleQueueEncrypted = declare(Rule{ID: "EC401", Name: "QueueEncrypted", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The store's queue is under a customer-managed KMS key",
		Why:   "Requests carry customer keys; an unencrypted queue keeps them readable to anyone with queue access.",
		Fix:   "Set KmsMasterKeyId to a customer-managed key of the store's own (ErasureSubscriber makes one)."})
	ruleAWSManagedKey = declare(Rule{ID: "EC402", Name: "CustomerManagedQueueKey", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/sns/latest/dg/sns-enable-encryption-for-topic-sqs-queue-subscriptions.html",
		Title: "The queue's key is not AWS-managed (alias/aws/sqs)",
		Why:   "SNS cannot use an AWS-managed key: every delivery is dropped.",
		Fix:   "Use a customer-managed key whose policy lets SNS, for the erasure topic, use it."})
	ruleQueueSharesTopicKey = declare(Rule{ID: "EC403", Name: "QueueKeyOfItsOwn", Type: problem.Invalid, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The store's queue does not share the topic's key",
		Why:   "A publisher's grant on the topic's key would reach the store's queue.",
		Fix:   "Give the queue a key of its own."})
	ruleSNSUsesKey = declare(Rule{ID: "EC404", Name: "SNSMayUseQueueKey", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/sns/latest/dg/sns-enable-encryption-for-topic-sqs-queue-subscriptions.html",
		Title: "SNS, acting for the erasure topic, may use the queue's key",
		Why:   "Without kms:GenerateDataKey and kms:Decrypt SNS cannot encrypt a delivery and drops it.",
		Fix:   "Allow the SNS service principal kms:GenerateDataKey and kms:Decrypt, with aws:SourceArn the topic."})
	ruleKeyConfusedDeputy = declare(Rule{ID: "EC405", Name: "QueueKeyScopedToTopic", Type: problem.ConfusedDeputy, Source: FromLockdown, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html",
		Title: "The key policy lets SNS use the key only for the erasure topic",
		Why:   "SNS acting for any account's topic could encrypt messages to the store's queue: a forged request.",
		Fix:   "Add a condition on aws:SourceArn (the erasure topic) or aws:SourceAccount."})
	ruleSNSSends = declare(Rule{ID: "EC406", Name: "SNSMaySendToQueue", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/sns/latest/dg/subscribe-sqs-queue-to-sns-topic.html",
		Title: "SNS, acting for the erasure topic, may send to the queue",
		Why:   "SNS drops every delivery the queue policy does not allow.",
		Fix:   "Allow sqs:SendMessage to the SNS service principal with aws:SourceArn the topic."})
	ruleQueueConfusedDeputy = declare(Rule{ID: "EC407", Name: "QueuePolicyScopedToTopic", Type: problem.ConfusedDeputy, Source: FromLockdown, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html",
		Title: "The queue policy lets SNS send only for the erasure topic",
		Why:   "Any account's topic could then deliver to the store's queue: a request nobody published would be erased.",
		Fix:   "Add a condition on aws:SourceArn (the erasure topic)."})
)

// deliveryFamily judges the queue's key and policy.
var deliveryFamily = storeFamily{name: "delivery", rules: []*Rule{ruleQueueEncrypted, ruleAWSManagedKey, ruleQueueSharesTopicKey, ruleSNSUsesKey, ruleKeyConfusedDeputy, ruleSNSSends, ruleQueueConfusedDeputy},
	check: func(a *assembly, sc *storeCheck) {
		a.checkQueueKey(sc, sc.st, sc.sub)
		a.checkQueuePolicy(sc, sc.st, sc.sub)
	}}

// checkQueueKey: the queue is under a customer-managed KMS key that is not
// the topic's, SNS acting for the topic may use it, and SNS acting for a
// topic of another account may not: both asked of the evaluator.
func (a *assembly) checkQueueKey(sc *storeCheck, st *template, sub resource) {
	t, s, f := sc.t, sc.store, &sc.f
	keyRef := sc.queue.Properties["KmsMasterKeyId"]
	if keyRef == nil {
		f.add(ruleQueueEncrypted, s.QueueID, s.Path.Child("encryptionKey"), props("KmsMasterKeyId"), "the queue is not under a KMS key: it holds customer keys; encrypt it with a customer-managed key of the store's own")
		return
	}
	if ks := a.Ident(t, keyRef); strings.HasPrefix(ks, "alias/aws/") || strings.Contains(ks, ":alias/aws/") {
		f.add(ruleAWSManagedKey, s.QueueID, s.Path.Child("encryptionKey"), props("KmsMasterKeyId"), "%s is AWS-managed: SNS cannot use it, so every delivery is dropped; use a customer-managed key", ks)
		return
	}
	if topicKey := a.Ident(st, cfnmodel.Dig(a.topicResource(st, sub.Properties["TopicArn"]), "KmsMasterKeyId")); topicKey != "" && topicKey == a.KeyIdent(t, keyRef) {
		f.add(ruleQueueSharesTopicKey, s.QueueID, s.Path.Child("encryptionKey"), props("KmsMasterKeyId"), "the queue shares the topic's key: a publisher's key grant would reach the store's queue; give the queue a key of its own")
	}
	key := a.keyTarget(t, keyRef, "sqs")
	if key == nil {
		return // an imported key: its policy is not in this assembly
	}
	sns := a.topicSNS(st, sub)
	for _, act := range []string{"kms:GenerateDataKey", "kms:Decrypt"} {
		if v := a.context().Decide(sns, act, key); v.Decision == iameval.Denied {
			f.add(ruleSNSUsesKey, key.ID, s.Path.Child("encryptionKey"), props("KeyPolicy"), "SNS acting for the erasure topic may not %s with the key (%s): SNS cannot encrypt deliveries and drops them; allow %s, scoped with aws:SourceArn of the topic", act, v.Because, iameval.SNSServicePrincipal(sns.Region, key.Region))
			return
		}
	}
	if v := a.context().Decide(accessmodel.OtherTopicSNS(sns, st.Account, key.Policy), "kms:GenerateDataKey", key); v.Decision == iameval.Allowed {
		f.add(ruleKeyConfusedDeputy, key.ID, s.Path.Child("encryptionKey"), props("KeyPolicy"), "the key policy lets SNS use the key for a topic of any account (%s); add a condition on aws:SourceArn (the erasure topic) or aws:SourceAccount", v.Because)
	}
}

// topicResource is the properties of the topic a subscription names, when
// the topic is a resource of the assembly.
func (a *assembly) topicResource(t *template, topicArn any) map[string]any {
	if ref, ok := a.ResourceOf(a.Ident(t, topicArn)); ok {
		tt, id := ref.Template, ref.ID
		return tt.Resources[id].Properties
	}
	return nil
}

// topicSNS is SNS acting for the topic a subscription names: aws:SourceArn
// the topic (its ARN, or its reference in this app), aws:SourceAccount its
// owner, from the topic's region.
func (a *assembly) topicSNS(t *template, sub resource) *accessmodel.Principal {
	v := sub.Properties["TopicArn"]
	id := a.Pattern(t, v)
	p := accessmodel.SNSFor(accessmodel.ErasureTopicSNS, accessmodel.ClassTopicSNS, []string{id}, iameval.ARNAccount(id), iameval.ARNRegion(id))
	if ref, ok := a.ResourceOf(id); ok {
		tt, tid := ref.Template, ref.ID
		p.Aliases, p.Account, p.Region = cfnmodel.Aliases(tt, tid), tt.Account, tt.Region
	} else if tt, tid, ok := a.ByAlias(id, "AWS::SNS::Topic"); ok {
		p.Aliases, p.Account, p.Region = cfnmodel.Aliases(tt, tid), tt.Account, tt.Region
	}
	return p
}

// checkQueuePolicy: SNS acting for the topic may send to the queue, and SNS
// acting for a topic of another account may not: both asked of the evaluator.
func (a *assembly) checkQueuePolicy(sc *storeCheck, st *template, sub resource) {
	s := sc.store
	queue := a.policyTarget(sc.t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues")
	sns := a.topicSNS(st, sub)
	if v := a.context().Decide(sns, "sqs:SendMessage", queue); v.Decision == iameval.Denied {
		sc.f.add(ruleSNSSends, s.QueueID, s.Path.Child("queuePolicy"), nil, "SNS acting for the erasure topic may not send to the queue (%s): SNS drops every delivery; allow sqs:SendMessage to %s with aws:SourceArn of the topic", v.Because, iameval.SNSServicePrincipal(sns.Region, queue.Region))
		return
	}
	if v := a.context().Decide(accessmodel.OtherTopicSNS(sns, st.Account, queue.Policy), "sqs:SendMessage", queue); v.Decision == iameval.Allowed {
		sc.f.add(ruleQueueConfusedDeputy, s.QueueID, s.Path.Child("queuePolicy"), nil, "the queue policy lets SNS send for a topic of any account (%s); add a condition on aws:SourceArn (the erasure topic)", v.Because)
	}
}
