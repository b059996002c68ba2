// Package storeteam is a store team's CDK app as the README shows it: the
// erasure channel imported by ARN from the channel's account, stores built
// by hand (and with ErasureSubscriber), and the app-wide check installed in
// one line. Each Case is one stack: a clean store, or one broken the way a
// team might break it, with the lines its synth must fail with. The refusal
// tests synthesize these cases through the pinned CDK CLI and in-process.
package storeteam

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awspipes"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// The channel as a store team imports it: the channel stack's outputs.
const (
	Region           = "eu-west-1"
	ChannelAccount   = "111111111111"
	StoreAccount     = "222222222222"
	TopicArn         = "arn:aws:sns:" + Region + ":" + ChannelAccount + ":erasure-topic"
	ResponseQueueArn = "arn:aws:sqs:" + Region + ":" + ChannelAccount + ":erasure-responses"
	ResponseKeyArn   = "arn:aws:kms:" + Region + ":" + ChannelAccount + ":key/00000000-0000-4000-8000-000000000000"
	TopicKeyArn      = "arn:aws:kms:" + Region + ":" + ChannelAccount + ":key/00000000-0000-4000-8000-000000000001"
)

// Install is the README's one line: the app-wide check over every template.
func Install(app awscdk.App) {
	awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{TopicArns: []string{TopicArn}, TopicKeyArns: []string{TopicKeyArn}}))
}

// Shape is a hand-rolled store: every setting right unless a field changes it.
type Shape struct {
	RawOff, Filter, NoDLQ, NoHandler, Disabled, NoPartial, ReservedZero   bool
	NoKey, AWSManagedKey, L1EventSource, UnscopedKeyPolicy, NoQueuePolicy bool
	// OpenToSenders leaves out the Deny that admits only the topic's SNS
	// and the handler as senders.
	OpenToSenders                                                    bool
	FIFO, LambdaSubscription                                         bool
	NoResponseEnv, NoResponseSend, NoResponseKey                     bool
	PipeReader, PollerRole, OtherAccountReader, Nested               bool
	Visibility, Retention, DLQRetention, Timeout, MaxReceive, Window int
	// What AWS does to a request on its way, beyond the shapes above.
	QueueDelay                                  int    // the queue's DelaySeconds
	SecondReaderPassTwo                         string // a second function on the queue, with this ERASURE_PASS_TWO_DELAY_SECONDS
	EventFilter, PassTwoToDLQ, AnswersToOwnQ    bool
	EnvValue                                    string // ERASURE_PASS_TWO_DELAY_SECONDS as written (e.g. "600s")
	PassTwoParameter                            int    // ERASURE_PASS_TWO_DELAY_SECONDS from a template parameter with this Default
	DenySNS, StaleTopic, KeyOnStoreAccount      bool   // L1 policies that keep SNS out
	AliasKey, AliasKeyNoSNS, SubscriptionRegion bool
	// FunctionByName maps the event source to the function by its name, as
	// Lambda takes it (a plain string, not a reference).
	FunctionByName bool
	// PolicyStatements adds this many statements to the queue policy (SQS
	// refuses a policy of more than 20 at deploy).
	PolicyStatements int
	// SubRefs writes the queue's redrive target as !Sub "${DLQ.Arn}" and its
	// queue policy's Queues as [!Sub "${Queue}"]: the same references,
	// written another way.
	SubRefs bool
	// NestedAnswerGrant grants the handler its answers (the response queue
	// and its key) in an AWS::IAM::Policy of a nested stack, which names the
	// handler's role through a parameter.
	NestedAnswerGrant bool
	// OnAlias and OnVersion put the event source on an alias ("live") or on
	// the current version of the handler, as CDK writes them.
	OnAlias, OnVersion bool
	// Boundary gives the handler's role a permissions boundary: "all"
	// allows everything, "no-answers" everything but sending to the response
	// queue (its own queue and keys stay allowed), "outside" is a managed
	// policy of another app.
	Boundary string
}

// BucketShape is a bitmap store (ErasureSubscriber + BitmapStoreBucket) whose
// bucket a team changed past the construct: escape hatches, direct rules,
// backups and keys.
type BucketShape struct {
	DirectExpiry, VersioningSuspended, Replication, ArchiveTier, QueueKey bool
	// TopicKey puts the bucket under the imported erasure topic's key
	// (TopicKeyArn, which the app's check is given).
	TopicKey   bool
	BackupDays int // 0: no backup; -1: a plan that never deletes
}

