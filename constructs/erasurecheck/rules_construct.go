package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/subscriberrule"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// FromConstruct: what ErasureSubscriber refuses in its own props, which no
// template shows. The check never reports these rules; the catalogue lists
// them so that a construct's refusal and the rules page name one rule.
const FromConstruct Source = "construct"

// The construct family: ErasureSubscriber's props, refused at synth under
// these ids (subscriberrule.RuleSubscriberName and the rest; the timing rules the
// construct applies too are the timing family's). None may be acknowledged.
var (
	ruleSubscriberName = declare(Rule{ID: subscriberrule.RuleSubscriberName, Name: "SubscriberName", Type: problem.Invalid, Source: FromConstruct, Reference: "contract.IsSubscriberName",
		Title: "The subscriber's name is 1 to 64 of a-z, 0-9 and -, starting with a letter",
		Why:   "The name is the store's identity on the roster, in every answer and in its resources' names: another shape cannot be answered for.",
		Fix:   subscriberrule.FixSubscriberName})
	ruleErasureTopicGiven = declare(Rule{ID: subscriberrule.RuleErasureTopicGiven, Name: "ErasureTopicGiven", Type: problem.FIFO, Source: FromConstruct, Reference: "ErasureSubscriberProps.topic",
		Title: "The subscriber is given the channel's erasure topic, a standard topic",
		Why:   "A FIFO topic cannot deliver to the store's standard queue, and pass two needs per-message delay.",
		Fix:   subscriberrule.FixErasureTopicGiven})
	ruleResponseQueueOK = declare(Rule{ID: subscriberrule.RuleResponseQueueOK, Name: "ResponseQueueWithKey", Type: problem.Missing, Source: FromConstruct, Reference: "ErasureSubscriberProps.responseQueue",
		Title: "The subscriber is given the channel's response queue, a standard queue, with its key",
		Why:   "Every answer is encrypted with the response queue's key: a handler not granted it cannot answer.",
		Fix:   subscriberrule.FixResponseQueueOK})
	ruleOneHandler = declare(Rule{ID: subscriberrule.RuleOneHandler, Name: "OneHandler", Type: problem.Invalid, Source: FromConstruct, Reference: "ErasureSubscriberProps.handler and handlerProps",
		Title: "The subscriber has exactly one handler, whose timeout is handlerTimeout",
		Why:   "The queue's visibility timeout and the channel's worst case are derived from the handler's timeout: a second source of it breaks the derivation.",
		Fix:   subscriberrule.FixOneHandler + " Set the timeout as handlerTimeout."})
	ruleHandlerRoleBuilt = declare(Rule{ID: subscriberrule.RuleHandlerRoleBuilt, Name: "HandlerRoleBuiltInApp", Type: problem.Missing, Source: FromConstruct, Reference: "the pass-two marker's SenderId",
		Title: "The handler's role is built in the app, so its unique id is known",
		Why:   "The handler trusts a pass-two marker only when SQS's SenderId is its own role's unique id, which an imported role does not give at synth.",
		Fix:   subscriberrule.FixHandlerRoleBuilt})
)
