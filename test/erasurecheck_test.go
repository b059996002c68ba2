package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
	"github.com/linn-cloud/erasure-channel/contract"
)

// handRolled is a store wired by hand, as a team without ErasureSubscriber
// would: every setting right unless a case changes it.
type handRolled struct {
	rawOff, filter, noDLQ, noHandler, disabled, noPartial, reservedZero   bool
	noKey, awsManagedKey, l1EventSource, unscopedKeyPolicy, noQueuePolicy bool
	visibility, retention, dlqRetention, timeout, maxReceive, window      int
}

func (h handRolled) build(stack awscdk.Stack, topic awssns.ITopic, c contract.Constants) {
	or := func(v, def int) int {
		if v != 0 {
			return v
		}
		return def
	}
	timeout := or(h.timeout, c.HandlerTimeoutCapSeconds)
	key := awskms.NewKey(stack, jsii.String("Key"), &awskms.KeyProps{EnableKeyRotation: jsii.Bool(true)})
	enc := func(p *awssqs.QueueProps) {
		switch {
		case h.noKey:
			p.Encryption = awssqs.QueueEncryption_SQS_MANAGED
		case h.awsManagedKey:
			p.Encryption = awssqs.QueueEncryption_KMS_MANAGED
		default:
			p.Encryption, p.EncryptionMasterKey = awssqs.QueueEncryption_KMS, key
		}
	}
	qp := &awssqs.QueueProps{
		VisibilityTimeout: secs(or(h.visibility, c.VisibilityTimeoutMultiplier*timeout)),
		RetentionPeriod:   secs(or(h.retention, c.QueueRetentionSeconds)),
	}
	enc(qp)
	if !h.noDLQ {
		dp := &awssqs.QueueProps{RetentionPeriod: secs(or(h.dlqRetention, c.QueueRetentionSeconds))}
		enc(dp)
		qp.DeadLetterQueue = &awssqs.DeadLetterQueue{Queue: awssqs.NewQueue(stack, jsii.String("DLQ"), dp),
			MaxReceiveCount: jsii.Number(float64(or(h.maxReceive, c.MaxReceiveCount)))}
	}
	q := awssqs.NewQueue(stack, jsii.String("Queue"), qp)
	if h.unscopedKeyPolicy || h.noQueuePolicy || h.awsManagedKey {
		// An L1 subscription: the team writes the key and queue policies itself.
		sns := awsiam.NewServicePrincipal(jsii.String("sns.amazonaws.com"), nil)
		scoped := &map[string]interface{}{"ArnEquals": map[string]interface{}{"aws:SourceArn": topic.TopicArn()}}
		keyStmt := &awsiam.PolicyStatementProps{Resources: jsii.Strings("*"), Actions: jsii.Strings("kms:Decrypt", "kms:GenerateDataKey"), Principals: &[]awsiam.IPrincipal{sns}}
		if !h.unscopedKeyPolicy {
			keyStmt.Conditions = scoped
		}
		if !h.awsManagedKey {
			key.AddToResourcePolicy(awsiam.NewPolicyStatement(keyStmt), nil)
		}
		if !h.noQueuePolicy {
			q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Resources: jsii.Strings(*q.QueueArn()),
				Actions: jsii.Strings("sqs:SendMessage"), Principals: &[]awsiam.IPrincipal{sns}, Conditions: scoped}))
		}
		awssns.NewCfnSubscription(stack, jsii.String("Subscription"), &awssns.CfnSubscriptionProps{
			TopicArn: topic.TopicArn(), Protocol: jsii.String("sqs"), Endpoint: q.QueueArn(), RawMessageDelivery: jsii.Bool(!h.rawOff),
		})
	} else {
		sp := &awssnssubscriptions.SqsSubscriptionProps{RawMessageDelivery: jsii.Bool(!h.rawOff)}
		if h.filter {
			sp.FilterPolicy = &map[string]awssns.SubscriptionFilter{"type": awssns.SubscriptionFilter_StringFilter(&awssns.StringConditions{Allowlist: jsii.Strings("erasure/ERASE")})}
		}
		topic.AddSubscription(awssnssubscriptions.NewSqsSubscription(q, sp))
	}
	if h.noHandler {
		return
	}
	fp := nodeHandler()
	fp.Timeout = secs(timeout)
	if h.reservedZero {
		fp.ReservedConcurrentExecutions = jsii.Number(0)
	}
	fn := awslambda.NewFunction(stack, jsii.String("Handler"), fp)
	if h.l1EventSource {
		// The mapping without CDK's grants: the role may not decrypt the queue.
		awslambda.NewCfnEventSourceMapping(stack, jsii.String("Mapping"), &awslambda.CfnEventSourceMappingProps{
			FunctionName: fn.FunctionName(), EventSourceArn: q.QueueArn(), BatchSize: jsii.Number(1),
			FunctionResponseTypes: jsii.Strings("ReportBatchItemFailures"),
		})
		return
	}
	esp := &awslambdaeventsources.SqsEventSourceProps{BatchSize: jsii.Number(1), ReportBatchItemFailures: jsii.Bool(!h.noPartial), Enabled: jsii.Bool(!h.disabled)}
	if h.window > 0 {
		esp.MaxBatchingWindow = secs(h.window)
	}
	fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(q, esp))
}