// Case is one stack of the app and the lines its synth must fail with, each
// ".property: Type" of a line about this case's store.
type Case struct {
	Name   string
	Store  *Shape
	Bucket *BucketShape
	Want   []string
}

// Stack is the case's stack name: every line about it names this path.
func (c Case) Stack(i int) string { return fmt.Sprintf("Case%02d", i) }

// Cases are the app's stacks: clean ones first, then one broken way each.
func Cases() []Case {
	c := contract.Channel()
	T, N := c.HandlerTimeoutCapSeconds, c.MaxReceiveCount
	return []Case{
		{Name: "clean", Store: &Shape{}},
		{Name: "clean-bitmap", Bucket: &BucketShape{}},
		{Name: "clean-bitmap-bounded-backup", Bucket: &BucketShape{BackupDays: 7}},
		{Name: "raw-delivery-off", Store: &Shape{RawOff: true}, Want: []string{".rawMessageDelivery: Invalid"}},
		{Name: "filter-policy", Store: &Shape{Filter: true}, Want: []string{".filterPolicy: BreaksErasure"}},
		{Name: "unencrypted", Store: &Shape{NoKey: true}, Want: []string{".encryptionKey: Missing"}},
		{Name: "aws-managed-key", Store: &Shape{AWSManagedKey: true}, Want: []string{".encryptionKey: BreaksErasure"}},
		{Name: "visibility", Store: &Shape{Visibility: 100}, Want: []string{".visibilityTimeout: NotDerived"}},
		{Name: "visibility-below-timeout", Store: &Shape{Visibility: 30}, Want: []string{".visibilityTimeout: NotDerived", "Queue visibility timeout (30) is less than Function timeout (60)"}}, // the second line: CDK's built-in validator (E3505)
		{Name: "no-dlq", Store: &Shape{NoDLQ: true}, Want: []string{".deadLetterQueue: Missing"}},
		{Name: "max-receive", Store: &Shape{MaxReceive: N * 2}, Want: []string{".maxReceiveCount: AboveCap"}},
		{Name: "retention", Store: &Shape{Retention: 14 * 86400}, Want: []string{".retentionPeriod: NotDerived"}},
		{Name: "dlq-retention", Store: &Shape{DLQRetention: 3600}, Want: []string{".deadLetterQueue.retentionPeriod: NotDerived"}},
		{Name: "handler-timeout", Store: &Shape{Timeout: T + 1}, Want: []string{".handlerTimeout: AboveCap"}},
		{Name: "no-partial-batch", Store: &Shape{NoPartial: true}, Want: []string{".reportBatchItemFailures: Missing"}},
		{Name: "disabled-event-source", Store: &Shape{Disabled: true}, Want: []string{".eventSource: BreaksErasure"}},
		{Name: "batching-window", Store: &Shape{Window: 300}, Want: []string{".maxBatchingWindow: BreaksTiming"}},
		{Name: "reserved-zero", Store: &Shape{ReservedZero: true}, Want: []string{".reservedConcurrency: BreaksErasure"}},
		{Name: "role-cannot-decrypt", Store: &Shape{L1EventSource: true}, Want: []string{".handlerRole: Missing"}},
		{Name: "unscoped-key-policy", Store: &Shape{UnscopedKeyPolicy: true}, Want: []string{".encryptionKey: ConfusedDeputy"}},
		{Name: "no-queue-policy", Store: &Shape{NoQueuePolicy: true}, Want: []string{".queuePolicy: BreaksErasure", "Access[queue/"}}, // nor does anything keep other senders out
		{Name: "open-to-senders", Store: &Shape{OpenToSenders: true}, Want: []string{"Access[queue/"}},
		{Name: "no-handler", Store: &Shape{NoHandler: true}, Want: []string{".handler: Missing"}},
		{Name: "fifo", Store: &Shape{FIFO: true}, Want: []string{".queue: FIFO"}},
		{Name: "lambda-subscription", Store: &Shape{LambdaSubscription: true}, Want: []string{".protocol: Invalid"}},
		{Name: "no-response-queue-variable", Store: &Shape{NoResponseEnv: true}}, // finds the queue another way: its grants are what must hold
		{Name: "cannot-send-answers", Store: &Shape{NoResponseSend: true}, Want: []string{".responseQueue: Missing"}},
		{Name: "cannot-use-response-key", Store: &Shape{NoResponseKey: true}, Want: []string{".responseQueue: Missing"}},
		{Name: "pipe-reads-queue", Store: &Shape{PipeReader: true}, Want: []string{".readers: BreaksErasure", ".readers: BreaksErasure"}}, // the pipe, and its role
		{Name: "poller-role", Store: &Shape{PollerRole: true}, Want: []string{".readers: BreaksErasure"}},
		{Name: "other-account-reads", Store: &Shape{OtherAccountReader: true}, Want: []string{".readers: BreaksErasure"}},
		{Name: "nested-stack", Store: &Shape{Nested: true, RawOff: true}, Want: []string{".rawMessageDelivery: Invalid"}},
		{Name: "several", Store: &Shape{RawOff: true, NoDLQ: true, Visibility: 100}, Want: []string{".rawMessageDelivery: Invalid", ".deadLetterQueue: Missing", ".visibilityTimeout: NotDerived"}},
		{Name: "queue-delay", Store: &Shape{QueueDelay: 60}, Want: []string{".queueDelay: BreaksTiming"}},
		{Name: "second-reader", Store: &Shape{SecondReaderPassTwo: "301"}, Want: []string{".reader[SecondHandler"}}, // its pass-two delay past X
		{Name: "event-filtering", Store: &Shape{EventFilter: true}, Want: []string{".eventSource.filterCriteria: BreaksErasure"}},
		{Name: "value-the-handler-rejects", Store: &Shape{EnvValue: "600s"}, Want: []string{".environment.ERASURE_PASS_TWO_DELAY_SECONDS: Invalid"}},
		{Name: "pass-two-delay-parameter", Store: &Shape{PassTwoParameter: 400}, Want: []string{".passTwoDelay: AboveCap"}},
		{Name: "pass-two-to-the-dlq", Store: &Shape{PassTwoToDLQ: true}, Want: []string{".environment.ERASURE_QUEUE_URL: BreaksErasure"}},
		{Name: "answers-to-own-queue", Store: &Shape{AnswersToOwnQ: true}, Want: []string{".environment.ERASURE_RESPONSE_QUEUE_URL: BreaksErasure"}},
		{Name: "deny-for-sns", Store: &Shape{DenySNS: true}, Want: []string{".queuePolicy: BreaksErasure"}},
		{Name: "stale-topic", Store: &Shape{StaleTopic: true}, Want: []string{".queuePolicy: BreaksErasure"}},
		{Name: "key-on-store-account", Store: &Shape{KeyOnStoreAccount: true}, Want: []string{".encryptionKey: BreaksErasure"}},
		{Name: "clean-alias-key", Store: &Shape{AliasKey: true}},
		{Name: "alias-key-sns-cannot-use", Store: &Shape{AliasKeyNoSNS: true}, Want: []string{".encryptionKey: BreaksErasure"}},
		{Name: "subscription-region", Store: &Shape{SubscriptionRegion: true}, Want: []string{".subscription.region: Invalid"}},
		{Name: "event-source-by-function-name", Store: &Shape{FunctionByName: true}},
		{Name: "clean-sub-references", Store: &Shape{SubRefs: true}},
		{Name: "clean-nested-answer-grant", Store: &Shape{NestedAnswerGrant: true}},
		{Name: "clean-event-source-on-alias", Store: &Shape{OnAlias: true}},
		{Name: "clean-event-source-on-version", Store: &Shape{OnVersion: true}},
		{Name: "clean-permissions-boundary", Store: &Shape{Boundary: "all"}},
		{Name: "boundary-keeps-answers-out", Store: &Shape{Boundary: "no-answers"}, Want: []string{".responseQueue: Missing"}},
		{Name: "boundary-outside-the-app", Store: &Shape{Boundary: "outside"}, Want: []string{".responseQueue: UnresolvedToken"}},
		{Name: "handler-timeout-behind-alias", Store: &Shape{OnAlias: true, Timeout: T + 1}, Want: []string{".handlerTimeout: AboveCap"}},
		{Name: "queue-policy-past-sqs-quota", Store: &Shape{PolicyStatements: 20}, Want: []string{".quota: Invalid"}},
		{Name: "bucket-direct-expiry", Bucket: &BucketShape{DirectExpiry: true}, Want: []string{".bitmapBucket.lifecycleRules[Direct].expiration: BreaksErasure"}},
		{Name: "bucket-versioning-suspended", Bucket: &BucketShape{VersioningSuspended: true}, Want: []string{".bitmapBucket.versioned: Invalid"}},
		{Name: "bucket-replication", Bucket: &BucketShape{Replication: true}, Want: []string{".bitmapBucket.replication[Replica]: BreaksErasure"}},
		{Name: "bucket-archive-tier", Bucket: &BucketShape{ArchiveTier: true}, Want: []string{".bitmapBucket.intelligentTiering[Archive]: BreaksErasure"}},
		{Name: "bucket-backup-forever", Bucket: &BucketShape{BackupDays: -1}, Want: []string{".bitmapBucket.backups[bitmap-bucket]: BreaksErasure"}},
		{Name: "bucket-backup-too-long", Bucket: &BucketShape{BackupDays: 90}, Want: []string{".bitmapBucket.backups[bitmap-bucket]: AboveCap"}},
		{Name: "bucket-under-queue-key", Bucket: &BucketShape{QueueKey: true}, Want: []string{".bitmapBucket.encryptionKey: Invalid"}},
		{Name: "bucket-under-imported-topic-key", Bucket: &BucketShape{TopicKey: true}, Want: []string{".bitmapBucket.encryptionKey: Invalid"}},
	}
}

