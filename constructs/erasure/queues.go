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
	key               any    // the key: its proxy, or a batch's result
	retentionSeconds  int
	maxReceiveCount   int
	visibilitySeconds int    // 0: SQS's default
	queueName         string // a physical name for the queue, or "" for a generated one
}

// add creates the dead-letter queue, then the queue, in b: their indexes.
func (p queuePair) add(b *batch, scope any) (queue, dlq int) {
	dlq = b.construct(scope, "aws-sqs", "Queue", p.idPrefix+"DeadLetterQueue", map[string]any{
		"encryption":          awssqs.QueueEncryption_KMS,
		"encryptionMasterKey": p.key,
		"enforceSSL":          true,
		"retentionPeriod":     seconds(p.retentionSeconds),
	})
	props := map[string]any{
		"encryption":          awssqs.QueueEncryption_KMS,
		"encryptionMasterKey": p.key,
		"enforceSSL":          true,
		"retentionPeriod":     seconds(p.retentionSeconds),
		"deadLetterQueue":     map[string]any{"queue": b.result(dlq), "maxReceiveCount": p.maxReceiveCount},
	}
	if p.queueName != "" {
		props["queueName"] = p.queueName
	}
	if p.visibilitySeconds > 0 {
		props["visibilityTimeout"] = seconds(p.visibilitySeconds)
	}
	return b.construct(scope, "aws-sqs", "Queue", p.idPrefix+"Queue", props), dlq
}

// build creates the pair in one call, with their ARNs (queueArnOf).
func (p queuePair) build(scope constructs.Construct) (queue, dlq awssqs.Queue) {
	var b batch
	q, d := p.add(&b, scope)
	qArn, dArn := b.read(b.result(q), "queueArn"), b.read(b.result(d), "queueArn")
	made := b.run()
	queue, dlq = made[q].(awssqs.Queue), made[d].(awssqs.Queue)
	queueArns.Store(queue, made[qArn].(map[string]any)["queueArn"].(string))
	queueArns.Store(dlq, made[dArn].(map[string]any)["queueArn"].(string))
	return queue, dlq
}

// key creates a customer-managed key with rotation on in b: its index.
func (b *batch) key(scope any, id, description string) int {
	return b.construct(scope, "aws-kms", "Key", id, map[string]any{"description": description, "enableKeyRotation": true})
}

// newKey is a customer-managed key with rotation on.
func newKey(scope constructs.Construct, id, description string) awskms.Key {
	return awskms.NewKey(scope, jsii.String(id), &awskms.KeyProps{
		Description:       jsii.String(description),
		EnableKeyRotation: jsii.Bool(true),
	})
}

// alarmActionsSuppression suppresses cdk-nag's finding that alarms have no
// action: where an alarm pages is the operator's choice.
func alarmActionsSuppression(alarms ...any) map[string]any {
	return suppression(map[string]string{"NIST.800.53.R5-CloudWatchAlarmAction": reasonAlarmAction}, alarms...)
}

// deadLetterAlarm is an alarm that fires when dlq holds any message: its
// index.
func (b *batch) deadLetterAlarm(scope constructs.Construct, id string, dlq awssqs.IQueue, description string) int {
	return b.alarm(scope, id, description, dlq, "ApproximateNumberOfMessagesVisible", 1, awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
}

// metricAlarm is one of the channel's alarms on metric m (a metric, or the
// batch's result that is one): one period, data missing not breaching. Its
// index.
func (b *batch) metricAlarm(scope constructs.Construct, id, description string, m any, threshold float64, compare awscloudwatch.ComparisonOperator) int {
	return b.add(map[string]any{"op": "alarm", "scope": scope, "id": id, "description": description, "metricObject": m,
		"threshold": threshold, "comparison": compare})
}

// oldestMessageAlarm is an alarm that fires when q's oldest message is older
// than boundSeconds: its index.
func (b *batch) oldestMessageAlarm(scope constructs.Construct, id string, q awssqs.IQueue, boundSeconds int, description string) int {
	return b.alarm(scope, id, description, q, "ApproximateAgeOfOldestMessage", float64(boundSeconds), awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD)
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
