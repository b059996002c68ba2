package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// queuePair is a queue and its dead-letter queue (plan.QueuePair).
type queuePair = plan.QueuePair

// buildPair creates the pair in one call, with their ARNs (queueArnOf).
func buildPair(p queuePair, scope constructs.Construct) (queue, dlq awssqs.Queue) {
	var b batch
	q, d := p.Add(&b.Batch, scope)
	qArn, dArn := b.Read(b.Result(q), "queueArn"), b.Read(b.Result(d), "queueArn")
	made := b.run()
	queue, dlq = made[q].(awssqs.Queue), made[d].(awssqs.Queue)
	queueArns.Store(queue, made[qArn].(map[string]any)["queueArn"].(string))
	queueArns.Store(dlq, made[dArn].(map[string]any)["queueArn"].(string))
	return queue, dlq
}

// newKey is a customer-managed key with rotation on.
func newKey(scope constructs.Construct, id, description string) awskms.Key {
	return awskms.NewKey(scope, jsii.String(id), &awskms.KeyProps{
		Description:       jsii.String(description),
		EnableKeyRotation: jsii.Bool(true),
	})
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
