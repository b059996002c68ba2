// Package timing holds one store's timing settings on the erasure channel and
// the rules that bind them to the channel constants: the caps, the exact
// visibility derivation and the worst case that must end inside R. It is pure
// Go: the CDK constructs check their props with it, and the emulator tests
// and erasurectl build the same topology from it, so no setting is retyped.
package timing

import (
	"fmt"
	"maps"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// SubscriberSettings are one store's timing settings, in seconds and counts: what
// ErasureSubscriber builds its queue and handler with (the jsii package's
// SubscriberSettings, and the design's, under the same name and json keys).
type SubscriberSettings struct {
	HandlerTimeoutSeconds    int `json:"handlerTimeoutSeconds"`    // the Lambda timeout, at most T
	VisibilityTimeoutSeconds int `json:"visibilityTimeoutSeconds"` // exactly multiplier x handler timeout
	MaxReceiveCount          int `json:"maxReceiveCount"`          // at most N
	PassTwoDelaySeconds      int `json:"passTwoDelaySeconds"`      // at most X and SQS's delay limit
	BatchTimeoutSeconds      int `json:"batchTimeoutSeconds"`      // at most b and the handler timeout
	BatchSize                int `json:"batchSize"`                // records per invocation
	MaxBatchingWindowSeconds int `json:"maxBatchingWindowSeconds"` // 0 for none
	RetentionSeconds         int `json:"retentionSeconds"`         // exactly the channel retention
	// QueueDelaySeconds is the queue's DelaySeconds: every delivery from the
	// topic waits it before the first receive (pass two's message carries its
	// own delay, which overrides it). 0 for none.
	QueueDelaySeconds int `json:"queueDelaySeconds"`
}

// VisibilityFor is the visibility timeout a queue needs for a handler of
// handlerSeconds: the channel's multiplier times it.
func VisibilityFor(c contract.Constants, handlerSeconds int) int {
	return c.VisibilityTimeoutMultiplier * handlerSeconds
}

// HandlerFor is the longest handler a queue hiding its messages for
// visibilitySeconds admits (VisibilityFor's inverse), at most the handler
// timeout cap.
func HandlerFor(c contract.Constants, visibilitySeconds int) int {
	return min(visibilitySeconds/c.VisibilityTimeoutMultiplier, c.HandlerTimeoutCapSeconds)
}

// Defaults are the caps' safe settings: what a store that sets nothing gets.
// The batch size is 1, so one invocation carries one destructive request and
// its batch timeout always fits inside the handler timeout.
func Defaults(c contract.Constants) SubscriberSettings {
	return SubscriberSettings{
		HandlerTimeoutSeconds:    c.HandlerTimeoutCapSeconds,
		VisibilityTimeoutSeconds: VisibilityFor(c, c.HandlerTimeoutCapSeconds),
		MaxReceiveCount:          c.MaxReceiveCount,
		PassTwoDelaySeconds:      c.PassTwoDelayCapSeconds,
		BatchTimeoutSeconds:      c.BatchTimeoutCapSeconds,
		BatchSize:                1,
		RetentionSeconds:         c.QueueRetentionSeconds,
	}
}

// WorstCaseSeconds is the longest a request can take from publication to the
// end of its last handler run on this store: each pass can use every receive
// (N−1 visibility timeouts, then a handler run of T), each receive can wait a
// batching window, pass two waits its delay, and the first delivery waits the
// queue's delay. At the caps with no window and no queue delay it is
// 2·(N−1)·V + 2·T + X, the seed's bound on R.
func (s SubscriberSettings) WorstCaseSeconds() int {
	return contract.WorstCaseSeconds(s.MaxReceiveCount, s.VisibilityTimeoutSeconds, s.HandlerTimeoutSeconds, s.MaxBatchingWindowSeconds,
		s.PassTwoDelaySeconds, s.QueueDelaySeconds)
}

// The rules Check applies, by the ids the app-wide check reports them under
// (docs/check-rules.md; constructs/erasurecheck declares each once, with
// these ids): a construct's refusal and the check's finding of one value
// name the same rule.
const (
	RuleHandlerTimeoutCap        = "EC201"
	RuleVisibilityTimeoutDerived = "EC202"
	RuleMaxReceiveCountCap       = "EC203"
	RulePassTwoDelayCap          = "EC204"
	RuleBatchTimeoutCap          = "EC205"
	RuleBatchSizeLimit           = "EC206"
	RuleBatchingWindowLimit      = "EC207"
	RuleRetentionDerived         = "EC208"
	RuleQueueDelayLimit          = "EC209"
	RuleWorstCaseWithinExpiry    = "EC210"
	RuleTimingValueKnownAtSynth  = "EC211"
)

// fieldRules are the rules of each setting Check judges, by its field.
var fieldRules = map[string]string{"handlerTimeout": RuleHandlerTimeoutCap, "visibilityTimeout": RuleVisibilityTimeoutDerived,
	"maxReceiveCount": RuleMaxReceiveCountCap, "passTwoDelay": RulePassTwoDelayCap, "batchTimeout": RuleBatchTimeoutCap,
	"batchSize": RuleBatchSizeLimit, "maxBatchingWindow": RuleBatchingWindowLimit, "retentionPeriod": RuleRetentionDerived,
	"queueDelay": RuleQueueDelayLimit}

// FieldRules are the rules of the settings Check judges, by field (a copy).
func FieldRules() map[string]string { return maps.Clone(fieldRules) }

// unitOf is the unit a setting is given in, as a refusal's fix writes it
// after a number: " s" for a duration, "" for a count.
func unitOf(field string) string {
	if field == "maxReceiveCount" || field == "batchSize" {
		return ""
	}
	return " s"
}

// RuleOf is the rule a problem of one of Check's settings breaks, wherever
// it was found (a token or a fraction where a setting is read counts too):
// a value only deploy knows is EC211, a worst case past R EC210, anything
// else the setting's own rule. "" for a field Check does not judge.
func RuleOf(p problem.Problem) string {
	if _, ok := fieldRules[p.Path.Field()]; !ok {
		return ""
	}
	switch p.Type {
	case problem.UnresolvedToken:
		return RuleTimingValueKnownAtSynth
	case problem.BreaksTiming:
		return RuleWorstCaseWithinExpiry
	}
	return fieldRules[p.Path.Field()]
}

// Check returns every way s breaks the channel's rules; each problem's path
// is path's child, the setting (e.g. ErasureSubscriber[space].handlerTimeout),
// and each carries its rule (RuleOf) and its fix, in the setting's name.
func (s SubscriberSettings) Check(c contract.Constants, path problem.Path) problem.List {
	var l problem.List
	f := path.Child
	fix := func(format string, args ...any) { l[len(l)-1].Fix = fmt.Sprintf(format, args...) }
	capped := func(field string, v, lo, hi int, hiName string) bool {
		switch {
		case v < lo:
			l.Add(f(field), problem.BelowMinimum, "%d is below the minimum of %d", v, lo)
			fix("Set %s to at least %d%s.", field, lo, unitOf(field))
		case v > hi:
			l.Add(f(field), problem.AboveCap, "%d is above the cap of %d (%s)", v, hi, hiName)
			fix("Set %s to at most %d%s, or leave it out for the default.", field, hi, unitOf(field))
		default:
			return true
		}
		return false
	}
	handlerOK := capped("handlerTimeout", s.HandlerTimeoutSeconds, 1, c.HandlerTimeoutCapSeconds, "T, handlerTimeoutCapSeconds, seconds")
	if want := VisibilityFor(c, s.HandlerTimeoutSeconds); s.VisibilityTimeoutSeconds != want {
		l.Add(f("visibilityTimeout"), problem.NotDerived, "%d s is not exactly %d x handlerTimeout (%d s)", s.VisibilityTimeoutSeconds, c.VisibilityTimeoutMultiplier, want)
		fix("Leave the queue's visibility timeout to the construct: %d s, %d x handlerTimeout.", want, c.VisibilityTimeoutMultiplier)
	}
	capped("maxReceiveCount", s.MaxReceiveCount, 1, c.MaxReceiveCount, "N, maxReceiveCount")
	passCap, passName := c.PassTwoDelayCapSeconds, "X, passTwoDelayCapSeconds, seconds"
	if c.AWS.SQSDelayMaxSeconds < passCap {
		passCap, passName = c.AWS.SQSDelayMaxSeconds, "SQS's delay limit, seconds"
	}
	capped("passTwoDelay", s.PassTwoDelaySeconds, 0, passCap, passName)
	batchCap, batchName := c.BatchTimeoutCapSeconds, "b, batchTimeoutCapSeconds, seconds"
	if handlerOK && s.HandlerTimeoutSeconds < batchCap { // a broken handler timeout is reported once, not again here
		batchCap, batchName = s.HandlerTimeoutSeconds, "this store's handlerTimeout, seconds"
	}
	capped("batchTimeout", s.BatchTimeoutSeconds, 1, batchCap, batchName)
	sizeCap, sizeName := c.AWS.LambdaSQSBatchSizeMax, "AWS's batch size limit without a batching window"
	if s.MaxBatchingWindowSeconds > 0 {
		sizeCap, sizeName = 10000, "AWS's batch size limit for a standard queue"
	}
	capped("batchSize", s.BatchSize, 1, sizeCap, sizeName)
	windowOK := capped("maxBatchingWindow", s.MaxBatchingWindowSeconds, 0, c.AWS.LambdaSQSBatchingWindowMaxSeconds, "AWS's batching window limit, seconds")
	if s.RetentionSeconds != c.QueueRetentionSeconds {
		l.Add(f("retentionPeriod"), problem.NotDerived, "%d s is not the channel retention of %d s (queueRetentionSeconds)", s.RetentionSeconds, c.QueueRetentionSeconds)
		fix("Leave the queue's retention to the construct: %d s.", c.QueueRetentionSeconds)
	}
	delayOK := capped("queueDelay", s.QueueDelaySeconds, 0, c.AWS.SQSDelayMaxSeconds, "SQS's delay limit, seconds")
	if delayOK && s.QueueDelaySeconds > 0 {
		if worst := s.WorstCaseSeconds(); worst > c.ExpiryPeriodSeconds {
			l.Add(f("queueDelay"), problem.BreaksTiming,
				"%d s delays every request's first receive: this store's worst case becomes delay + 2((N-1)V + T + N*window) + X = %d s, past R = %d s (expiryPeriodSeconds), and a request can expire unanswered",
				s.QueueDelaySeconds, worst, c.ExpiryPeriodSeconds)
			fix("Remove the queue's delay, or shorten it until the worst case ends within %d s.", c.ExpiryPeriodSeconds)
		}
	}
	if windowOK && s.MaxBatchingWindowSeconds > 0 && s.QueueDelaySeconds == 0 {
		if worst := s.WorstCaseSeconds(); worst > c.ExpiryPeriodSeconds {
			l.Add(f("maxBatchingWindow"), problem.BreaksTiming,
				"%d s makes this store's worst case 2((N-1)V + T + N*window) + X = %d s, past R = %d s (expiryPeriodSeconds)",
				s.MaxBatchingWindowSeconds, worst, c.ExpiryPeriodSeconds)
			fix("Shorten maxBatchingWindow, or leave it out, until the worst case ends within %d s.", c.ExpiryPeriodSeconds)
		}
	}
	l.Name(func(p problem.Problem) (string, string) { return RuleOf(p), "" })
	return l
}

// Scaled returns c with every duration divided by divisor (rounded up) and
// the derived values recomputed, R raised to the redelivery bound if rounding
// left it short: the same channel, faster, for integration tests and the
// local channel. It fails if the scaled constants break the arithmetic.
func Scaled(c contract.Constants, divisor int) (contract.Constants, error) {
	up := func(n int) int { return ceilDiv(n, divisor) }
	s := c
	s.HandlerTimeoutCapSeconds = up(c.HandlerTimeoutCapSeconds)
	s.VisibilityTimeoutCapSeconds = VisibilityFor(c, s.HandlerTimeoutCapSeconds)
	s.PassTwoDelayCapSeconds = up(c.PassTwoDelayCapSeconds)
	s.BatchTimeoutCapSeconds = up(c.BatchTimeoutCapSeconds)
	s.ClockSkewAllowanceSeconds = up(c.ClockSkewAllowanceSeconds)
	s.RoundPublishBoundSeconds = up(c.RoundPublishBoundSeconds)
	s.PublisherTickSeconds = up(c.PublisherTickSeconds)
	s.QueueRetentionSeconds = max(up(c.QueueRetentionSeconds), c.AWS.SQSRetentionMinSeconds)
	s.ExpiryPeriodSeconds = max(up(c.ExpiryPeriodSeconds), s.RedeliveryBoundSeconds())
	s.DuplicateAfterCompletionWindowSeconds = s.ExpiryPeriodSeconds + s.ClockSkewAllowanceSeconds + s.HandlerTimeoutCapSeconds + s.BatchTimeoutCapSeconds
	return s, s.Check()
}

// Scaled divides the store's durations by divisor (rounded up), keeps the
// visibility exactly multiplier x the handler timeout, and takes the scaled
// channel's retention: the same store, faster, on a channel scaled by Scaled.
func (s SubscriberSettings) Scaled(divisor int, scaled contract.Constants) SubscriberSettings {
	out := s
	out.HandlerTimeoutSeconds = ceilDiv(s.HandlerTimeoutSeconds, divisor)
	out.VisibilityTimeoutSeconds = VisibilityFor(scaled, out.HandlerTimeoutSeconds)
	out.PassTwoDelaySeconds = ceilDiv(s.PassTwoDelaySeconds, divisor)
	out.BatchTimeoutSeconds = ceilDiv(s.BatchTimeoutSeconds, divisor)
	out.MaxBatchingWindowSeconds = ceilDiv(s.MaxBatchingWindowSeconds, divisor)
	out.QueueDelaySeconds = ceilDiv(s.QueueDelaySeconds, divisor)
	out.RetentionSeconds = scaled.QueueRetentionSeconds
	return out
}

func ceilDiv(n, d int) int { return (n + d - 1) / d }
