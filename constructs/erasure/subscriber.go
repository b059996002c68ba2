// Package erasure holds the CDK constructs of the erasure channel:
// ErasureChannel, deployed once by the account-service team, and
// ErasureSubscriber, added by each store team to its own stack. Every number
// comes from the contract's channel constants; every cap is refused at synth.
package erasure

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// ErasureSubscriberProps configures one store on the channel. Only Name,
// Topic, ResponseQueue and one of Handler or HandlerProps are required; every
// timing setting defaults to the caps' safe value (timing.Defaults).
type ErasureSubscriberProps struct {
	// Name is the store's ErasureSubscriber name: 1 to 64 of a-z, 0-9 and -,
	// starting with a letter. It is the subscriber of every answer.
	Name string
	// Topic is the erasure topic; imported by ARN for a store in another account.
	Topic awssns.ITopic
	// ResponseQueue is the channel's response queue. Import it with
	// awssqs.Queue_FromQueueAttributes and its KeyArn so the handler is granted
	// the key as well.
	ResponseQueue awssqs.IQueue

	// Handler is the store's function (its Timeout is the handler timeout), or
	// HandlerProps the props to build one with; give exactly one.
	Handler      awslambda.Function
	HandlerProps *awslambda.FunctionProps

	// HandlerTimeout: at most T. Default T. With Handler, it must equal the
	// function's timeout (or is taken from it).
	HandlerTimeout awscdk.Duration
	// VisibilityTimeout: if given, exactly visibilityTimeoutMultiplier x
	// HandlerTimeout. Default: derived.
	VisibilityTimeout awscdk.Duration
	// MaxReceiveCount: at most N. Default N.
	MaxReceiveCount *float64
	// PassTwoDelay: at most X (and SQS's delay limit). Default X.
	PassTwoDelay awscdk.Duration
	// BatchTimeout: at most b and at most HandlerTimeout. Default b.
	BatchTimeout awscdk.Duration
	// BatchSize: records per invocation. Default 1.
	BatchSize *float64
	// MaxBatchingWindow: refused if it lets the worst case pass R. Default none.
	MaxBatchingWindow awscdk.Duration
	// RetentionPeriod: if given, exactly the channel retention.
	RetentionPeriod awscdk.Duration

	// Administrators are the ARN patterns of the principals that deploy and
	// operate the store: they alone may change its queues' and key's policies
	// or attributes, delete them, or read its dead letters. Default: the
	// CloudFormation execution role of CDK's default bootstrap in the store's
	// account (channelpolicy.DefaultAdministrators).
	Administrators []string

	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// ErasureSubscriber is one store on the channel: its queue and dead-letter
// queue under its own KMS key, the raw-delivery SNS subscription, the handler
// wired to the queue with partial batch failures, and the alarms an operator
// needs.
type ErasureSubscriber struct {
	constructs.Construct

	// Name is the subscriber name.
	Name string
	// Settings are the timing settings the queue and handler were built with.
	Settings timing.Store
	// Key encrypts Queue and DeadLetterQueue; it is never the topic's key.
	Key awskms.Key
	// Queue receives the erasure topic's messages as raw bodies.
	Queue awssqs.Queue
	// DeadLetterQueue receives a message after MaxReceiveCount receives.
	DeadLetterQueue awssqs.Queue
	// Function is the store's handler (nil if it could not be built).
	Function awslambda.Function
	// HandlerRoleID is the unique id (RoleId) of the handler's role, which
	// proves the store's answers and its pass-two markers; nil when there is
	// no handler or its role is imported.
	HandlerRoleID *string
	// LogGroup is the handler's log group when the construct built the handler.
	LogGroup awslogs.LogGroup
	// DeadLetterAlarm fires when the dead-letter queue holds any message.
	DeadLetterAlarm awscloudwatch.Alarm
	// OldestMessageAlarm fires when a message has waited longer than one
	// request's worst case on this store.
	OldestMessageAlarm awscloudwatch.Alarm
}

// NewErasureSubscriber adds a store to the channel. Props that break a cap do
// not fail here: every problem is collected and synth fails with all of them.
func NewErasureSubscriber(scope constructs.Construct, id *string, props *ErasureSubscriberProps) *ErasureSubscriber {
	if props == nil {
		props = &ErasureSubscriberProps{}
	}
	c := constantsOr(props.Constants)
	path := "ErasureSubscriber[" + props.Name + "]"
	settings, problems := resolveSubscriber(props, c, path)
	s := &ErasureSubscriber{Name: props.Name, Settings: settings}

	// Build with the checked settings when they hold, else with the safe
	// defaults, so that CDK's own range checks never pre-empt the full list.
	build := settings
	if len(problems) > 0 {
		build = timing.Defaults(c)
	}
	sec := seconds

	// The store is built in two calls to the jsii kernel (handover.go): the
	// first creates the construct itself, its key, queues and (when the
	// construct makes them) the handler's log group and role, and reads what
	// the second needs; the second creates the function and wires
	// everything, in order.
	var first batch
	constructID := "" // a nil id is refused by the kernel as an empty one is
	if id != nil {
		constructID = *id
	}
	thisAt := first.scope(scope, constructID)
	self := first.result(thisAt) // the construct, until the batch has made it
	envAt := first.add(map[string]any{"op": "stackEnv", "scope": self})
	keyAt := first.key(self, "Key", "Erasure queue and dead-letter queue of subscriber "+props.Name)
	pair := queuePair{
		key: first.result(keyAt), retentionSeconds: build.RetentionSeconds, maxReceiveCount: build.MaxReceiveCount,
		visibilitySeconds: build.VisibilityTimeoutSeconds,
	}
	if contract.IsSubscriberName(props.Name) {
		// The name the channel's topic admits a subscription for.
		pair.queueName = contract.QueueName(props.Name)
	}
	queueAt, dlqAt := pair.add(&first, self)
	queueAttrs := first.read(first.result(queueAt), "queueUrl", "queueArn")
	dlqAttrs := first.read(first.result(dlqAt), "queueArn")
	var fp awslambda.FunctionProps
	logsAt, roleAt, roleAttrs := -1, -1, -1
	if props.HandlerProps != nil && props.Handler == nil {
		fp = *props.HandlerProps
		if fp.Role == nil && fp.LogGroup == nil {
			// Least privilege instead of AWSLambdaBasicExecutionRole: the
			// handler may write to its own log group and nothing else.
			logsAt = first.construct(self, "aws-logs", "LogGroup", "HandlerLogs", map[string]any{"retention": awslogs.RetentionDays_ONE_MONTH})
			rp := map[string]any{"assumedBy": lambdaPrincipal(), "description": "Erasure handler of subscriber " + props.Name}
			if contract.IsSubscriberName(props.Name) {
				// The name the channel's roster admits (contract.HandlerName).
				rp["roleName"] = contract.HandlerName(props.Name)
				// The path the channel's shared policies admit once for
				// every store (contract.HandlerRolePath).
				rp["path"] = contract.HandlerRolePath
			}
			roleAt = first.construct(self, "aws-iam", "Role", "HandlerRole", rp)
			roleAttrs = first.read(first.result(roleAt), "roleArn", "roleId")
		}
	}
	made := first.run()
	s.Construct = made[thisAt].(constructs.Construct)
	this := s.Construct
	e := made[envAt].(map[string]any)
	seedEnv(this, stackEnv{account: e["account"].(string), region: e["region"].(string)})
	s.Key = made[keyAt].(awskms.Key)
	s.Queue, s.DeadLetterQueue = made[queueAt].(awssqs.Queue), made[dlqAt].(awssqs.Queue)
	sameStack(s.Queue, this)
	sameStack(s.DeadLetterQueue, this)
	queueArns.Store(s.Queue, made[queueAttrs].(map[string]any)["queueArn"].(string))
	queueArns.Store(s.DeadLetterQueue, made[dlqAttrs].(map[string]any)["queueArn"].(string))
	queueURLOf := made[queueAttrs].(map[string]any)["queueUrl"].(string)

	// What the store's wiring hands the kernel as data, in order, in one
	// call.
	var b batch
	if props.Topic != nil {
		if restrictsSqsDecryption(props.Topic) && snsPrincipalFor(props.Topic, s.Queue) == globalSNSPrincipal {
			// CDK's own subscription scopes both statements to the topic under
			// this flag, in far fewer jsii round trips than a Go callback.
			b.subscribe(props.Topic, s.Queue)
		} else {
			props.Topic.AddSubscription(&scopedSqsSubscription{queue: s.Queue, key: s.Key})
		}
	}

	env := map[string]*string{
		contract.EnvSubscriber:          jsii.String(props.Name),
		contract.EnvQueueURL:            jsii.String(queueURLOf),
		contract.EnvPassTwoDelaySeconds: jsii.String(strconv.Itoa(build.PassTwoDelaySeconds)),
		contract.EnvBatchTimeoutSeconds: jsii.String(strconv.Itoa(build.BatchTimeoutSeconds)),
	}
	if props.ResponseQueue != nil {
		env[contract.EnvResponseQueueURL] = queueURL(props.ResponseQueue)
	}
	var ownRole awsiam.Role // the handler's role when the construct made it
	var ownRoleArn, ownRoleID string
	var fn any       // the handler: its proxy, or the batch's result
	functionAt := -1 // where the batch creates the handler
	switch {
	case props.Handler != nil && props.HandlerProps == nil:
		s.Function = props.Handler
		fn = s.Function
		for _, k := range slices.Sorted(maps.Keys(env)) {
			b.environment(s.Function, k, env[k])
		}
	case props.HandlerProps != nil && props.Handler == nil:
		merged := map[string]*string{}
		if fp.Environment != nil {
			for k, v := range *fp.Environment {
				merged[k] = v
			}
		}
		for k, v := range env {
			merged[k] = v
		}
		fp.Environment = &merged
		fp.Timeout = sec(build.HandlerTimeoutSeconds)
		if fp.FunctionName == nil && contract.IsSubscriberName(props.Name) {
			// SQS names an answer's sender "<role id>:<function name>": the
			// response reader's roster recognises the store by it.
			fp.FunctionName = jsii.String(contract.HandlerName(props.Name))
		}
		if fp.MemorySize == nil {
			fp.MemorySize = jsii.Number(defaultHandlerMemoryMB)
		}
		if roleAt >= 0 {
			ownRole = made[roleAt].(awsiam.Role)
			s.LogGroup = made[logsAt].(awslogs.LogGroup)
			attrs := made[roleAttrs].(map[string]any)
			ownRoleArn, ownRoleID = attrs["roleArn"].(string), attrs["roleId"].(string)
			// logs:CreateLogStream and logs:PutLogEvents on this group
			b.grantWrite(s.LogGroup, ownRole)
			fp.Role, fp.LogGroup = ownRole, s.LogGroup
		}
		functionAt = b.construct(this, "aws-lambda", "Function", "Handler", &fp)
		fn = b.result(functionAt)
	}
	var role awsiam.IRole // the handler's role, nil for none
	roleArn := ownRoleArn
	switch {
	case ownRole != nil:
		role = ownRole
	case functionAt >= 0 && fp.Role != nil:
		role = fp.Role
	case functionAt >= 0:
		// CDK makes the function a role of its own: create it now to ask.
		done := b.run()
		s.Function = done[functionAt].(awslambda.Function)
		fn, functionAt = s.Function, -1
		role = s.Function.Role()
	case s.Function != nil:
		role = s.Function.Role()
	}
	if role != nil && roleArn == "" {
		roleArn = *role.RoleArn()
	}
	if fn != nil {
		var window any
		if build.MaxBatchingWindowSeconds > 0 {
			window = sec(build.MaxBatchingWindowSeconds)
		}
		b.eventSource(fn, s.Queue, build.BatchSize, window)
		if props.ResponseQueue != nil {
			grantSend(&b, props.ResponseQueue, queueKey(props.ResponseQueue), fn)
		}
		grantSend(&b, s.Queue, s.Key, fn) // pass two re-sends to the store's own queue
		if role == nil {
			b.add(lockQueueForAdministrators(s, props).op())
		} else {
			s.lockDown(&b, roleArn, props)
			roleID := jsii.String(ownRoleID)
			if ownRole == nil {
				roleID = roleIDOf(role)
			}
			if roleID != nil {
				s.HandlerRoleID = roleID
				// Pass two is proven by identity: the handler accepts its
				// marker only from "<this role id>:<its function name>".
				b.environment(fn, contract.EnvHandlerRoleID, roleID)
				// The account service authenticates the store's answers by
				// this role id: cdk deploy --outputs-file hands it to
				// erasurectl watch --role-ids-from.
				b.output(this, "HandlerRoleId", "Erasure store "+props.Name+": <store>=<its handler role's unique id>, for the account service's roster",
					contract.RoleIDOutputPrefix+contract.NameDigest(props.Name), props.Name+"=", *roleID)
			} else {
				problems.Add(path+".handler.role", timing.Missing, "the handler's role is imported, so its unique id (RoleId) is unknown and the handler cannot prove a pass-two marker its own: give the handler a role built in this app")
			}
		}
	}
	if fn == nil {
		b.add(lockQueueForAdministrators(s, props).op())
	}

	deadLetters := b.deadLetterAlarm(this, "DeadLetterAlarm", s.DeadLetterQueue,
		"Erasure requests for subscriber "+props.Name+" reached the dead-letter queue: they were not handled and need an operator.")
	oldest := b.oldestMessageAlarm(this, "OldestMessageAlarm", s.Queue, build.WorstCaseSeconds(),
		fmt.Sprintf("A message on subscriber %s's erasure queue is older than the store's worst case of %d s: the handler is not consuming.", props.Name, build.WorstCaseSeconds()))

	// Each suppression on the resources it concerns only: cdk-nag writes its
	// reasons into every resource it is applied to, and a subscriber-wide
	// suppression quintupled each store's template.
	b.add(alarmActionsSuppression(b.result(deadLetters), b.result(oldest)))
	if fn != nil {
		handler := []any{fn} // a function's own default role is its child
		if ownRole != nil {
			handler = append(handler, ownRole, s.LogGroup)
		}
		b.add(suppression(functionReasons(reasonLambdaDLQ), handler...))
	}
	// The subscription is the queue's child; the queue itself has a redrive policy.
	b.add(suppression(map[string]string{"Serverless-SNSRedrivePolicy": reasonSNSRedrive, "Serverless-SQSRedrivePolicy": reasonDLQRedrive}, s.Queue, s.DeadLetterQueue))
	results := b.run()
	if functionAt >= 0 {
		s.Function = results[functionAt].(awslambda.Function)
	}
	s.DeadLetterAlarm = results[deadLetters].(awscloudwatch.Alarm)
	s.OldestMessageAlarm = results[oldest].(awscloudwatch.Alarm)
	if len(problems) > 0 {
		this.Node().AddValidation(&validation{problems: problems})
	}
	return s
}

// defaultHandlerMemoryMB is the handler's memory when HandlerProps sets none:
// above Lambda's 128 MB default, which also buys CPU for a batch's validation
// and a store's destructive call.
const defaultHandlerMemoryMB = 256

// scopedSqsSubscription subscribes a queue to the topic with raw delivery,
// as awssnssubscriptions.SqsSubscription does (same subscriber scope and id,
// so logical ids stay stable), but scopes SNS's use of the queue's key to
// this topic (aws:SourceArn) whatever the app's feature flags say: SNS may
// use the key only on behalf of the erasure topic, never as a confused deputy.
type scopedSqsSubscription struct {
	queue awssqs.Queue
	key   awskms.IKey
}

// Bind implements awssns.ITopicSubscription.
func (s *scopedSqsSubscription) Bind(topic awssns.ITopic) *awssns.TopicSubscriptionConfig {
	sns := awsiam.NewServicePrincipal(jsii.String(snsPrincipalFor(topic, s.queue)), nil)
	fromTopic := &map[string]interface{}{"ArnEquals": map[string]interface{}{"aws:SourceArn": topicArnOf(topic)}}
	added := s.queue.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Resources: jsii.Strings(*s.queue.QueueArn()), Actions: jsii.Strings("sqs:SendMessage"),
		Principals: &[]awsiam.IPrincipal{sns}, Conditions: fromTopic,
	}))
	s.key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Resources: jsii.Strings("*"), Actions: jsii.Strings("kms:Decrypt", "kms:GenerateDataKey"),
		Principals: &[]awsiam.IPrincipal{sns}, Conditions: fromTopic,
	}), nil)
	// Like SqsSubscription: a topic imported by ARN names its region, so a
	// store in another region subscribes across regions.
	var region *string
	if arn := topicArnOf(topic); !isToken(arn) {
		if parts := strings.Split(*arn, ":"); len(parts) > 3 && parts[3] != "" {
			region = jsii.String(parts[3])
		}
	}
	return &awssns.TopicSubscriptionConfig{
		Region:                 region,
		SubscriberScope:        s.queue,
		SubscriberId:           awscdk.Names_NodeUniqueId(topic.Node()),
		Endpoint:               s.queue.QueueArn(),
		Protocol:               awssns.SubscriptionProtocol_SQS,
		RawMessageDelivery:     jsii.Bool(true),
		SubscriptionDependency: added.PolicyDependable,
	}
}

