package plan

import (
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// The rules of ErasureSubscriber's own props. A template has no props, so
// the construct alone applies them; the app-wide check's catalogue lists
// them under these ids (constructs/erasurecheck/rules_construct.go,
// docs/check-rules.md), beside the timing rules the construct and the check
// both apply (timing.RuleOf).
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

// subscriberRule names the rule a problem of the subscriber at root breaks,
// and its fix in the props' words: a timing setting's rule (its fix comes
// from timing.SubscriberSettings.Check, or is the literal it needs here), else the rule
// of the prop at fault.
func subscriberRule(root problem.Path) func(problem.Problem) (string, string) {
	handler := root.Child("handler")
	return func(p problem.Problem) (string, string) {
		field := p.Path.Field()
		switch {
		case p.Path.Under(handler) && field == "role":
			return RuleHandlerRoleBuilt, FixHandlerRoleBuilt
		case p.Path.Under(handler) && field == "timeout":
			return RuleOneHandler, "Give the handler function a literal timeout in whole seconds, or leave it out."
		case p.Path.Under(root.Child("handlerProps")):
			return RuleOneHandler, "Remove handlerProps.timeout and set handlerTimeout: the construct gives it to the function."
		case field == "handlerTimeout" && p.Type == problem.NotDerived:
			return RuleOneHandler, "Set handlerTimeout to the handler function's timeout, or leave handlerTimeout out."
		}
		if id := timing.RuleOf(p); id != "" {
			switch p.Type {
			case problem.UnresolvedToken:
				return id, "Give " + field + " a literal value: a token cannot be held to its cap at synth."
			case problem.Invalid:
				return id, "Give " + field + " as a whole number (of seconds, for a duration)."
			}
			return id, ""
		}
		switch field {
		case "name":
			return RuleSubscriberName, FixSubscriberName
		case "topic":
			return RuleErasureTopicGiven, FixErasureTopicGiven
		case "responseQueue":
			return RuleResponseQueueOK, FixResponseQueueOK
		case "handler":
			return RuleOneHandler, FixOneHandler
		}
		return "", ""
	}
}
