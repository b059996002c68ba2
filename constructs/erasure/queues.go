package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"

	"github.com/linn-cloud/erasure-channel/contract"
)

// buildPair hands p to the applier: its dead-letter queue, then its queue,
// under scope, both under key, TLS only, with the same retention; the
// queue redrives after p.MaxReceiveCount receives.
func buildPair(scope constructs.Construct, key awskms.IKey, p design.QueuePair) (queue, dlq awssqs.Queue) {
	const keyName design.Name = "key"
	p.Scope, p.Key, p.QueueAs, p.DeadLetterAs = design.NameScope, keyName, design.NameQueue, design.NameDeadLetterQueue
	d := design.NewDesign()
	d.QueuePairs = []design.QueuePair{p}
	made, _ := applyDesign(d, map[design.Name]any{design.NameScope: scope, keyName: key})
	return made[design.NameQueue].(awssqs.Queue), made[design.NameDeadLetterQueue].(awssqs.Queue)
}

// newKey hands a key with rotation to the applier, under scope.
func newKey(scope constructs.Construct, id, description string) awskms.Key {
	const keyName design.Name = "key"
	d := design.NewDesign()
	d.Keys = []design.Key{{Scope: design.NameScope, ID: id, Description: description, As: keyName}}
	made, _ := applyDesign(d, map[design.Name]any{design.NameScope: scope})
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
