package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// patterns enumerates every pass: success at receive k (1..N) or N failures,
// each receive at an extreme run time (0 or T).
func patterns(st timing.SubscriberSettings) [][]Receive {
	var out [][]Receive
	var rec func(prefix []Receive)
	rec = func(prefix []Receive) {
		if len(prefix) == st.MaxReceiveCount {
			out = append(out, append([]Receive(nil), prefix...))
			return
		}
		for _, run := range []int{0, st.HandlerTimeoutSeconds} {
			out = append(out, append(append([]Receive(nil), prefix...), Receive{RunSeconds: run, OK: true}))
			rec(append(prefix, Receive{RunSeconds: run}))
		}
	}
	rec(nil)
	return out
}

// checkBounds searches every scenario with extreme run times, and seeded
// random ones, and returns the worst natural end and whether any request that
// a store with an unskewed clock would finish was cut by expiry.
func checkBounds(t *testing.T, c contract.Constants, st timing.SubscriberSettings) (worst int, cut bool) {
	ps := patterns(st)
	for _, one := range ps {
		for _, two := range ps {
			r := Run(st, c.ExpiryPeriodSeconds, Scenario{PassOne: one, PassTwo: two}, true)
			if r.Expired {
				cut = true
			}
			worst = max(worst, r.LastActionEnd)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		s := Scenario{Skew: rng.IntN(2*c.ClockSkewAllowanceSeconds+1) - c.ClockSkewAllowanceSeconds}
		for j := 0; j < st.MaxReceiveCount; j++ {
			s.PassOne = append(s.PassOne, Receive{RunSeconds: rng.IntN(st.HandlerTimeoutSeconds + 1), OK: rng.IntN(3) == 0})
			s.PassTwo = append(s.PassTwo, Receive{RunSeconds: rng.IntN(st.HandlerTimeoutSeconds + 1), OK: rng.IntN(3) == 0})
		}
		r := Run(st, c.ExpiryPeriodSeconds, s, rng.IntN(2) == 0)
		// A store whose clock is not ahead of the publisher's never cuts a request short.
		if r.Expired && s.Skew <= 0 {
			cut = true
		}
		// Whatever the skew, a store acts only while its clock is before expiresAt.
		if r.LastActionEnd > c.ExpiryPeriodSeconds+c.ClockSkewAllowanceSeconds+st.HandlerTimeoutSeconds {
			t.Fatalf("an action ended at %d s, past R + S + T", r.LastActionEnd)
		}
	}
	return worst, cut
}

// TestEveryWorstCaseEndsWithinR: with the channel's constants and a store at
// the caps, every request's last handler run ends by R after publication,
// and no request that would finish is cut short by expiry.
func TestEveryWorstCaseEndsWithinR(t *testing.T) {
	c := contract.Channel()
	st := timing.Defaults(c)
	worst, cut := checkBounds(t, c, st)
	if worst > c.ExpiryPeriodSeconds {
		t.Fatalf("a worst case ends at %d s, past R = %d s", worst, c.ExpiryPeriodSeconds)
	}
	if cut {
		t.Fatal("expiry cut short a request a store with a true clock would have finished")
	}
	if worst != st.WorstCaseSeconds() {
		t.Fatalf("the search's worst case %d differs from the formula %d", worst, st.WorstCaseSeconds())
	}
}

// TestDuplicateWindowBoundsLateDuplicates: a late duplicate arriving at any
// time, on a store skewed by up to S, never acts later than R + S + T + b
// after publication, and so never later than that after the erasure completed.
func TestDuplicateWindowBoundsLateDuplicates(t *testing.T) {
	c := contract.Channel()
	st := timing.Defaults(c)
	worst := 0
	for arrival := 0; arrival <= 2*c.DuplicateAfterCompletionWindowSeconds; arrival++ {
		for _, skew := range []int{-c.ClockSkewAllowanceSeconds, 0, c.ClockSkewAllowanceSeconds} {
			for _, w := range []int{0, st.HandlerTimeoutSeconds - st.BatchTimeoutSeconds, st.HandlerTimeoutSeconds} {
				if end, acted := (LateDuplicate{Arrival: arrival, Skew: skew, WaitSeconds: w, CallSeconds: st.BatchTimeoutSeconds}).ActionEnd(st, c.ExpiryPeriodSeconds); acted {
					worst = max(worst, end)
				}
			}
		}
	}
	if worst > c.DuplicateAfterCompletionWindowSeconds {
		t.Fatalf("a late duplicate acted at %d s, past the window R + S + T + b = %d s", worst, c.DuplicateAfterCompletionWindowSeconds)
	}
}

// TestTheSearchCatchesBrokenConstants: the same search fails when R is one
// second short of the redelivery bound, so the tests above can fail.
func TestTheSearchCatchesBrokenConstants(t *testing.T) {
	c := contract.Channel()
	c.ExpiryPeriodSeconds = c.RedeliveryBoundSeconds() - 1
	worst, _ := checkBounds(t, c, timing.Defaults(c))
	if worst <= c.ExpiryPeriodSeconds {
		t.Fatal("the search did not find the worst case past a short R")
	}
}
