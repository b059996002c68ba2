package timing

import (
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
)

func TestDefaultsHoldAndMatchTheSeedBound(t *testing.T) {
	c := contract.Channel()
	d := Defaults(c)
	if p := d.Check(c, problem.Root("S")); len(p) != 0 {
		t.Fatalf("defaults break the rules:\n%s", p)
	}
	if d.WorstCaseSeconds() != c.RedeliveryBoundSeconds() {
		t.Fatalf("worst case at the caps %d, want 2(N-1)V + 2T + X = %d", d.WorstCaseSeconds(), c.RedeliveryBoundSeconds())
	}
	if d.WorstCaseSeconds() > c.ExpiryPeriodSeconds {
		t.Fatalf("the defaults' worst case passes R")
	}
}

func TestCheckFindsEachProblem(t *testing.T) {
	c := contract.Channel()
	for _, tc := range []struct {
		name string
		mod  func(*SubscriberSettings)
		want string // the line's start: the rule, the path and the type
	}{
		{"T", func(s *SubscriberSettings) {
			s.HandlerTimeoutSeconds++
			s.VisibilityTimeoutSeconds += c.VisibilityTimeoutMultiplier
		}, "EC201 S.handlerTimeout: AboveCap"},
		{"V", func(s *SubscriberSettings) { s.VisibilityTimeoutSeconds-- }, "EC202 S.visibilityTimeout: NotDerived"},
		{"N", func(s *SubscriberSettings) { s.MaxReceiveCount++ }, "EC203 S.maxReceiveCount: AboveCap"},
		{"N zero", func(s *SubscriberSettings) { s.MaxReceiveCount = 0 }, "EC203 S.maxReceiveCount: BelowMinimum"},
		{"X", func(s *SubscriberSettings) { s.PassTwoDelaySeconds++ }, "EC204 S.passTwoDelay: AboveCap"},
		{"b", func(s *SubscriberSettings) { s.BatchTimeoutSeconds++ }, "EC205 S.batchTimeout: AboveCap"},
		{"retention", func(s *SubscriberSettings) { s.RetentionSeconds-- }, "EC208 S.retentionPeriod: NotDerived"},
		{"window", func(s *SubscriberSettings) { s.MaxBatchingWindowSeconds = 1 }, "EC210 S.maxBatchingWindow: BreaksTiming"},
		{"window past AWS", func(s *SubscriberSettings) { s.MaxBatchingWindowSeconds = c.AWS.LambdaSQSBatchingWindowMaxSeconds + 1 }, "EC207 S.maxBatchingWindow: AboveCap"},
		{"batch size", func(s *SubscriberSettings) { s.BatchSize = c.AWS.LambdaSQSBatchSizeMax + 1 }, "EC206 S.batchSize: AboveCap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Defaults(c)
			tc.mod(&s)
			got := s.Check(c, problem.Root("S"))
			if len(got) != 1 || !strings.HasPrefix(got[0].String(), tc.want) {
				t.Fatalf("got %v, want one %q", got, tc.want)
			}
			if got[0].Fix == "" || !strings.Contains(got[0].Refusal(), "\n  Fix: ") {
				t.Errorf("%s has no fix: %q", tc.want, got[0].Refusal())
			}
		})
	}
}

// TestBatchingWindowFitsWhenTheStoreHasSlack: a store with a shorter handler
// may use a batching window, as long as its worst case stays inside R.
func TestBatchingWindowFitsWhenTheStoreHasSlack(t *testing.T) {
	c := contract.Channel()
	s := Defaults(c)
	s.HandlerTimeoutSeconds, s.VisibilityTimeoutSeconds, s.BatchTimeoutSeconds = 30, 30*c.VisibilityTimeoutMultiplier, 30
	s.MaxBatchingWindowSeconds, s.BatchSize = 20, 50
	if p := s.Check(c, problem.Root("S")); len(p) != 0 {
		t.Fatalf("refused: %s (worst case %d, R %d)", p, s.WorstCaseSeconds(), c.ExpiryPeriodSeconds)
	}
}
