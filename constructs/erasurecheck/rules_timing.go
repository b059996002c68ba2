package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// The timing family: timing.SubscriberSettings.Check, the rules ErasureSubscriber applies
// to its props, applied to what the templates deploy. Every one is a seed cap
// or derivation, or an AWS limit: none may be acknowledged.
var (
	ruleHandlerTimeout = declare(Rule{ID: timing.RuleHandlerTimeoutCap, Name: "HandlerTimeoutCap", Type: problem.AboveCap, Source: FromSeed, Reference: "handlerTimeoutCapSeconds (T)",
		Title: "The handler's timeout is at most T ({handlerTimeoutCapSeconds} s) and at least 1 s",
		Why:   "Every other timing of the channel is derived from T: a longer run breaks the worst case that must end inside R.",
		Fix:   "Set the function's Timeout to at most {handlerTimeoutCapSeconds} s."})
	ruleVisibilityTimeout = declare(Rule{ID: timing.RuleVisibilityTimeoutDerived, Name: "VisibilityTimeoutDerived", Type: problem.NotDerived, Source: FromSeed, Reference: "visibilityTimeoutMultiplier x the handler's timeout",
		Title: "The queue's visibility timeout is exactly {visibilityTimeoutMultiplier} x the handler's timeout",
		Why:   "Shorter, a request is received again while its handler still runs; longer, a failed request waits past the worst case the channel's expiry assumes.",
		Fix:   "Set the queue's VisibilityTimeout to {visibilityTimeoutMultiplier} x the function's Timeout ({visibilityTimeoutCapSeconds} s for {handlerTimeoutCapSeconds} s)."})
	ruleMaxReceiveCount = declare(Rule{ID: timing.RuleMaxReceiveCountCap, Name: "MaxReceiveCountCap", Type: problem.AboveCap, Source: FromSeed, Reference: "maxReceiveCount (N)",
		Title: "The redrive policy's maxReceiveCount is at most N ({maxReceiveCount}) and at least 1",
		Why:   "Each receive can take a visibility timeout: more receives push a request's last run past R.",
		Fix:   "Set RedrivePolicy.maxReceiveCount to at most {maxReceiveCount}."})
	rulePassTwoDelay = declare(Rule{ID: timing.RulePassTwoDelayCap, Name: "PassTwoDelayCap", Type: problem.AboveCap, Source: FromSeed, Reference: "passTwoDelayCapSeconds (X) and SQS's {awsLimits.sqsDelayMaxSeconds} s delay limit",
		Title: "The handler's pass-two delay is at most X ({passTwoDelayCapSeconds} s) and SQS's delay limit",
		Why:   "Pass two runs after the delay: longer, it runs past R, or SQS refuses the message.",
		Fix:   "Set ERASURE_PASS_TWO_DELAY_SECONDS to at most {passTwoDelayCapSeconds}, or leave it out."})
	ruleBatchTimeout = declare(Rule{ID: timing.RuleBatchTimeoutCap, Name: "BatchTimeoutCap", Type: problem.AboveCap, Source: FromSeed, Reference: "batchTimeoutCapSeconds (b)",
		Title: "The handler's batch timeout is at most b ({batchTimeoutCapSeconds} s) and the handler's timeout",
		Why:   "A batch still open when Lambda stops the handler loses its answers.",
		Fix:   "Set ERASURE_BATCH_TIMEOUT_SECONDS to at most {batchTimeoutCapSeconds} and at most the function's Timeout, or leave it out."})
	ruleBatchSize = declare(Rule{ID: timing.RuleBatchSizeLimit, Name: "BatchSizeLimit", Type: problem.AboveCap, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
		Title: "The event source's batch size is within AWS's limit ({awsLimits.lambdaSqsBatchSizeMax} without a batching window)",
		Why:   "Lambda rejects the event source mapping at deploy.",
		Fix:   "Set BatchSize to at most {awsLimits.lambdaSqsBatchSizeMax}, or add a batching window."})
	ruleBatchingWindow = declare(Rule{ID: timing.RuleBatchingWindowLimit, Name: "BatchingWindowLimit", Type: problem.AboveCap, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
		Title: "The event source's batching window is within AWS's limit ({awsLimits.lambdaSqsBatchingWindowMaxSeconds} s)",
		Why:   "Lambda rejects the event source mapping at deploy.",
		Fix:   "Set MaximumBatchingWindowInSeconds to at most {awsLimits.lambdaSqsBatchingWindowMaxSeconds}."})
	ruleRetention = declare(Rule{ID: timing.RuleRetentionDerived, Name: "RetentionDerived", Type: problem.NotDerived, Source: FromSeed, Reference: "queueRetentionSeconds",
		Title: "The store's queue keeps messages exactly the channel retention ({queueRetentionSeconds} s)",
		Why:   "Requests hold customer keys: kept longer they outlive the erasure's bound; shorter, a request can expire before its last retry.",
		Fix:   "Set MessageRetentionPeriod to {queueRetentionSeconds}."})
	ruleQueueDelay = declare(Rule{ID: timing.RuleQueueDelayLimit, Name: "QueueDelayLimit", Type: problem.AboveCap, Source: FromAWS, Reference: "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-delay-queues.html",
		Title: "The queue's delay is within SQS's limit ({awsLimits.sqsDelayMaxSeconds} s)",
		Why:   "SQS rejects the queue at deploy.",
		Fix:   "Remove DelaySeconds, or set it to at most {awsLimits.sqsDelayMaxSeconds}."})
	ruleWorstCase = declare(Rule{ID: timing.RuleWorstCaseWithinExpiry, Name: "WorstCaseWithinExpiry", Type: problem.BreaksTiming, Source: FromSeed, Reference: "expiryPeriodSeconds (R): 2((N-1)V + T + N x window) + X + delay <= R",
		Title: "The store's worst case ends inside R ({expiryPeriodSeconds} s)",
		Why:   "Within every cap, a batching window or a queue delay can still push a request's last run past R: it then expires unanswered.",
		Fix:   "Shorten or remove the batching window or the queue delay."})
	ruleValueOnlyDeployKnows = declare(Rule{ID: timing.RuleTimingValueKnownAtSynth, Name: "TimingValueKnownAtSynth", Type: problem.UnresolvedToken, Source: FromSeed, Reference: "the seed's caps are checked at synth",
		Title: "Every timing value is known at synth",
		Why:   "A value only deploy knows (an SSM parameter, an import from another app, an undecidable condition) cannot be held to its cap, and is never assumed.",
		Fix:   "Give a literal, or a parameter with a Default (erasurectl check --parameter passes a deploy's value)."})
)

