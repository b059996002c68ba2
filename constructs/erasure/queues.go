package erasure

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// queuePair describes a queue and its dead-letter queue: both under one
// customer-managed key, TLS only, with the same retention; the queue redrives
// after maxReceiveCount receives. Every queue on the channel is one of these.
type queuePair struct {
	idPrefix          string // the logical-id prefix: "" → Queue, DeadLetterQueue
	key               awskms.IKey
	retentionSeconds  int
	maxReceiveCount   int
	visibilitySeconds int    // 0: SQS's default
	queueName         string // a physical name for the queue, or "" for a generated one
}

func (p queuePair) build(scope constructs.Construct) (queue, dlq awssqs.Queue) {
	dlq = awssqs.NewQueue(scope, jsii.String(p.idPrefix+"DeadLetterQueue"), &awssqs.QueueProps{
		Encryption:          awssqs.QueueEncryption_KMS,
		EncryptionMasterKey: p.key,
		EnforceSSL:          jsii.Bool(true),
		RetentionPeriod:     seconds(p.retentionSeconds),
	})
	props := &awssqs.QueueProps{
		Encryption:          awssqs.QueueEncryption_KMS,
		EncryptionMasterKey: p.key,
		EnforceSSL:          jsii.Bool(true),
		RetentionPeriod:     seconds(p.retentionSeconds),
		QueueName:           optional(p.queueName),
		DeadLetterQueue:     &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(float64(p.maxReceiveCount))},
	}
	if p.visibilitySeconds > 0 {
		props.VisibilityTimeout = seconds(p.visibilitySeconds)
	}
	return awssqs.NewQueue(scope, jsii.String(p.idPrefix+"Queue"), props), dlq
}

// newKey is a customer-managed key with rotation on.
func newKey(scope constructs.Construct, id, description string) awskms.Key {
	return awskms.NewKey(scope, jsii.String(id), &awskms.KeyProps{
		Description:       jsii.String(description),
		EnableKeyRotation: jsii.Bool(true),
	})
}

// deadLetterAlarm fires when dlq holds any message.
func deadLetterAlarm(scope constructs.Construct, id string, dlq awssqs.IQueue, description string) awscloudwatch.Alarm {
	return alarm(scope, id, description, dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
		Period: minutes(1), Statistic: jsii.String("Maximum"),
	}), 1, awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
}

// oldestMessageAlarm fires when q's oldest message is older than bound seconds.
func oldestMessageAlarm(scope constructs.Construct, id string, q awssqs.IQueue, boundSeconds int, description string) awscloudwatch.Alarm {
	return alarm(scope, id, description, q.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{
		Period: minutes(1), Statistic: jsii.String("Maximum"),
	}), float64(boundSeconds), awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD)
}

// alarm is one of the channel's alarms.
func alarm(scope constructs.Construct, id, description string, m awscloudwatch.IMetric, threshold float64, op awscloudwatch.ComparisonOperator) awscloudwatch.Alarm {
	a := awscloudwatch.NewAlarm(scope, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription:   jsii.String(description),
		Metric:             m,
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: op,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	return a
}

// suppressAlarmActions: where an alarm pages is the operator's choice.
func suppressAlarmActions(alarms ...constructs.IConstruct) {
	suppress(map[string]string{"NIST.800.53.R5-CloudWatchAlarmAction": reasonAlarmAction}, alarms...)
}

// constantsOr is override when given, else the embedded channel constants.
func constantsOr(override *contract.Constants) contract.Constants {
	if override != nil {
		return *override
	}
	return contract.Channel()
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