// globalSNSPrincipal is the principal SNS presents between default regions.
const globalSNSPrincipal = "sns.amazonaws.com"

// snsPrincipalFor is the principal SNS presents to the queue when it
// delivers from topic: the regional one across an opt-in region (Amazon SNS
// developer guide, cross-region delivery), as iameval decides it. A region
// that is a token (an environment-agnostic stack) is taken to be a default
// one, where the global principal is right.
func snsPrincipalFor(topic awssns.ITopic, queue awssqs.IQueue) string {
	topicRegion := ""
	if arn := topicArnOf(topic); !isToken(arn) {
		topicRegion = iameval.ARNRegion(*arn)
	} else if r := envOf(topic).region; !isToken(&r) {
		topicRegion = r
	}
	queueRegion := ""
	if r := envOf(queue).region; !isToken(&r) {
		queueRegion = r
	}
	return iameval.SNSServicePrincipal(topicRegion, queueRegion)
}

// lockDown locks the store's queues and key to their path: only
// administrators act off the data path; only the erasure topic (through SNS)
// and the handler (pass two) send; only the handler consumes, reads the
// queue's attributes and uses the key besides SNS; nobody sends to the
// dead-letter queue, and only administrators read it.
func (s *ErasureSubscriber) lockDown(b *batch, roleArn string, props *ErasureSubscriberProps) {
	admins := administratorsOr(s.Construct, props.Administrators)
	var topics []string
	if props.Topic != nil {
		topics = []string{*topicArnOf(props.Topic)}
	}
	q := lockedQueue(s.Queue)
	q.administeredBy(channelpolicy.Queue, admins, channelpolicy.QueueData)
	onlyHandlerConsumes(q, roleArn)
	q.onlyFrom("OnlyTheTopicAndTheHandlerSend", []string{"sqs:SendMessage"}, []string{roleArn}, topics)
	q.onlyFrom("OnlyTheHandlerAndAdministratorsReadAttributes", []string{"sqs:GetQueueAttributes"}, append([]string{roleArn}, admins...), nil)

	dlq := lockedQueue(s.DeadLetterQueue)
	consumeOrRead := append(append([]string{}, channelpolicy.QueueConsume...), "sqs:GetQueueAttributes")
	dlq.administeredBy(channelpolicy.DeadLetters, admins, consumeOrRead)
	dlq.noOne("NoOneSendsDeadLetters", []string{"sqs:SendMessage"})
	dlq.onlyFrom("OnlyAdministratorsConsume", consumeOrRead, admins, nil)

	k := lockedKey(s.Key)
	k.administeredBy(channelpolicy.QueueKey, admins, channelpolicy.KeyUse)
	k.onlyFrom("OnlyTheDataPathUsesTheKey", channelpolicy.KeyUse, []string{roleArn}, topics)
	b.add(q.op())
	b.add(dlq.op())
	b.add(k.op())
}