// TestAppWideCheckRefusesHandRolledStores: each hand-rolled store broken in
// one way (one in several) yields exactly its lines; a clean hand-rolled store,
// an ErasureSubscriber store and a bitmap store yield none.
func TestAppWideCheckRefusesHandRolledStores(t *testing.T) {
	c := contract.Channel()
	T, N := c.HandlerTimeoutCapSeconds, c.MaxReceiveCount
	cases := []struct {
		name  string
		store handRolled
		want  []string // ".property: Type"
	}{
		{"clean", handRolled{}, nil},
		{"raw-delivery-off", handRolled{rawOff: true}, []string{".rawMessageDelivery: Invalid"}},
		{"filter-policy", handRolled{filter: true}, []string{".filterPolicy: BreaksErasure"}},
		{"unencrypted", handRolled{noKey: true}, []string{".encryptionKey: Missing"}},
		{"aws-managed-key", handRolled{awsManagedKey: true}, []string{".encryptionKey: BreaksErasure"}},
		{"visibility", handRolled{visibility: 100}, []string{".visibilityTimeout: NotDerived"}},
		{"no-dlq", handRolled{noDLQ: true}, []string{".deadLetterQueue: Missing"}},
		{"max-receive", handRolled{maxReceive: N + 1}, []string{".maxReceiveCount: AboveCap"}},
		{"retention", handRolled{retention: 3600}, []string{".retentionPeriod: NotDerived"}},
		{"dlq-retention", handRolled{dlqRetention: 3600}, []string{".deadLetterQueue.retentionPeriod: NotDerived"}},
		{"handler-timeout", handRolled{timeout: T + 1}, []string{".handlerTimeout: AboveCap"}},
		{"no-partial-batch", handRolled{noPartial: true}, []string{".reportBatchItemFailures: Missing"}},
		{"disabled-event-source", handRolled{disabled: true}, []string{".eventSource: BreaksErasure"}},
		{"batching-window", handRolled{window: 300}, []string{".maxBatchingWindow: BreaksTiming"}},
		{"reserved-zero", handRolled{reservedZero: true}, []string{".reservedConcurrency: BreaksErasure"}},
		{"role-cannot-decrypt", handRolled{l1EventSource: true}, []string{".handlerRole: Missing"}},
		{"unscoped-key-policy", handRolled{unscopedKeyPolicy: true}, []string{".encryptionKey: ConfusedDeputy"}},
		{"no-queue-policy", handRolled{noQueuePolicy: true}, []string{".queuePolicy: BreaksErasure"}},
		{"no-handler", handRolled{noHandler: true}, []string{".handler: Missing"}},
		{"several", handRolled{rawOff: true, noDLQ: true, visibility: 100}, []string{".rawMessageDelivery: Invalid", ".deadLetterQueue: Missing", ".visibilityTimeout: NotDerived"}},
	}
	res := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t)}, func(app awscdk.App) {
		channel := awscdk.NewStack(app, jsii.String("Channel"), nil)
		ch := erasure.NewErasureChannel(channel, jsii.String("ErasureChannel"), nil)
		for i, tc := range cases {
			tc.store.build(awscdk.NewStack(app, jsii.String(fmt.Sprintf("Hand%02d", i)), nil), ch.Topic, c)
		}
		built := awscdk.NewStack(app, jsii.String("Built"), nil)
		sub := erasure.NewErasureSubscriber(built, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
			Name: "built", Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()})
		erasure.NewBitmapStoreBucket(built, jsii.String("Bucket"), nil).AttachTo(sub)
		// A rule added to the bucket directly: the construct cannot read it
		// back before synth; the check reads it from the template.
		direct := awscdk.NewStack(app, jsii.String("Direct"), nil)
		dsub := erasure.NewErasureSubscriber(direct, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
			Name: "direct", Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()})
		bucket := erasure.NewBitmapStoreBucket(direct, jsii.String("Bucket"), nil)
		bucket.AttachTo(dsub)
		bucket.Bucket.AddLifecycleRule(&awss3.LifecycleRule{Id: jsii.String("Direct"), Expiration: awscdk.Duration_Days(jsii.Number(30))})
	})
	report := strings.Join(res.Lines, "\n") + "\n"
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			about := linesMentioning(report, fmt.Sprintf("Store[Hand%02d/", i))
			for _, w := range tc.want {
				if !strings.Contains(about, w) {
					t.Errorf("no line with %q:\n%s", w, about)
				}
			}
			if got := strings.Count(about, "\n"); got != len(tc.want) {
				t.Errorf("%d lines, want %d:\n%s", got, len(tc.want), about)
			}
		})
	}
	if about := linesMentioning(report, "ErasureSubscriber[built]"); about != "" {
		t.Errorf("an ErasureSubscriber store was refused:\n%s", about)
	}
	direct := linesMentioning(report, "ErasureSubscriber[direct]")
	if want := "ErasureSubscriber[direct].bitmapBucket.lifecycleRules[Direct].expiration: BreaksErasure"; !strings.Contains(direct, want) || strings.Count(direct, "\n") != 1 {
		t.Errorf("a rule added to the bucket directly: want exactly %q, got:\n%s", want, direct)
	}
	found := map[string]bool{}
	for _, s := range res.Stores {
		found[s.Stack] = true
	}
	for i, tc := range cases {
		if st := fmt.Sprintf("Hand%02d", i); !found[st] && tc.name != "no-handler" {
			t.Errorf("the check did not find the store of %s", tc.name)
		}
	}
	if !found["Built"] {
		t.Error("the check did not find the ErasureSubscriber store")
	}
}

