package test

import (
	"context"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/internal/s3fault"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

func newLocalBitmaps(t *testing.T, bucket string, wrap func(bitmapstore.S3) bitmapstore.S3) *examplestore.Bitmaps {
	t.Helper()
	e := sharedEmulator(t)
	ctx := context.Background()
	if err := e.S3.CreateVersionedBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	var client bitmapstore.S3 = e.S3.Client()
	if wrap != nil {
		client = wrap(client)
	}
	b, err := examplestore.NewBitmaps(client, bitmapstore.Options{Bucket: bucket, ReadTTL: time.Second, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SeedSample(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBitmapStoreOnTheChannel: ERASE by account is answered DONE only after
// pass two; then no current generation holds the subject and the directory
// entry is gone; address-keyed requests are NOT_APPLICABLE.
func TestBitmapStoreOnTheChannel(t *testing.T) {
	t.Parallel()
	b := newLocalBitmaps(t, "bitmaps-round", nil)
	lc := startChannel(t, storeUnderTest{name: examplestore.BitmapsName, impls: b.Implementations()})
	ctx := context.Background()
	published := time.Now()
	req, err := lc.publisher.Erase(ctx, contract.KeyAccount, examplestore.SampleAccount)
	if err != nil {
		t.Fatal(err)
	}
	key := publisher.RoundKey{RequestID: req.RequestID, SendNo: req.SendNo}
	st := lc.Stores[examplestore.BitmapsName].Spec.Settings
	waitFor(t, time.Duration(lc.c.ExpiryPeriodSeconds)*time.Second, "the bitmap store's ACK", func() bool {
		return lc.collector.Status(key, []string{examplestore.BitmapsName}).Complete()
	})
	ans := lc.collector.Status(key, []string{examplestore.BitmapsName}).Answered[examplestore.BitmapsName]
	if ans.Outcome != contract.OutcomeDone {
		t.Fatalf("answer %s", ans.Outcome)
	}
	if since := time.Since(published); since < time.Duration(st.PassTwoDelaySeconds)*time.Second {
		t.Errorf("DONE after %v, before the pass-two delay of %d s", since, st.PassTwoDelaySeconds)
	}
	if held, err := b.HoldsSample(ctx); err != nil || held {
		t.Fatalf("after DONE the store still holds the sample: %v, %v", held, err)
	}
	rep, err := bitmapstore.Audit(ctx, sharedEmulator(t).S3.Client(), "bitmaps-round", bitmapstore.DefaultPrefix, examplestore.SampleSubjectID)
	if err != nil || len(rep.CurrentHolders) != 0 || rep.NoncurrentHolders != 0 {
		t.Fatalf("audit %+v, %v: want no object version holding the subject", rep, err)
	}
	assertNoLeak(t, lc.logs.String(), req)
}

// TestBitmapSegmentFaultDeadLettersIntact: an S3 fault on one segment fails
// the record on every receive; after maxReceiveCount receives the ERASE is in
// the dead-letter queue exactly as published, and no answer was sent.
func TestBitmapSegmentFaultDeadLettersIntact(t *testing.T) {
	t.Parallel()
	var fault *s3fault.FailReads
	b := newLocalBitmaps(t, "bitmaps-fault", func(c bitmapstore.S3) bitmapstore.S3 {
		fault = &s3fault.FailReads{S3: c, KeyPart: s3fault.SegmentGenerations("clicked-2026-11"), Code: 500}
		return fault
	})
	lc := startChannel(t, storeUnderTest{name: examplestore.BitmapsName, impls: b.Implementations()})
	ctx := context.Background()
	req, err := lc.publisher.Erase(ctx, contract.KeyAccount, examplestore.SampleAccount)
	if err != nil {
		t.Fatal(err)
	}
	st := lc.Stores[examplestore.BitmapsName]
	n := st.Spec.Settings.MaxReceiveCount
	bound := time.Duration(n*st.Spec.Settings.VisibilityTimeoutSeconds+5) * time.Second
	waitFor(t, bound, "the ERASE to reach the DLQ", func() bool {
		v, _, _, _ := local.CountMessages(ctx, lc.SQS, st.DeadLetterQueue.URL)
		return v == 1
	})
	if got := int(fault.Refused.Load()); got != n {
		t.Errorf("the faulting segment was read %d times, want one per receive (%d)", got, n)
	}
	assertDeadLetteredIntact(t, lc, st, req)
	if len(lc.collector.Status(publisher.KeyOf(contract.AnswerFor(req, examplestore.BitmapsName, "DONE")), []string{examplestore.BitmapsName}).Answered) != 0 {
		t.Error("a faulting store answered")
	}
	if _, ok, _ := b.Lookup(ctx, examplestore.SampleAccount); !ok {
		t.Error("the directory entry went although the erasure never completed")
	}
	assertNoLeak(t, lc.logs.String(), req)
}
