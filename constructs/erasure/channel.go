package erasure

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// ErasureChannelProps configures the channel.
type ErasureChannelProps struct {
	// Stores is the roster: every store that may answer, by name and account.
	// The response queue then accepts sqs:SendMessage only from the roster's
	// handler roles (named by contract.HandlerName, which ErasureSubscriber gives its
	// handler) and denies every other sender, in any account; the accounts of
	// stores outside the channel's account may subscribe an SQS queue.
	Stores []RosterStore
	// StoreAccounts is the older, broader form: every principal of these
	// accounts may subscribe and answer. Refused together with Stores.
	StoreAccounts []string
	// TopicName and ResponseQueueName give the topic and the response queue
	// physical names, so that a store in another account can build their ARNs
	// from the channel's account and region. Default: names CDK generates.
	TopicName         string
	ResponseQueueName string
	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// ErasureChannel is the part of the channel deployed once: the erasure topic
// under its own KMS key, and the response queue with its dead-letter queue
// under another.
type ErasureChannel struct {
	constructs.Construct

	// TopicKey encrypts Topic. It is never a subscriber queue's key.
	TopicKey awskms.Key
	// Topic is the erasure topic (standard, TLS only).
	Topic awssns.Topic
	// ResponseKey encrypts ResponseQueue and ResponseDeadLetterQueue.
	ResponseKey awskms.Key
	// ResponseQueue receives every store's answers.
	ResponseQueue awssqs.Queue
	// ResponseDeadLetterQueue receives an answer after N receives.
	ResponseDeadLetterQueue awssqs.Queue
	// ResponseDeadLetterAlarm fires when an answer reached the dead-letter queue.
	ResponseDeadLetterAlarm awscloudwatch.Alarm
	// OldestResponseAlarm fires when an answer has waited longer than R: the
	// request it answers has expired and the account service is not reading.
	OldestResponseAlarm awscloudwatch.Alarm
	// RefusedAnswersAlarm fires when the account service's response reader
	// refused an answer whose sender is not the handler of the store it names
	// (contract.MetricAnswersRefused): a forged or misrouted answer.
	RefusedAnswersAlarm awscloudwatch.Alarm
}

// RosterMetadataKey marks the response queue with the roster's store names
// (ErasureChannelProps.Stores), so that tools reading a cloud assembly
// (erasurectl watch) know which stores every round waits for.
const RosterMetadataKey = erasurecheck.RosterMetadataKey

// NewErasureChannel builds the topic and the response queue.
func NewErasureChannel(scope constructs.Construct, id *string, props *ErasureChannelProps) *ErasureChannel {
	this := constructs.NewConstruct(scope, id)
	if props == nil {
		props = &ErasureChannelProps{}
	}
	c := constantsOr(props.Constants)
	ch := &ErasureChannel{Construct: this}
	var problems timing.Problems
	for i, a := range props.StoreAccounts {
		if !isAccountID(a) {
			problems.Add(fmt.Sprintf("ErasureChannel.storeAccounts[%d]", i), timing.Invalid, "%q is not a 12-digit AWS account id", a)
		}
	}
	problems = append(problems, checkRoster(props.Stores, props.StoreAccounts)...)

	ch.TopicKey = newKey(this, "TopicKey", "Erasure topic")
	ch.Topic = awssns.NewTopic(this, jsii.String("Topic"), &awssns.TopicProps{
		MasterKey:  ch.TopicKey,
		EnforceSSL: jsii.Bool(true),
		TopicName:  optional(props.TopicName),
	})
	// Marks the topic for the app-wide check (erasurecheck), which finds every
	// subscription to it in the synthesized templates.
	ch.Topic.Node().DefaultChild().(awscdk.CfnResource).AddMetadata(jsii.String(erasurecheck.TopicMetadataKey), true)
	ch.ResponseKey = newKey(this, "ResponseKey", "Erasure response queue and its dead-letter queue")
	ch.ResponseQueue, ch.ResponseDeadLetterQueue = queuePair{
		idPrefix: "Response", key: ch.ResponseKey, retentionSeconds: c.QueueRetentionSeconds,
		maxReceiveCount: c.MaxReceiveCount, queueName: props.ResponseQueueName,
	}.build(this)

	if len(props.Stores) > 0 && len(problems) == 0 {
		ch.admitRoster(props.Stores)
		names := make([]interface{}, 0, len(props.Stores))
		for _, st := range props.Stores {
			names = append(names, st.Name)
		}
		ch.ResponseQueue.Node().DefaultChild().(awscdk.CfnResource).AddMetadata(jsii.String(RosterMetadataKey), names)
	}
	if len(props.StoreAccounts) > 0 && len(problems) == 0 {
		var principals []awsiam.IPrincipal
		for _, a := range props.StoreAccounts {
			principals = append(principals, awsiam.NewAccountPrincipal(jsii.String(a)))
		}
		ch.admitAccounts("StoreAccounts", principals, nil)
	}

	ch.ResponseDeadLetterAlarm = deadLetterAlarm(this, "ResponseDeadLetterAlarm", ch.ResponseDeadLetterQueue,
		"Store answers reached the response dead-letter queue: the account service failed to process them.")
	ch.OldestResponseAlarm = oldestMessageAlarm(this, "OldestResponseAlarm", ch.ResponseQueue, c.ExpiryPeriodSeconds,
		fmt.Sprintf("An answer has waited on the response queue longer than R = %d s (expiryPeriodSeconds): the account service is not reading answers.", c.ExpiryPeriodSeconds))
	ch.RefusedAnswersAlarm = alarm(this, "RefusedAnswersAlarm",
		"The response reader refused an answer whose sender is not the handler of the store it names: a forged or misrouted answer was kept for investigation, and that store's round is still open.",
		ch.MetricAnswersRefused(nil), 1, awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
	suppressAlarmActions(ch.ResponseDeadLetterAlarm, ch.OldestResponseAlarm, ch.RefusedAnswersAlarm)
	suppress(map[string]string{"Serverless-SQSRedrivePolicy": reasonDLQRedrive}, ch.ResponseDeadLetterQueue)
	if len(problems) > 0 {
		this.Node().AddValidation(&validation{problems: problems})
	}
	return ch
}

// admitRoster lets exactly the roster's handlers answer: the response queue
// allows sqs:SendMessage to their roles (aws:PrincipalArn, which names a role
// that does not exist yet) and denies it to every other principal; the
// response key lets them use it through SQS; the accounts of stores outside
// the channel's may subscribe an SQS queue to the topic.
func (ch *ErasureChannel) admitRoster(stores []RosterStore) {
	stack := awscdk.Stack_Of(ch.Construct)
	channelAccount := *stack.Account()
	roles := rosterRoleArns(stores, channelAccount)
	var others []awsiam.IPrincipal
	for _, a := range rosterAccounts(stores, channelAccount) {
		if a != channelAccount {
			others = append(others, awsiam.NewAccountPrincipal(jsii.String(a)))
		}
	}
	if len(others) > 0 {
		ch.admitAccounts("Roster", others, map[string]interface{}{"aws:PrincipalArn": roles})
	}
	ch.ResponseQueue.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("OnlyRosterHandlersAnswer"),
		Effect:     awsiam.Effect_DENY,
		Actions:    jsii.Strings("sqs:SendMessage"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Resources:  jsii.Strings(*ch.ResponseQueue.QueueArn()),
		Conditions: &map[string]interface{}{"ArnNotLike": map[string]interface{}{"aws:PrincipalArn": roles}},
	}))
}