// TestKeyPoliciesAreScoped: every key policy statement of the example app
// that lets a service principal use a key is scoped to this channel's
// resources (aws:SourceArn) or accounts (aws:SourceAccount).
func TestKeyPoliciesAreScoped(t *testing.T) {
	checked := 0
	for stack, tpl := range defaultApp(t) {
		for id, key := range tpl.resources("AWS::KMS::Key") {
			doc := key["Properties"].(map[string]interface{})["KeyPolicy"].(map[string]interface{})
			for _, st := range doc["Statement"].([]interface{}) {
				stm := st.(map[string]interface{})
				p, _ := stm["Principal"].(map[string]interface{})
				if _, ok := p["Service"]; !ok {
					continue
				}
				checked++
				cond := fmt.Sprint(stm["Condition"])
				if !strings.Contains(cond, "aws:SourceArn") && !strings.Contains(cond, "aws:SourceAccount") {
					t.Errorf("%s/%s lets %v use the key without a source condition: %v", stack, id, p["Service"], stm)
				}
				if p["Service"] == "sns.amazonaws.com" && !strings.Contains(cond, "ErasureChannelTopic") && !strings.Contains(cond, "erasure-topic") {
					t.Errorf("%s/%s: SNS is not limited to the erasure topic: %s", stack, id, cond)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no service-principal key statement was found: the test checks nothing")
	}
}

// TestDashboard: the example app's operator dashboard shows, per store in
// the channel's account, answers by outcome, the NOT_APPLICABLE count and the
// dead-letter queue's depth and oldest age; and the response queue's.
func TestDashboard(t *testing.T) {
	tpl, ok := defaultApp(t)["ErasureOperations"]
	if !ok {
		t.Fatal("no ErasureOperations stack")
	}
	_, d := tpl.one(t, "AWS::CloudWatch::Dashboard")
	body := fmt.Sprint(d["DashboardBody"])
	for _, want := range []string{
		contract.MetricAnswers, contract.MetricNotApplicable, contract.MetricDimensionOutcome,
		"space: answers by outcome", "bitmaps: answers by outcome", "space: dead-letter queue", "bitmaps: NOT_APPLICABLE",
		"ApproximateNumberOfMessagesVisible", "ApproximateAgeOfOldestMessage", "Response queue: depth", "Response queue: age",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard has no %q", want)
		}
	}
	for _, o := range contract.AnswerValues {
		if !strings.Contains(body, `"`+contract.MetricDimensionOutcome+`","`+o+`"`) {
			t.Errorf("no answers line for outcome %s", o)
		}
	}
	if strings.Contains(body, "ledger") {
		t.Error("the store of another account is on the channel account's dashboard")
	}
}