// timingRules are the timing rules by the field of timing.SubscriberSettings.Check.
var timingRules = map[string]*Rule{"handlerTimeout": ruleHandlerTimeout, "visibilityTimeout": ruleVisibilityTimeout, "maxReceiveCount": ruleMaxReceiveCount,
	"passTwoDelay": rulePassTwoDelay, "batchTimeout": ruleBatchTimeout, "batchSize": ruleBatchSize, "maxBatchingWindow": ruleBatchingWindow,
	"retentionPeriod": ruleRetention, "queueDelay": ruleQueueDelay}

// timingFamily judges every reader's timing against the queue's, as
// timing.SubscriberSettings.Check judges ErasureSubscriber's props.
var timingFamily = storeFamily{name: "timing", rules: []*Rule{ruleHandlerTimeout, ruleVisibilityTimeout, ruleMaxReceiveCount, rulePassTwoDelay,
	ruleBatchTimeout, ruleBatchSize, ruleBatchingWindow, ruleRetention, ruleQueueDelay, ruleWorstCase, ruleValueOnlyDeployKnows}, check: func(a *assembly, sc *storeCheck) {
	s, f, c := sc.store, &sc.f, sc.c
	for _, u := range sc.values {
		if _, intrinsic := u.v.(map[string]any); intrinsic && cfnmodel.Number(a.Ident(u.t, u.v), -1) < 0 {
			f.add(ruleValueOnlyDeployKnows, u.id, s.Path.Child(u.field), u.prop, "a value only deploy knows (an SSM parameter, an import from another app, a condition the check cannot decide): its cap cannot be checked at synth, and it is not assumed; give a literal, or a parameter with a Default")
		}
	}
	if sc.eventSources == 0 {
		return
	}
	for i, r := range sc.readers {
		if i == 0 {
			continue
		}
		// Every reader of the queue takes requests: each is judged with its
		// own timeout, batch, window and handler settings, on this queue,
		// by the same rules as the first.
		other := s.Spec.Settings
		other.PassTwoDelaySeconds, other.BatchTimeoutSeconds = timing.Defaults(c).PassTwoDelaySeconds, timing.Defaults(c).BatchTimeoutSeconds
		a.readerSettings(&other, r.et, r.esm, r.ft, r.env, r.timeout)
		for _, p := range other.Check(c, s.Path.Child("reader").Key(r.fnID)) {
			switch p.Path.Field() {
			case "maxReceiveCount", "retentionPeriod", "queueDelay":
				continue // the queue's own settings: reported once, with the first reader
			}
			addTiming(f, p, other, c, s.QueueID, r.fnID, r.esmID)
		}
	}
	for _, p := range s.Spec.Settings.Check(c, s.Path) {
		if s.DeadLetterID == "" && p.Path.Field() == "maxReceiveCount" {
			continue // reported once, as the missing dead-letter queue
		}
		addTiming(f, p, s.Spec.Settings, c, s.QueueID, s.FunctionID, sc.firstESM)
	}
}}

