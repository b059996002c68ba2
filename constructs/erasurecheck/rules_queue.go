package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The queue family: the store's queue and its dead-letter queue.
var (
	ruleFIFOQueue = declare(Rule{ID: "EC111", Name: "StandardQueue", Type: problem.FIFO, Source: FromSeed, Reference: "seed: pass two is a message delayed by passTwoDelaySeconds",
		Title: "The store's queue is a standard queue",
		Why:   "Pass two is sent with a per-message delay, which a FIFO queue refuses; an SNS standard topic cannot deliver to a FIFO queue either.",
		Fix:   "Use a standard queue (remove FifoQueue)."})
	ruleNoHandler = declare(Rule{ID: "EC112", Name: "QueueHasHandler", Type: problem.Missing, Source: FromSeed, Reference: "seed: every store answers every request",
		Title: "A function has an event source on the store's queue",
		Why:   "Requests are never read, never answered, and expire.",
		Fix:   "Add the handler's AWS::Lambda::EventSourceMapping on the queue (ErasureSubscriber does)."})
	ruleNoDeadLetterQueue = declare(Rule{ID: "EC113", Name: "DeadLetterQueue", Type: problem.Missing, Source: FromSeed, Reference: "maxReceiveCount (N)",
		Title: "The store's queue redrives to a dead-letter queue",
		Why:   "A request that always fails is retried until retention ends and is then lost, with no trace to investigate.",
		Fix:   "Add a RedrivePolicy with a dead-letter queue and maxReceiveCount at most N ({maxReceiveCount})."})
	ruleDeadLetterRetention = declare(Rule{ID: "EC114", Name: "DeadLetterRetention", Type: problem.NotDerived, Source: FromSeed, Reference: "queueRetentionSeconds",
		Title: "The dead-letter queue keeps messages exactly the channel retention",
		Why:   "Dead-lettered requests hold customer keys: kept longer they outlive the erasure's own bound; shorter, they vanish before anyone can act.",
		Fix:   "Set the dead-letter queue's MessageRetentionPeriod to queueRetentionSeconds ({queueRetentionSeconds} s)."})
)

// queueFamily judges the queue's type, its handler and its dead-letter queue.
var queueFamily = storeFamily{name: "queue", rules: []*Rule{ruleFIFOQueue, ruleNoHandler, ruleNoDeadLetterQueue, ruleDeadLetterRetention}, check: func(a *assembly, sc *storeCheck) {
	s, q, f, c := sc.store, sc.queue, &sc.f, sc.c
	if cfnmodel.IsTrue(q.Properties["FifoQueue"]) {
		f.add(ruleFIFOQueue, s.QueueID, s.Path.Child("queue"), props("FifoQueue"), "pass two needs per-message delay; use a standard queue")
	}
	if sc.eventSources == 0 {
		f.add(ruleNoHandler, s.QueueID, s.Path.Child("handler"), nil, "no function has an event source on the queue: requests are never handled")
	}
	if s.DeadLetterID == "" {
		f.add(ruleNoDeadLetterQueue, s.QueueID, s.Path.Child("deadLetterQueue"), props("RedrivePolicy"), "no redrive policy: a request that always fails is retried until retention ends and then lost; add a dead-letter queue with maxReceiveCount at most %d", c.MaxReceiveCount)
	} else if dlq, ok := sc.t.Resources[s.DeadLetterID]; ok {
		if r := cfnmodel.Number(dlq.Properties["MessageRetentionPeriod"], sqsDefaultRetentionSeconds); r != c.QueueRetentionSeconds {
			f.add(ruleDeadLetterRetention, s.DeadLetterID, s.Path.Child("deadLetterQueue").Child("retentionPeriod"), props("MessageRetentionPeriod"), "%d s is not the channel retention of %d s (queueRetentionSeconds)", r, c.QueueRetentionSeconds)
		}
	}
}}