// lockQueueForAdministrators locks a store's queue that has no handler
// role of its own to lock it to: only administrators act off its data path.
func lockQueueForAdministrators(s *ErasureSubscriber, props *ErasureSubscriberProps) *locked {
	q := lockedQueue(s.Queue)
	q.administeredBy(channelpolicy.Queue, administratorsOr(s.Construct, props.Administrators), channelpolicy.QueueData)
	return q
}

// roleIDOf is the unique id (RoleId) of a handler's role the subscriber
// did not build: the attribute of its CfnRole when it is one of this app,
// nil for an imported role.
func roleIDOf(role awsiam.IRole) *string {
	if cfn, ok := role.Node().DefaultChild().(awsiam.CfnRole); ok && cfn != nil {
		return cfn.AttrRoleId()
	}
	return nil
}

// onlyHandlerConsumes denies taking requests off the store's queue to every
// principal but the handler's role (the event source polls with it), in any
// account, whatever its own policies allow: a request read by anyone else is
// a request the store never erases. Sending (pass two, SNS) and the
// dead-letter queue, which operators redrive, are not affected.
func onlyHandlerConsumes(q *locked, roleArn string) {
	q.deny("OnlyTheHandlerConsumes", channelpolicy.QueueConsume, nil, map[string]any{"ArnNotEquals": map[string]any{"aws:PrincipalArn": roleArn}})
}

