package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// buildPair creates p's queue and dead-letter queue under scope with key, in
// one call.
func buildPair(scope constructs.Construct, key awskms.IKey, p plan.QueuePair) (queue, dlq awssqs.Queue) {
	p.Scope, p.Key, p.QueueAs, p.DeadLetterAs = plan.NameScope, plan.NameKey, plan.NameQueue, plan.NameDeadLetterQueue
	d := plan.NewDesign()
	d.QueuePairs = []plan.QueuePair{p}
	made, _ := applyDesign(d, map[plan.Name]any{plan.NameScope: scope, plan.NameKey: key})
	return made[plan.NameQueue].(awssqs.Queue), made[plan.NameDeadLetterQueue].(awssqs.Queue)
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

// anyList is s as a list of values: an empty list, never nil, for a
// metadata entry that must read [] when s is empty.
func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
