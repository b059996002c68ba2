// Package erasure holds the CDK constructs of the erasure channel:
// ErasureChannel, deployed once by the account-service team, and
// ErasureSubscriber, added by each store team to its own stack. Every number
// comes from the contract's channel constants; every cap is refused at synth.
package erasure

import (
	"maps"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

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

	// HandlerTimeout is the Lambda timeout: at most 60 s (T,
	// `handlerTimeoutCapSeconds`), whole seconds. Default 60 s (T). With
	// Handler, it must equal the function's timeout (or is taken from it).
	HandlerTimeout awscdk.Duration
	// VisibilityTimeout, if given, must be exactly 6 (`visibilityTimeoutMultiplier`)
	// x HandlerTimeout: 360 s (`visibilityTimeoutCapSeconds`) at the default.
	// Default: derived. It accepts one value and stays so that an app that
	// states every queue setting (as teams often copy SQS props) is checked
	// against the derivation and refused, never silently overridden.
	VisibilityTimeout awscdk.Duration
	// MaxReceiveCount: at most 5 (N, `maxReceiveCount`). Default 5 (N).
	MaxReceiveCount *float64
	// PassTwoDelay: at most 300 s (X, `passTwoDelayCapSeconds`) and SQS's
	// delay limit of 900 s (`sqsDelayMaxSeconds`). Default 300 s (X).
	PassTwoDelay awscdk.Duration
	// BatchTimeout: at most 60 s (b, `batchTimeoutCapSeconds`) and at most
	// HandlerTimeout. Default 60 s (b), or HandlerTimeout when shorter.
	BatchTimeout awscdk.Duration
	// BatchSize: records per invocation, at most 10 (`lambdaSqsBatchSizeMax`)
	// without a batching window. Default 1.
	BatchSize *float64
	// MaxBatchingWindow: at most 300 s (`lambdaSqsBatchingWindowMaxSeconds`),
	// refused if it lets the worst case pass 3300 s (R, `expiryPeriodSeconds`).
	// Default none.
	MaxBatchingWindow awscdk.Duration
	// RetentionPeriod, if given, must be exactly 86400 s
	// (`queueRetentionSeconds`). Default 86400 s. It accepts one value and
	// stays for the reason VisibilityTimeout does.
	RetentionPeriod awscdk.Duration

	// Administrators are the ARN patterns of the principals that deploy and
	// operate the store: they alone may change its queues' and key's policies
	// or attributes, delete them, or read its dead letters. Default: the
	// CloudFormation execution role of CDK's default bootstrap in the store's
	// account (channelpolicy.DefaultAdministrators).
	Administrators []string

	// Constants overrides the embedded channel constants. Leave it nil: the
	// constants are the channel's, the same for every store. It stays for a
	// channel whose constants differ on purpose (one scaled for the local
	// emulator, timing.Scaled), which the tests build; the TypeScript
	// construct has no such prop.
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
	Settings timing.SubscriberSettings
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
//
// The decisions are plan.Subscriber's, the same Go code the TypeScript
// construct runs as WebAssembly: this gathers the props' facts, hands each
// step's design to the applier in the jsii kernel (applier/apply.js) and
// reads what it read back, in two or three round trips.
func NewErasureSubscriber(scope constructs.Construct, id *string, props *ErasureSubscriberProps) *ErasureSubscriber {
	if props == nil {
		props = &ErasureSubscriberProps{}
	}
	in, names := subscriberFacts(scope, id, props)
	var step plan.SubscriberStep
	for {
		step = plan.Subscriber(in)
		made, answer := applyDesign(step.Design, names)
		maps.Copy(names, made)
		if step.Final {
			break
		}
		if in.QueuesAnswer == nil {
			in.QueuesAnswer = &answer
		} else {
			in.FunctionAnswer = &answer
		}
	}
	s := &ErasureSubscriber{Name: props.Name, Settings: step.Settings}
	s.Construct = names[design.NameThis].(constructs.Construct)
	this := s.Construct
	s.Key = names[design.NameKey].(awskms.Key)
	s.Queue, s.DeadLetterQueue = names[design.NameQueue].(awssqs.Queue), names[design.NameDeadLetterQueue].(awssqs.Queue)
	if lg, ok := names[design.NameLogGroup].(awslogs.LogGroup); ok {
		s.LogGroup = lg
	}
	if fn, ok := names[design.NameFunction].(awslambda.Function); ok {
		s.Function = fn
	} else if props.HandlerProps == nil {
		s.Function = props.Handler
	}
	if step.HandlerRoleID != "" {
		s.HandlerRoleID = jsii.String(step.HandlerRoleID)
	}
	s.DeadLetterAlarm = names[design.NameDeadLetterAlarm].(awscloudwatch.Alarm)
	s.OldestMessageAlarm = names[design.NameOldestMessageAlarm].(awscloudwatch.Alarm)
	if len(step.Problems) > 0 {
		this.Node().AddValidation(&validation{lines: step.Problems})
	}
	return s
}

// subscriberFacts is what plan.Subscriber reads of props, and the objects
// its designs name. Each fact is asked of the kernel only where the
// decisions read it; the shared topic's and response queue's are read by
// the applier in the first step.
func subscriberFacts(scope constructs.Construct, id *string, props *ErasureSubscriberProps) (plan.SubscriberInput, map[design.Name]any) {
	in := plan.SubscriberInput{Name: props.Name, Partition: partition(), Administrators: props.Administrators, Constants: props.Constants}
	if id != nil {
		in.ID = *id // a nil id is refused by the kernel as an empty one is
	}
	names := map[design.Name]any{design.NameScope: scope}
	// The topic's and the response queue's facts are read by the first
	// step, with the store's queues.
	if t := props.Topic; t != nil {
		names[design.NameTopic], in.HasTopic = t, true
	}
	if q := props.ResponseQueue; q != nil {
		names[design.NameResponseQueue], in.HasResponseQueue = q, true
	}
	if h := props.Handler; h != nil {
		names[design.NameHandler] = h
		in.Handler = &plan.HandlerFacts{}
		if t := h.Timeout(); t != nil {
			in.Handler.Timeout = durationFact(t)
		}
		if props.HandlerProps == nil {
			in.Handler.Role = roleFacts(h.Role())
		}
	}
	if hp := props.HandlerProps; hp != nil {
		names[design.NameHandlerProps] = hp
		in.HandlerProps = &plan.HandlerPropsFacts{Timeout: hp.Timeout != nil, FunctionName: hp.FunctionName != nil,
			MemorySize: hp.MemorySize != nil, LogGroup: hp.LogGroup != nil}
		if props.Handler == nil {
			in.HandlerProps.Role = roleFacts(hp.Role)
		}
	}
	in.HandlerTimeout, in.VisibilityTimeout = durationFact(props.HandlerTimeout), durationFact(props.VisibilityTimeout)
	in.PassTwoDelay, in.BatchTimeout = durationFact(props.PassTwoDelay), durationFact(props.BatchTimeout)
	in.MaxBatchingWindow, in.RetentionPeriod = durationFact(props.MaxBatchingWindow), durationFact(props.RetentionPeriod)
	in.MaxReceiveCount, in.BatchSize = numberFact(props.MaxReceiveCount), numberFact(props.BatchSize)
	return in, names
}

// roleFacts are role's ARN and unique id (design.RoleFacts), nil for no role.
func roleFacts(role awsiam.IRole) *design.RoleFacts {
	if role == nil {
		return nil
	}
	return &design.RoleFacts{Arn: *role.RoleArn(), ID: roleIDOf(role)}
}

// durationFact is d as plan reads it, nil for none.
func durationFact(d awscdk.Duration) *plan.DurationFact {
	if d == nil {
		return nil
	}
	if u := d.IsUnresolved(); u != nil && *u {
		return &plan.DurationFact{Unresolved: true}
	}
	return &plan.DurationFact{Millis: *d.ToMilliseconds(nil)}
}

// numberFact is n as plan reads it, nil for none.
func numberFact(n *float64) *plan.NumberFact {
	if n == nil {
		return nil
	}
	if u := awscdk.Token_IsUnresolved(*n); u != nil && *u {
		return &plan.NumberFact{Unresolved: true}
	}
	return &plan.NumberFact{Value: *n}
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

// MetricNotApplicable is the ErasureNotApplicable metric the handler publishes
// for this subscriber: a 5-minute sum of NOT_APPLICABLE answers
// (design.NotApplicableMetric). Of opts, the period, statistic, label, color,
// unit, account and region apply.
func (s *ErasureSubscriber) MetricNotApplicable(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	objects := map[design.Name]any{}
	if opts != nil {
		objects[design.NameOptions] = opts
	}
	made, _ := applyDesign(design.Metrics(design.NotApplicableMetric(s.Name), opts != nil), objects)
	return made[design.NameMetric].(awscloudwatch.Metric)
}

// AddNotApplicableAlarm alarms when the store answers NOT_APPLICABLE at least
// threshold times in one 5-minute period: the hook for a team that expects
// its store to hold data of every kind it is asked about.
func (s *ErasureSubscriber) AddNotApplicableAlarm(id string, threshold float64) awscloudwatch.Alarm {
	made, _ := applyDesign(design.NotApplicableAlarm(s.Name, id, threshold), map[design.Name]any{design.NameThis: s.Construct})
	return made[design.NameNotApplicableAlarm].(awscloudwatch.Alarm)
}