// addTiming reports a problem of timing.SubscriberSettings.Check under its rule, on the
// resource and property its field is written at, with the fix the settings
// ask for where a value is derived (the visibility timeout of this handler's
// timeout, the channel's retention).
func addTiming(f *findings, p problem.Problem, set timing.SubscriberSettings, c contract.Constants, queueID, fnID, esmID string) {
	field := p.Path.Field()
	r := timingRules[field]
	if p.Type == problem.BreaksTiming {
		r = ruleWorstCase
	}
	id, prop := queueID, []string(nil)
	switch field {
	case "handlerTimeout":
		id, prop = fnID, props("Timeout")
	case "passTwoDelay":
		id, prop = fnID, props("Environment", "Variables", contract.EnvPassTwoDelaySeconds)
	case "batchTimeout":
		id, prop = fnID, props("Environment", "Variables", contract.EnvBatchTimeoutSeconds)
	case "batchSize":
		id, prop = esmID, props("BatchSize")
	case "maxBatchingWindow":
		id, prop = esmID, props("MaximumBatchingWindowInSeconds")
	case "visibilityTimeout":
		prop = props("VisibilityTimeout")
	case "maxReceiveCount":
		prop = props("RedrivePolicy", "maxReceiveCount")
	case "retentionPeriod":
		prop = props("MessageRetentionPeriod")
	case "queueDelay":
		prop = props("DelaySeconds")
	}
	f.addProblem(r, id, prop, p)
	switch {
	case field == "visibilityTimeout" && p.Type == problem.NotDerived:
		f.fix("Set the queue's VisibilityTimeout to %d s: %d x the function's Timeout of %d s.", timing.VisibilityFor(c, set.HandlerTimeoutSeconds), c.VisibilityTimeoutMultiplier, set.HandlerTimeoutSeconds)
	case field == "retentionPeriod" && p.Type == problem.NotDerived:
		f.fix("Set the queue's MessageRetentionPeriod to %d s, the channel retention.", c.QueueRetentionSeconds)
	}
}