// Build adds one stack per case to app, in the store account.
func Build(app awscdk.App, cases []Case) {
	env := &awscdk.Environment{Account: jsii.String(StoreAccount), Region: jsii.String(Region)}
	for i, c := range cases {
		stack := awscdk.NewStack(app, jsii.String(c.Stack(i)), &awscdk.StackProps{Env: env})
		switch {
		case c.Store != nil:
			scope := constructs.Construct(stack)
			if c.Store.Nested {
				scope = awscdk.NewNestedStack(stack, jsii.String("Nested"), nil)
			}
			c.Store.Build(scope)
		case c.Bucket != nil:
			c.Bucket.Build(stack, fmt.Sprintf("case-%02d", i))
		}
	}
}

// imported is the channel as seen from a store stack.
func imported(scope constructs.Construct) (awssns.ITopic, awssqs.IQueue) {
	topic := awssns.Topic_FromTopicArn(scope, jsii.String("ErasureTopic"), jsii.String(TopicArn))
	rq := awssqs.Queue_FromQueueAttributes(scope, jsii.String("ErasureResponseQueue"), &awssqs.QueueAttributes{
		QueueArn: jsii.String(ResponseQueueArn), KeyArn: jsii.String(ResponseKeyArn),
	})
	return topic, rq
}

