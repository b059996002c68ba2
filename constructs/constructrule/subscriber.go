// Package constructrule names the rules of the constructs' own props
// (ErasureSubscriber's, ErasureChannel's, ErasureLedger's), which no
// template shows, so the constructs alone apply them (constructs/erasure and
// its plan) and the app-wide check's catalogue lists them
// (constructs/erasurecheck/rules_construct.go, docs/check-rules.md): one
// declaration below both, as contract/timing and constructs/bucketrule hold
// the rules the construct and the check both apply. It imports nothing.
package constructrule

// The subscriber's rules' ids.
const (
	RuleSubscriberName    = "EC021"
	RuleErasureTopicGiven = "EC022"
	RuleResponseQueueOK   = "EC023"
	RuleOneHandler        = "EC024"
	RuleHandlerRoleBuilt  = "EC025"
)

// The fixes of the props' rules, in the props' words: the refusal's and the
// catalogue's.
const (
	FixSubscriberName    = "Name the subscriber with 1 to 64 of a-z, 0-9 and -, starting with a letter and not ending with -."
	FixErasureTopicGiven = "Pass the channel's standard erasure topic: sns.Topic.fromTopicArn with the channel stack's ErasureTopicArn."
	FixResponseQueueOK   = "Pass the channel's response queue with its key: sqs.Queue.fromQueueAttributes with queueArn ErasureResponseQueueArn and keyArn ErasureResponseKeyArn."
	FixOneHandler        = "Give exactly one of handler and handlerProps."
	FixHandlerRoleBuilt  = "Give the handler a role built in this app: leave its role out, or pass a new iam.Role."
)
