package plan

import (
	"github.com/linn-cloud/erasure-channel/constructs/constructrule"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
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
			return constructrule.RuleHandlerRoleBuilt, constructrule.FixHandlerRoleBuilt
		case p.Path.Under(handler) && field == "timeout" && p.Type == problem.UnresolvedToken:
			// The check names a function's timeout only deploy knows so too.
			return timing.RuleTimingValueKnownAtSynth, "Give the handler function a literal timeout in whole seconds, or leave it out."
		case p.Path.Under(handler) && field == "timeout":
			return timing.RuleHandlerTimeoutCap, "Give the handler function a timeout in whole seconds."
		case p.Path.Under(root.Child("handlerProps")):
			return constructrule.RuleOneHandler, "Remove handlerProps.timeout and set handlerTimeout: the construct gives it to the function."
		case field == "handlerTimeout" && p.Type == problem.NotDerived:
			return constructrule.RuleOneHandler, "Set handlerTimeout to the handler function's timeout, or leave handlerTimeout out."
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
			return constructrule.RuleSubscriberName, constructrule.FixSubscriberName
		case "topic":
			return constructrule.RuleErasureTopicGiven, constructrule.FixErasureTopicGiven
		case "responseQueue":
			return constructrule.RuleResponseQueueOK, constructrule.FixResponseQueueOK
		case "handler":
			return constructrule.RuleOneHandler, constructrule.FixOneHandler
		}
		return "", ""
	}
}