func secs(n int) awscdk.Duration { return awscdk.Duration_Seconds(jsii.Number(float64(n))) }

// HandlerProps is a Node.js handler, as a TypeScript store team would write it.
func HandlerProps() *awslambda.FunctionProps {
	return &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_NODEJS_22_X(),
		Handler: jsii.String("index.handler"),
		Code:    awslambda.Code_FromInline(jsii.String("exports.handler = async () => ({ batchItemFailures: [] })")),
	}
}

// Build builds the hand-rolled store in scope.
func (h Shape) Build(scope constructs.Construct) {
	c := contract.Channel()
	or := func(v, def int) int {
		if v != 0 {
			return v
		}
		return def
	}
	topic, responses := imported(scope)
	timeout := or(h.Timeout, c.HandlerTimeoutCapSeconds)
	key := awskms.NewKey(scope, jsii.String("Key"), &awskms.KeyProps{EnableKeyRotation: jsii.Bool(true)})
	var queueKey awskms.IKey = key
	if h.AliasKey || h.AliasKeyNoSNS {
		queueKey = awskms.NewAlias(scope, jsii.String("KeyAlias"), &awskms.AliasProps{AliasName: jsii.String("alias/store-requests"), TargetKey: key})
	}
	enc := func(p *awssqs.QueueProps) {
		switch {
		case h.NoKey:
			p.Encryption = awssqs.QueueEncryption_SQS_MANAGED
		case h.AWSManagedKey:
			p.Encryption = awssqs.QueueEncryption_KMS_MANAGED
		default:
			p.Encryption, p.EncryptionMasterKey = awssqs.QueueEncryption_KMS, queueKey
		}
		if h.FIFO {
			p.Fifo = jsii.Bool(true)
		}
	}
	qp := &awssqs.QueueProps{
		VisibilityTimeout: secs(or(h.Visibility, timing.VisibilityFor(c, timeout))),
		RetentionPeriod:   secs(or(h.Retention, c.QueueRetentionSeconds)),
	}
	enc(qp)
	if h.QueueDelay > 0 {
		qp.DeliveryDelay = secs(h.QueueDelay)
	}
	var dlq awssqs.Queue
	if !h.NoDLQ {
		dp := &awssqs.QueueProps{RetentionPeriod: secs(or(h.DLQRetention, c.QueueRetentionSeconds))}
		enc(dp)
		dlq = awssqs.NewQueue(scope, jsii.String("DLQ"), dp)
		qp.DeadLetterQueue = &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(float64(or(h.MaxReceive, c.MaxReceiveCount)))}
	}
	q := awssqs.NewQueue(scope, jsii.String("Queue"), qp)
	l1 := h.UnscopedKeyPolicy || h.NoQueuePolicy || h.AWSManagedKey || h.FIFO || h.LambdaSubscription ||
		h.StaleTopic || h.KeyOnStoreAccount || h.AliasKeyNoSNS || h.SubscriptionRegion
	if l1 {
		// An L1 subscription: the team writes the key and queue policies itself.
		sns := awsiam.NewServicePrincipal(jsii.String("sns.amazonaws.com"), nil)
		scoped := &map[string]interface{}{"ArnEquals": map[string]interface{}{"aws:SourceArn": topic.TopicArn()}}
		keyStmt := &awsiam.PolicyStatementProps{Resources: jsii.Strings("*"), Actions: jsii.Strings("kms:Decrypt", "kms:GenerateDataKey"), Principals: &[]awsiam.IPrincipal{sns}}
		if !h.UnscopedKeyPolicy {
			keyStmt.Conditions = scoped
		}
		if h.KeyOnStoreAccount { // the store's account, not the topic owner's: SNS sends the owner's
			keyStmt.Conditions = &map[string]interface{}{"StringEquals": map[string]interface{}{"aws:SourceAccount": StoreAccount}}
		}
		if !h.AWSManagedKey && !h.AliasKeyNoSNS {
			key.AddToResourcePolicy(awsiam.NewPolicyStatement(keyStmt), nil)
		}
		queueScope := scoped
		if h.StaleTopic {
			queueScope = &map[string]interface{}{"ArnEquals": map[string]interface{}{"aws:SourceArn": TopicArn + "-old"}}
		}
		if !h.NoQueuePolicy {
			q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Resources: jsii.Strings(*q.QueueArn()),
				Actions: jsii.Strings("sqs:SendMessage"), Principals: &[]awsiam.IPrincipal{sns}, Conditions: queueScope}))
		}
	} else {
		sp := &awssnssubscriptions.SqsSubscriptionProps{RawMessageDelivery: jsii.Bool(!h.RawOff)}
		if h.Filter {
			sp.FilterPolicy = &map[string]awssns.SubscriptionFilter{"type": awssns.SubscriptionFilter_StringFilter(&awssns.StringConditions{Allowlist: jsii.Strings("erasure/ERASE")})}
		}
		topic.AddSubscription(awssnssubscriptions.NewSqsSubscription(q, sp))
	}
	if h.DenySNS {
		q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Effect: awsiam.Effect_DENY, Resources: jsii.Strings(*q.QueueArn()),
			Actions: jsii.Strings("sqs:SendMessage"), Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("sns.amazonaws.com"), nil)}}))
	}
	if h.OtherAccountReader {
		q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Resources: jsii.Strings(*q.QueueArn()),
			Actions: jsii.Strings("sqs:ReceiveMessage", "sqs:DeleteMessage"), Principals: &[]awsiam.IPrincipal{awsiam.NewAccountPrincipal(jsii.String("333333333333"))}}))
	}
	// Only the topic's SNS and the handler may send: anyone else's message
	// would be a request nobody published (the constructs' own lock).
	onlySenders := func(roles ...*string) {
		if h.OpenToSenders || h.NoQueuePolicy {
			return
		}
		cond := map[string]interface{}{"aws:SourceArn": []interface{}{topic.TopicArn()}}
		if len(roles) > 0 {
			cond["aws:PrincipalArn"] = []interface{}{roles[0]}
		}
		q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Sid: jsii.String("OnlyTheTopicAndTheHandlerSend"),
			Effect: awsiam.Effect_DENY, Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()}, Resources: jsii.Strings(*q.QueueArn()),
			Actions: jsii.Strings("sqs:SendMessage"), Conditions: &map[string]interface{}{"ArnNotLike": cond}}))
	}
	if h.NoHandler {
		if l1 {
			subscribeL1(scope, topic, q, h)
		}
		onlySenders()
		return
	}
	fp := HandlerProps()
	fp.Timeout = secs(timeout)
	if !h.NoResponseEnv {
		env := map[string]*string{contract.EnvResponseQueueURL: responses.QueueUrl(), contract.EnvQueueURL: q.QueueUrl()}
		if h.PassTwoToDLQ && dlq != nil {
			env[contract.EnvQueueURL] = dlq.QueueUrl()
		}
		if h.AnswersToOwnQ {
			env[contract.EnvResponseQueueURL] = q.QueueUrl()
		}
		if h.EnvValue != "" {
			env[contract.EnvPassTwoDelaySeconds] = jsii.String(h.EnvValue)
		}
		if h.PassTwoParameter > 0 {
			p := awscdk.NewCfnParameter(awscdk.Stack_Of(scope), jsii.String("PassTwoDelay"), &awscdk.CfnParameterProps{
				Type: jsii.String("Number"), Default: jsii.Number(float64(h.PassTwoParameter))})
			env[contract.EnvPassTwoDelaySeconds] = p.ValueAsString()
		}
		fp.Environment = &env
	}
	if h.ReservedZero {
		fp.ReservedConcurrentExecutions = jsii.Number(0)
	}
	if h.FunctionByName {
		fp.FunctionName = jsii.String(*awscdk.Stack_Of(scope).StackName() + "-handler")
	}
	fn := awslambda.NewFunction(scope, jsii.String("Handler"), fp)
	if l1 {
		if h.LambdaSubscription {
			awssns.NewCfnSubscription(scope, jsii.String("Subscription"), &awssns.CfnSubscriptionProps{
				TopicArn: topic.TopicArn(), Protocol: jsii.String("lambda"), Endpoint: fn.FunctionArn()})
		} else {
			subscribeL1(scope, topic, q, h)
		}
	}
	switch {
	case h.NestedAnswerGrant:
		nested := awscdk.NewNestedStack(scope, jsii.String("AnswerGrants"), nil)
		awsiam.NewCfnPolicy(nested, jsii.String("AnswerGrant"), &awsiam.CfnPolicyProps{
			PolicyName: jsii.String("answers"), Roles: &[]*string{fn.Role().RoleName()},
			PolicyDocument: awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{
				awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings("sqs:SendMessage"), Resources: jsii.Strings(*responses.QueueArn())}),
				awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings("kms:GenerateDataKey", "kms:Decrypt"), Resources: jsii.Strings(*responses.EncryptionMasterKey().KeyArn())}),
			}}),
		})
	default:
		if !h.NoResponseSend {
			responses.Grant(fn, jsii.String("sqs:SendMessage"))
		}
		if !h.NoResponseKey {
			responses.EncryptionMasterKey().Grant(fn, jsii.String("kms:GenerateDataKey"), jsii.String("kms:Decrypt"))
		}
	}
	if !h.L1EventSource {
		q.GrantSendMessages(fn) // pass two (its grant includes kms:Decrypt)
	}
	if h.L1EventSource {
		// The mapping without CDK's grants: the role may not decrypt the queue.
		awslambda.NewCfnEventSourceMapping(scope, jsii.String("Mapping"), &awslambda.CfnEventSourceMappingProps{
			FunctionName: fn.FunctionName(), EventSourceArn: q.QueueArn(), BatchSize: jsii.Number(1),
			FunctionResponseTypes: jsii.Strings("ReportBatchItemFailures"),
		})
	} else if h.FunctionByName {
		// The function by the name it was given, a plain string.
		q.GrantConsumeMessages(fn)
		awslambda.NewCfnEventSourceMapping(scope, jsii.String("Mapping"), &awslambda.CfnEventSourceMappingProps{
			FunctionName: fp.FunctionName, EventSourceArn: q.QueueArn(), BatchSize: jsii.Number(1),
			FunctionResponseTypes: jsii.Strings("ReportBatchItemFailures"),
		})
	} else {
		esp := &awslambdaeventsources.SqsEventSourceProps{BatchSize: jsii.Number(1), ReportBatchItemFailures: jsii.Bool(!h.NoPartial), Enabled: jsii.Bool(!h.Disabled)}
		if h.Window > 0 {
			esp.MaxBatchingWindow = secs(h.Window)
		}
		if h.EventFilter {
			esp.Filters = &[]*map[string]interface{}{awslambda.FilterCriteria_Filter(&map[string]interface{}{
				"body": map[string]interface{}{"type": awslambda.FilterRule_IsEqual("erasure/ERASE")}})}
		}
		var target awslambda.IFunction = fn
		switch {
		case h.OnAlias:
			target = awslambda.NewAlias(scope, jsii.String("Live"), &awslambda.AliasProps{AliasName: jsii.String("live"), Version: fn.CurrentVersion()})
		case h.OnVersion:
			target = fn.CurrentVersion()
		}
		target.AddEventSource(awslambdaeventsources.NewSqsEventSource(q, esp))
		if h.SecondReaderPassTwo != "" {
			sp := HandlerProps()
			sp.Timeout = secs(timeout)
			sp.Environment = &map[string]*string{contract.EnvResponseQueueURL: responses.QueueUrl(), contract.EnvQueueURL: q.QueueUrl(),
				contract.EnvPassTwoDelaySeconds: jsii.String(h.SecondReaderPassTwo)}
			second := awslambda.NewFunction(scope, jsii.String("SecondHandler"), sp)
			second.AddEventSource(awslambdaeventsources.NewSqsEventSource(q, &awslambdaeventsources.SqsEventSourceProps{BatchSize: jsii.Number(1), ReportBatchItemFailures: jsii.Bool(true)}))
			responses.Grant(second, jsii.String("sqs:SendMessage"))
			responses.EncryptionMasterKey().Grant(second, jsii.String("kms:GenerateDataKey"), jsii.String("kms:Decrypt"))
			q.GrantSendMessages(second)
		}
	}
	onlySenders(fn.Role().RoleArn())
	switch h.Boundary {
	case "all", "no-answers":
		st := []awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings("*"), Resources: jsii.Strings("*")})}
		if h.Boundary == "no-answers" {
			st = []awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings("sqs:*"), Resources: jsii.Strings(*q.QueueArn())}),
				awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings("kms:*", "logs:*"), Resources: jsii.Strings("*")})}
		}
		awsiam.PermissionsBoundary_Of(fn).Apply(awsiam.NewManagedPolicy(scope, jsii.String("Boundary"), &awsiam.ManagedPolicyProps{Statements: &st}))
	case "outside":
		awsiam.PermissionsBoundary_Of(fn).Apply(awsiam.ManagedPolicy_FromManagedPolicyArn(scope, jsii.String("Boundary"), jsii.String("arn:aws:iam::"+StoreAccount+":policy/platform-boundary")))
	}
	if h.SubRefs && dlq != nil {
		q.Node().DefaultChild().(awssqs.CfnQueue).OverrideLogicalId(jsii.String("StoreQueue"))
		dlq.Node().DefaultChild().(awssqs.CfnQueue).OverrideLogicalId(jsii.String("StoreDLQ"))
		q.Node().DefaultChild().(awssqs.CfnQueue).AddPropertyOverride(jsii.String("RedrivePolicy.deadLetterTargetArn"), map[string]any{"Fn::Sub": "${StoreDLQ.Arn}"})
		if p := q.Node().TryFindChild(jsii.String("Policy")); p != nil {
			p.Node().DefaultChild().(awssqs.CfnQueuePolicy).AddPropertyOverride(jsii.String("Queues"), []any{map[string]any{"Fn::Sub": "${StoreQueue}"}})
		}
	}
	for i := 0; i < h.PolicyStatements; i++ {
		q.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Sid: jsii.String(fmt.Sprintf("NoTagging%d", i)),
			Effect: awsiam.Effect_DENY, Principals: &[]awsiam.IPrincipal{awsiam.NewAccountPrincipal(jsii.String(fmt.Sprintf("3333333333%02d", i)))},
			Resources: jsii.Strings(*q.QueueArn()), Actions: jsii.Strings("sqs:TagQueue")}))
	}
	if h.PipeReader || h.PollerRole {
		role := awsiam.NewRole(scope, jsii.String("PollerRole"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("pipes.amazonaws.com"), nil)})
		q.GrantConsumeMessages(role)
		if h.PipeReader {
			awspipes.NewCfnPipe(scope, jsii.String("Pipe"), &awspipes.CfnPipeProps{
				RoleArn: role.RoleArn(), Source: q.QueueArn(), Target: fn.FunctionArn(),
			})
		}
	}
}

