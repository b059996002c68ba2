package erasure

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// buildPair creates p's dead-letter queue, then its queue, under scope,
// both under key, TLS only, with the same retention; the queue redrives
// after p.MaxReceiveCount receives.
func buildPair(scope constructs.Construct, key awskms.IKey, p plan.QueuePair) (queue, dlq awssqs.Queue) {
	retention := awscdk.Duration_Seconds(jsii.Number(float64(p.RetentionSeconds)))
	dlq = awssqs.NewQueue(scope, jsii.String(p.IDPrefix+"DeadLetterQueue"), &awssqs.QueueProps{
		Encryption: awssqs.QueueEncryption_KMS, EncryptionMasterKey: key, EnforceSSL: jsii.Bool(true), RetentionPeriod: retention,
	})
	props := &awssqs.QueueProps{
		Encryption: awssqs.QueueEncryption_KMS, EncryptionMasterKey: key, EnforceSSL: jsii.Bool(true), RetentionPeriod: retention,
		DeadLetterQueue: &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(float64(p.MaxReceiveCount))},
		QueueName:       optional(p.QueueName),
	}
	if p.VisibilitySeconds > 0 {
		props.VisibilityTimeout = awscdk.Duration_Seconds(jsii.Number(float64(p.VisibilitySeconds)))
	}
	return awssqs.NewQueue(scope, jsii.String(p.IDPrefix+"Queue"), props), dlq
}

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