// grantSend lets grantee send to q and nothing more: sqs:SendMessage, and on
// an encrypted queue the two key actions SendMessage needs (CDK's
// GrantSendMessages adds kms:Encrypt, kms:ReEncrypt* and kms:GenerateDataKey*).
func grantSend(b *batch, q awssqs.IQueue, k awskms.IKey, grantee any) {
	b.grant(q, grantee, "sqs:SendMessage")
	if k != nil {
		b.grant(k, grantee, "kms:GenerateDataKey", "kms:Decrypt")
	}
}

// MetricNotApplicable is the ErasureNotApplicable metric the handler publishes
// for this subscriber: a count of NOT_APPLICABLE answers.
func (s *ErasureSubscriber) MetricNotApplicable(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	p := awscloudwatch.MetricProps{
		Namespace:     jsii.String(contract.MetricNamespace),
		MetricName:    jsii.String(contract.MetricNotApplicable),
		DimensionsMap: &map[string]*string{contract.MetricDimensionSubscriber: jsii.String(s.Name)},
		Statistic:     jsii.String("Sum"),
		Period:        minutes(5),
	}
	if opts != nil {
		if opts.Period != nil {
			p.Period = opts.Period
		}
		if opts.Statistic != nil {
			p.Statistic = opts.Statistic
		}
		p.Label, p.Color, p.Unit, p.Account, p.Region = opts.Label, opts.Color, opts.Unit, opts.Account, opts.Region
	}
	return awscloudwatch.NewMetric(&p)
}

