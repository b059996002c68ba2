package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"

	"github.com/linn-cloud/erasure-channel/contract"
)

// buildPair hands p to the applier: its dead-letter queue, then its queue,
// under scope, both under key, TLS only, with the same retention; the
// queue redrives after p.MaxReceiveCount receives.
func buildPair(scope constructs.Construct, key awskms.IKey, p plan.QueuePair) (queue, dlq awssqs.Queue) {
	const keyName plan.Name = "key"
	p.Scope, p.Key, p.QueueAs, p.DeadLetterAs = plan.NameScope, keyName, plan.NameQueue, plan.NameDeadLetterQueue
	d := plan.NewDesign()
	d.QueuePairs = []plan.QueuePair{p}
	made, _ := applyDesign(d, map[plan.Name]any{plan.NameScope: scope, keyName: key})
	return made[plan.NameQueue].(awssqs.Queue), made[plan.NameDeadLetterQueue].(awssqs.Queue)
}

// newKey hands a key with rotation to the applier, under scope.
func newKey(scope constructs.Construct, id, description string) awskms.Key {
	const keyName plan.Name = "key"
	d := plan.NewDesign()
	d.Keys = []plan.Key{{Scope: plan.NameScope, ID: id, Description: description, As: keyName}}
	made, _ := applyDesign(d, map[plan.Name]any{plan.NameScope: scope})
	return made[keyName].(awskms.Key)
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