// admitAccounts lets principals of other accounts subscribe an SQS queue to
// the topic, send to the response queue and use its key through SQS; with
// principalArns (the roster), only those principals.
func (ch *ErasureChannel) admitAccounts(sidPrefix string, principals []awsiam.IPrincipal, principalArns map[string]interface{}) {
	viaSQS := map[string]interface{}{"StringEquals": map[string]interface{}{
		"kms:ViaService": fmt.Sprintf("sqs.%s.amazonaws.com", *awscdk.Stack_Of(ch.Construct).Region()),
	}}
	var send *map[string]interface{}
	if principalArns != nil {
		send = &map[string]interface{}{"ArnLike": principalArns}
		viaSQS["ArnLike"] = principalArns
	}
	ch.Topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "SubscribeSqs"),
		Actions:    jsii.Strings("sns:Subscribe"),
		Principals: &principals,
		Resources:  jsii.Strings(*ch.Topic.TopicArn()),
		Conditions: &map[string]interface{}{"StringEquals": map[string]interface{}{"sns:Protocol": "sqs"}},
	}))
	ch.ResponseQueue.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "SendResponses"),
		Actions:    jsii.Strings("sqs:SendMessage"),
		Principals: &principals,
		Resources:  jsii.Strings(*ch.ResponseQueue.QueueArn()),
		Conditions: send,
	}))
	ch.ResponseKey.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "EncryptResponsesViaSqs"),
		Actions:    jsii.Strings("kms:GenerateDataKey", "kms:Decrypt"),
		Principals: &principals,
		Resources:  jsii.Strings("*"), // in a key policy, "*" is this key
		Conditions: &viaSQS,
	}), nil)
}

// MetricAnswersRefused is the count of answers the response reader refused
// because their sender is not the handler of the store they name (all codes
// summed), per 5 minutes.
func (ch *ErasureChannel) MetricAnswersRefused(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	if opts == nil {
		opts = &awscloudwatch.MetricOptions{}
	}
	o := *opts
	if o.Statistic == nil {
		o.Statistic = jsii.String("Sum")
	}
	if o.Period == nil {
		o.Period = minutes(5)
	}
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(contract.MetricNamespace), MetricName: jsii.String(contract.MetricAnswersRefused),
		DimensionsMap: &map[string]*string{contract.MetricDimensionCode: jsii.String(contract.CodeSenderNotOnRoster)},
		Statistic:     o.Statistic, Period: o.Period, Label: o.Label,
	})
}

// GrantPublish lets grantee (the account service) publish to the topic,
// including the topic key's data-key permissions.
func (ch *ErasureChannel) GrantPublish(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.Topic.GrantPublish(grantee)
}

// GrantSendResponses lets grantee (a store handler in this account) answer.
// Stores in other accounts are allowed through StoreAccounts instead.
func (ch *ErasureChannel) GrantSendResponses(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.ResponseQueue.GrantSendMessages(grantee)
}

// GrantConsumeResponses lets grantee (the account service) read answers.
func (ch *ErasureChannel) GrantConsumeResponses(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.ResponseQueue.GrantConsumeMessages(grantee)
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