// AddNotApplicableAlarm alarms when the store answers NOT_APPLICABLE at least
// threshold times in one 5-minute period: the hook for a team that expects
// its store to hold data of every kind it is asked about.
func (s *ErasureSubscriber) AddNotApplicableAlarm(id string, threshold float64) awscloudwatch.Alarm {
	var b batch
	at := b.metricAlarm(s.Construct, id, "Subscriber "+s.Name+" answered NOT_APPLICABLE: check the claim that it holds nothing of that kind.",
		s.MetricNotApplicable(nil), threshold, awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
	b.add(alarmActionsSuppression(b.result(at)))
	return b.run()[at].(awscloudwatch.Alarm)
}

// resolveSubscriber turns props into timing settings and lists every problem.
func resolveSubscriber(p *ErasureSubscriberProps, c contract.Constants, path string) (timing.Store, timing.Problems) {
	var l timing.Problems
	s := timing.Defaults(c)
	field := func(name string) string { return path + "." + name }

	if !contract.IsSubscriberName(p.Name) {
		l.Add(field("name"), timing.Invalid, "%q is not a subscriber name: 1 to 64 of a-z, 0-9 and -, starting with a letter, not ending with -", p.Name)
	}
	if p.Topic == nil {
		l.Add(field("topic"), timing.Invalid, "the erasure topic is required")
	} else if topicIsFIFO(p.Topic) {
		l.Add(field("topic"), timing.FIFO, "a FIFO topic cannot deliver to a standard queue, and pass two needs per-message delay")
	}
	if p.ResponseQueue == nil {
		l.Add(field("responseQueue"), timing.Invalid, "the response queue is required")
	} else if queueIsFIFO(p.ResponseQueue) {
		l.Add(field("responseQueue"), timing.FIFO, "the channel's response queue is a standard queue")
	} else if queueKey(p.ResponseQueue) == nil && p.ResponseQueue.Node().DefaultChild() == nil {
		l.Add(field("responseQueue"), timing.Missing, "imported without its key, so the handler cannot be granted the key every answer is encrypted with; "+
			"import it with awssqs.Queue_FromQueueAttributes(scope, id, &awssqs.QueueAttributes{QueueArn: <ErasureResponseQueueArn>, KeyArn: <ErasureResponseKeyArn>}) (the channel stack's outputs)")
	}
	if (p.Handler == nil) == (p.HandlerProps == nil) {
		l.Add(field("handler"), timing.Invalid, "give exactly one of Handler and HandlerProps")
	}

	timeoutOK := true
	if p.HandlerTimeout != nil {
		s.HandlerTimeoutSeconds, timeoutOK = wholeSeconds(&l, field("handlerTimeout"), p.HandlerTimeout)
	}
	if p.Handler != nil {
		fnSeconds, ok := 3, true // Lambda's default timeout
		if t := p.Handler.Timeout(); t != nil {
			fnSeconds, ok = wholeSeconds(&l, field("handler.timeout"), t)
		}
		switch {
		case !ok:
			timeoutOK = false
		case p.HandlerTimeout == nil:
			s.HandlerTimeoutSeconds = fnSeconds
		case timeoutOK && fnSeconds != s.HandlerTimeoutSeconds:
			l.Add(field("handlerTimeout"), timing.NotDerived, "%d s differs from the handler function's timeout of %d s", s.HandlerTimeoutSeconds, fnSeconds)
		}
	}
	if p.HandlerProps != nil && p.HandlerProps.Timeout != nil {
		l.Add(field("handlerProps.timeout"), timing.Invalid, "set HandlerTimeout, not HandlerProps.Timeout: the construct derives the queue from it")
	}
	s.VisibilityTimeoutSeconds = c.VisibilityTimeoutMultiplier * s.HandlerTimeoutSeconds
	if p.VisibilityTimeout != nil {
		if v, ok := wholeSeconds(&l, field("visibilityTimeout"), p.VisibilityTimeout); ok && timeoutOK {
			s.VisibilityTimeoutSeconds = v
		}
	}
	overrideNumber(&l, field("maxReceiveCount"), p.MaxReceiveCount, &s.MaxReceiveCount)
	overrideSeconds(&l, field("passTwoDelay"), p.PassTwoDelay, &s.PassTwoDelaySeconds)
	if p.BatchTimeout != nil {
		if v, ok := wholeSeconds(&l, field("batchTimeout"), p.BatchTimeout); ok {
			s.BatchTimeoutSeconds = v
		}
	} else if s.HandlerTimeoutSeconds < s.BatchTimeoutSeconds && timeoutOK {
		s.BatchTimeoutSeconds = max(s.HandlerTimeoutSeconds, 1) // a shorter handler gets a batch timeout that fits
	}
	overrideNumber(&l, field("batchSize"), p.BatchSize, &s.BatchSize)
	overrideSeconds(&l, field("maxBatchingWindow"), p.MaxBatchingWindow, &s.MaxBatchingWindowSeconds)
	overrideSeconds(&l, field("retentionPeriod"), p.RetentionPeriod, &s.RetentionSeconds)
	if timeoutOK {
		l = append(l, s.Check(c, path)...)
	}
	return s, l
}

var (
	lambdaPrincipalOnce sync.Once
	lambdaPrincipalVal  awsiam.IPrincipal
)

// lambdaPrincipal is lambda.amazonaws.com, built once: principals are plain
// values, shared safely between roles.
func lambdaPrincipal() awsiam.IPrincipal {
	lambdaPrincipalOnce.Do(func() {
		lambdaPrincipalVal = awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)
	})
	return lambdaPrincipalVal
}
