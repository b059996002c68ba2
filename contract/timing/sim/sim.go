// Package sim is a deterministic simulation of one store's queue on the
// erasure channel, on a virtual clock with no sleeps: receives, visibility
// timeouts, handler runs up to T, maxReceiveCount, the dead-letter queue,
// pass two after its delay, the store's expiry check on a clock skewed by up
// to S, and late duplicate deliveries. Its tests search the scenarios and fail
// if the constants ever stop guaranteeing the contract's bounds.
package sim

import "github.com/linn-cloud/erasure-channel/contract/timing"

// Receive is one receive of a message: how long the handler ran (at most
// T), and whether it succeeded (deleted the message) or failed (left it to
// reappear after the visibility timeout).
type Receive struct {
	RunSeconds int
	OK         bool
}

// Scenario is one request's life on one store. Times are in true seconds
// after publication.
type Scenario struct {
	PassOne []Receive // receives of the original message, in order
	PassTwo []Receive // receives of the pass-two message (destructive requests)
	// Skew is the store clock minus the publisher clock, within ±S.
	Skew int
	// WindowWaits are the batching-window waits before each receive (0 with no window).
	WindowWaits []int
}

// Result is what happened.
type Result struct {
	Answered      bool
	DeadLettered  bool
	Expired       bool // the store's clock judged it expired and consumed it
	LastActionEnd int  // when the last handler run that passed the expiry check ended
	Receives      int
}

// Run plays s for a store with settings st on a channel whose requests expire
// R after publication. Each pass receives its message when it becomes
// visible (after a batching-window wait), runs the handler, and on failure
// waits out the visibility timeout; after maxReceiveCount receives the
// message moves to the dead-letter queue. A successful pass one of a
// destructive request enqueues pass two with the pass-two delay.
func Run(st timing.SubscriberSettings, expiry int, s Scenario, destructive bool) Result {
	var res Result
	t := 0
	wait := func(i int) int {
		if i < len(s.WindowWaits) {
			return min(s.WindowWaits[i], st.MaxBatchingWindowSeconds)
		}
		return 0
	}
	pass := func(recv []Receive) (ok bool) {
		for i := 0; i < st.MaxReceiveCount; i++ {
			t += wait(res.Receives)
			r := Receive{RunSeconds: st.HandlerTimeoutSeconds}
			if i < len(recv) {
				r = recv[i]
			}
			r.RunSeconds = min(max(r.RunSeconds, 0), st.HandlerTimeoutSeconds) // Lambda ends a run at T
			res.Receives++
			if t+s.Skew >= expiry { // step 2: the store's own clock says expired
				res.Expired = true
				return false
			}
			res.LastActionEnd = t + r.RunSeconds
			if r.OK {
				t += r.RunSeconds
				return true
			}
			t += st.VisibilityTimeoutSeconds // visible again after the visibility timeout
		}
		res.DeadLettered = true
		return false
	}
	if !pass(s.PassOne) {
		return res
	}
	if destructive {
		t += st.PassTwoDelaySeconds
		if !pass(s.PassTwo) {
			return res
		}
	}
	res.Answered = true
	return res
}

// LateDuplicate is a duplicate delivery of a request (SQS's at-least-once
// delivery, or a rebroadcast) arriving at Arrival true seconds after
// publication, to a store whose clock is skewed by Skew. The handler waits
// up to WaitSeconds before its destructive call, which lasts up to
// CallSeconds (the batch timeout); Lambda ends the run at T.
type LateDuplicate struct {
	Arrival, Skew, WaitSeconds, CallSeconds int
}

// ActionEnd is when the duplicate's destructive call ends, and false if the
// store's expiry check stops it.
func (d LateDuplicate) ActionEnd(st timing.SubscriberSettings, expiry int) (int, bool) {
	if d.Arrival+d.Skew >= expiry {
		return 0, false
	}
	call := min(d.CallSeconds, st.BatchTimeoutSeconds)
	end := d.Arrival + min(d.WaitSeconds+call, st.HandlerTimeoutSeconds)
	return end, true
}