func subscribeL1(scope constructs.Construct, topic awssns.ITopic, q awssqs.IQueue, h Shape) {
	p := &awssns.CfnSubscriptionProps{
		TopicArn: topic.TopicArn(), Protocol: jsii.String("sqs"), Endpoint: q.QueueArn(), RawMessageDelivery: jsii.Bool(!h.RawOff),
	}
	if h.SubscriptionRegion {
		p.Region = jsii.String("us-east-1") // not the topic's (eu-west-1)
	}
	awssns.NewCfnSubscription(scope, jsii.String("Subscription"), p)
}

// Build builds a bitmap store named name in stack, its bucket changed as b says.
func (b BucketShape) Build(stack awscdk.Stack, name string) {
	topic, responses := imported(stack)
	sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
		Name: name, Topic: topic, ResponseQueue: responses, HandlerProps: HandlerProps()})
	var props *erasure.BitmapStoreBucketProps
	if b.QueueKey {
		props = &erasure.BitmapStoreBucketProps{Key: sub.Key}
	}
	if b.TopicKey {
		props = &erasure.BitmapStoreBucketProps{Key: awskms.Key_FromKeyArn(stack, jsii.String("TopicKey"), jsii.String(TopicKeyArn))}
	}
	bucket := erasure.NewBitmapStoreBucket(stack, jsii.String("Bucket"), props)
	bucket.AttachTo(sub)
	cfn := bucket.Bucket.Node().DefaultChild().(awss3.CfnBucket)
	if b.DirectExpiry {
		// A rule added to the bucket directly: the construct cannot read it
		// back before synth; the check reads it from the template.
		bucket.Bucket.AddLifecycleRule(&awss3.LifecycleRule{Id: jsii.String("Direct"), Expiration: awscdk.Duration_Days(jsii.Number(30))})
	}
	if b.VersioningSuspended {
		cfn.AddPropertyOverride(jsii.String("VersioningConfiguration.Status"), "Suspended")
	}
	if b.Replication {
		role := awsiam.NewRole(stack, jsii.String("ReplicationRole"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("s3.amazonaws.com"), nil)})
		cfn.AddPropertyOverride(jsii.String("ReplicationConfiguration"), map[string]any{
			"Role": role.RoleArn(),
			"Rules": []any{map[string]any{"Id": "Replica", "Status": "Enabled", "Prefix": "",
				"Destination": map[string]any{"Bucket": "arn:aws:s3:::replica-bucket-in-another-region"}}},
		})
	}
	if b.ArchiveTier {
		cfn.AddPropertyOverride(jsii.String("IntelligentTieringConfigurations"), []any{map[string]any{
			"Id": "Archive", "Status": "Enabled", "Prefix": "",
			"Tierings": []any{map[string]any{"AccessTier": "ARCHIVE_ACCESS", "Days": 90}},
		}})
	}
	if b.BackupDays != 0 {
		lifecycle := &awsbackup.CfnBackupPlan_LifecycleResourceTypeProperty{}
		if b.BackupDays > 0 {
			lifecycle.DeleteAfterDays = jsii.Number(float64(b.BackupDays))
		}
		vault := awsbackup.NewCfnBackupVault(stack, jsii.String("Vault"), &awsbackup.CfnBackupVaultProps{BackupVaultName: jsii.String(name + "-vault")})
		plan := awsbackup.NewCfnBackupPlan(stack, jsii.String("Plan"), &awsbackup.CfnBackupPlanProps{
			BackupPlan: &awsbackup.CfnBackupPlan_BackupPlanResourceTypeProperty{
				BackupPlanName: jsii.String(name + "-daily"),
				BackupPlanRule: &[]interface{}{&awsbackup.CfnBackupPlan_BackupRuleResourceTypeProperty{
					RuleName: jsii.String("daily"), TargetBackupVault: vault.Ref(), ScheduleExpression: jsii.String("cron(0 3 * * ? *)"),
					Lifecycle: lifecycle,
				}},
			},
		})
		role := awsiam.NewRole(stack, jsii.String("BackupRole"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("backup.amazonaws.com"), nil)})
		awsbackup.NewCfnBackupSelection(stack, jsii.String("Selection"), &awsbackup.CfnBackupSelectionProps{
			BackupPlanId: plan.AttrBackupPlanId(),
			BackupSelection: &awsbackup.CfnBackupSelection_BackupSelectionResourceTypeProperty{
				SelectionName: jsii.String("bitmap-bucket"), IamRoleArn: role.RoleArn(), Resources: jsii.Strings(*bucket.Bucket.BucketArn()),
			},
		})
	}
}
