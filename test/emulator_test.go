package test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// scaleDivisor shortens every channel duration for the emulator tests: the
// constants are divided, never retyped, and the scaled set must still pass
// the channel's arithmetic.
const scaleDivisor = 60

var (
	emuOnce sync.Once
	emu     *emulator.Emulator
	emuErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if emu != nil {
		emu.Stop()
	}
	os.Exit(code)
}

func sharedEmulator(t testing.TB) *emulator.Emulator {
	t.Helper()
	emuOnce.Do(func() {
		emu, emuErr = emulator.Start(context.Background(), emulator.Options{Root: ".."})
	})
	if emuErr != nil {
		t.Fatal(emuErr)
	}
	return emu
}

func scaledConstants(t testing.TB) contract.Constants {
	t.Helper()
	c, err := timing.Scaled(contract.Channel(), scaleDivisor)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// storeUnderTest is one store run in process through the real adapter.
type storeUnderTest struct {
	name  string
	impls map[contract.Pair]storehandler.Func
	now   func() time.Time
}

// liveChannel is a channel on the emulator with every store polled and the
// response queue read into a collector.
type liveChannel struct {
	*local.Channel
	c         contract.Constants
	collector *publisher.Collector
	publisher *publisher.Publisher
	logs      *local.LogBuffer
}

func startChannel(t *testing.T, stores ...storeUnderTest) *liveChannel {
	t.Helper()
	e := sharedEmulator(t)
	c := scaledConstants(t)
	cl := local.NewClients(e.Endpoint, e.Region)
	prefix := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())) + "-"
	spec := local.Spec{Prefix: prefix, Constants: c}
	for _, s := range stores {
		spec.Stores = append(spec.Stores, local.StoreSpec{Name: s.name, Settings: timing.Defaults(c)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := local.Create(ctx, cl, spec)
	if err != nil {
		t.Fatal(err)
	}
	// Behind a gate without policies: every component signs as its own
	// principal and SQS's SenderId names it, as in a deployed channel, so
	// the handlers prove pass two by identity.
	gate, err := local.StartGate(e.Endpoint, local.OpenDecider{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gate.Close() })
	ch.Guard(gate, e.Region)
	lc := &liveChannel{Channel: ch, c: c, collector: publisher.NewCollector(), logs: &local.LogBuffer{}}
	log := slog.New(slog.NewJSONHandler(lc.logs, nil))
	lc.publisher = publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN, publisher.WithConstants(c))
	handlers := map[string]local.HandlerFunc{}
	for _, s := range stores {
		h, err := ch.NewHandler(s.name, s.impls, local.HandlerOptions{Now: s.now, Log: log, Metrics: lc.logs})
		if err != nil {
			t.Fatal(err)
		}
		handlers[s.name] = h.Handle
	}
	t.Cleanup(ch.Serve(ctx, e.Region, handlers, lc.collector, log))
	t.Cleanup(cancel)
	return lc
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %v waiting for %s", timeout, what)
}

func constant(outcome string) storehandler.Func {
	return func(context.Context, contract.Request, storehandler.Pass) (string, error) { return outcome, nil }
}

// TestPublishedRequestReachesEveryStoreQueueAsRawBody: with no handler
// running, every store queue holds exactly the published body, with no SNS
// envelope and no message attribute.
func TestPublishedRequestReachesEveryStoreQueueAsRawBody(t *testing.T) {
	t.Parallel()
	e := sharedEmulator(t)
	c := scaledConstants(t)
	cl := local.NewClients(e.Endpoint, e.Region)
	spec := local.Spec{Prefix: "raw-", Constants: c}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		spec.Stores = append(spec.Stores, local.StoreSpec{Name: n, Settings: timing.Defaults(c)})
	}
	ctx := context.Background()
	ch, err := local.Create(ctx, cl, spec)
	if err != nil {
		t.Fatal(err)
	}
	req, err := publisher.New(cl.SNS, ch.TopicARN, publisher.WithConstants(c)).Erase(ctx, contract.KeyAddress, "Jane.Doe@Example.com")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := contract.EncodeRequest(req)
	for name, st := range ch.Stores {
		out, err := cl.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(st.Queue.URL), WaitTimeSeconds: 2, MessageAttributeNames: []string{"All"}})
		if err != nil || len(out.Messages) != 1 {
			t.Fatalf("%s: %v, %d messages", name, err, len(out.Messages))
		}
		m := out.Messages[0]
		if aws.ToString(m.Body) != string(want) {
			t.Errorf("%s: body is not the raw published request", name)
		}
		if len(m.MessageAttributes) != 0 {
			t.Errorf("%s: %d message attributes, want none", name, len(m.MessageAttributes))
		}
		got, err := contract.ParseRequest([]byte(aws.ToString(m.Body)))
		if err != nil || got.Key != "jane.doe@example.com" {
			t.Errorf("%s: parsed %v, key lowercased by addressKey: %v", name, err, got.Key == "jane.doe@example.com")
		}
	}
}

// TestRoundTrip: three stores answer on the response queue; CHECK is answered
// at once; ERASE is answered only after pass two, which arrives after its
// delay; the store that implements nothing answers NOT_APPLICABLE.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	passAt := map[storehandler.Pass]time.Time{}
	eraser := func(_ context.Context, _ contract.Request, p storehandler.Pass) (string, error) {
		mu.Lock()
		passAt[p] = time.Now()
		mu.Unlock()
		return string(contract.OutcomeDone), nil
	}
	all := map[contract.Pair]storehandler.Func{}
	for _, p := range contract.ErasureCapabilityFixtures().Pairs {
		all[p.Pair] = constant(p.ImplementedOutcomes[0])
	}
	all[contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAccount}] = eraser
	lc := startChannel(t,
		storeUnderTest{name: "space", impls: all},
		storeUnderTest{name: "ledger", impls: map[contract.Pair]storehandler.Func{{Type: contract.TypeErase, KeyKind: contract.KeyAccount}: constant("DONE")}},
		storeUnderTest{name: "archive", impls: nil},
	)
	ctx := context.Background()
	subscribers := []string{"archive", "ledger", "space"}

	published := time.Now()
	erase, err := lc.publisher.Erase(ctx, contract.KeyAccount, "acct-42")
	if err != nil {
		t.Fatal(err)
	}
	check, err := lc.publisher.PublishRound(ctx, publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: "acct-42", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	checkKey := publisher.RoundKey{RequestID: check.RequestID}
	waitFor(t, 10*time.Second, "every store to answer CHECK", func() bool { return lc.collector.Status(checkKey, subscribers).Complete() })
	st := lc.collector.Status(checkKey, subscribers)
	if st.Answered["space"].Answer != contract.AnswerHoldsData || st.Answered["ledger"].Answer != contract.AnswerNotApplicable {
		t.Errorf("CHECK answers %+v", st.Answered)
	}
	eraseKey := publisher.KeyOf(contract.AnswerFor(erase, "x", "DONE"))
	delay := time.Duration(lc.c.PassTwoDelayCapSeconds) * time.Second
	if s := lc.collector.Status(eraseKey, subscribers); time.Since(published) < delay {
		// Pass two cannot have run yet: only the NOT_APPLICABLE answer may be in.
		for name, a := range s.Answered {
			if name != "archive" || a.Outcome != contract.OutcomeNotApplicable {
				t.Errorf("%s answered ERASE before pass two: %+v", name, a)
			}
		}
	}
	waitFor(t, time.Duration(lc.c.ExpiryPeriodSeconds)*time.Second, "every store to answer ERASE", func() bool {
		return lc.collector.Status(eraseKey, subscribers).Complete()
	})
	answered := time.Now()
	st = lc.collector.Status(eraseKey, subscribers)
	if st.Answered["space"].Outcome != contract.OutcomeDone || st.Answered["ledger"].Outcome != contract.OutcomeDone {
		t.Errorf("ERASE answers %+v", st.Answered)
	}
	if fmt.Sprint(st.NotApplicable) != "[archive]" {
		t.Errorf("NOT_APPLICABLE from %v", st.NotApplicable)
	}
	mu.Lock()
	gap := passAt[2].Sub(passAt[1])
	mu.Unlock()
	if gap < delay-500*time.Millisecond {
		t.Errorf("pass two ran %v after pass one, want at least the delay %v", gap, delay)
	}
	if answered.Sub(published) < delay {
		t.Errorf("DONE arrived %v after publication, before pass two could run", answered.Sub(published))
	}
	if !strings.Contains(lc.logs.String(), contract.MetricNotApplicable) {
		t.Error("no ErasureNotApplicable metric line")
	}
	assertNoLeak(t, lc.logs.String(), erase, check)
}

// TestFailingHandlerDeadLetters: a store whose call always fails gets the
// message exactly maxReceiveCount times; then it is in the dead-letter queue,
// unanswered and intact.
func TestFailingHandlerDeadLetters(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	failing := func(context.Context, contract.Request, storehandler.Pass) (string, error) {
		calls.Add(1)
		return "", errors.New("store unavailable")
	}
	lc := startChannel(t, storeUnderTest{name: "broken", impls: map[contract.Pair]storehandler.Func{{Type: contract.TypeErase, KeyKind: contract.KeyAccount}: failing}})
	ctx := context.Background()
	req, err := lc.publisher.Erase(ctx, contract.KeyAccount, "acct-7")
	if err != nil {
		t.Fatal(err)
	}
	st := lc.Stores["broken"]
	n := st.Spec.Settings.MaxReceiveCount
	bound := time.Duration(n*st.Spec.Settings.VisibilityTimeoutSeconds+5) * time.Second
	waitFor(t, bound, "the message to reach the DLQ", func() bool {
		v, _, _, _ := local.CountMessages(ctx, lc.SQS, st.DeadLetterQueue.URL)
		return v == 1
	})
	if got := int(calls.Load()); got != n {
		t.Errorf("the store was called %d times, want maxReceiveCount = %d", got, n)
	}
	assertDeadLetteredIntact(t, lc, st, req)
	if v, f, d, _ := local.CountMessages(ctx, lc.SQS, st.Queue.URL); v+f+d != 0 {
		t.Errorf("store queue still holds %d messages", v+f+d)
	}
	if len(lc.collector.Status(publisher.KeyOf(contract.AnswerFor(req, "broken", "DONE")), []string{"broken"}).Answered) != 0 {
		t.Error("a failing store answered")
	}
	assertNoLeak(t, lc.logs.String(), req)
}

// assertDeadLetteredIntact: the store's dead-letter queue holds one message,
// the request exactly as published.
func assertDeadLetteredIntact(t *testing.T, lc *liveChannel, st *local.StoreQueues, req contract.Request) {
	t.Helper()
	out, err := lc.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(st.DeadLetterQueue.URL)})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("DLQ receive: %v", err)
	}
	want, _ := contract.EncodeRequest(req)
	if aws.ToString(out.Messages[0].Body) != string(want) {
		t.Error("the dead-lettered message is not the request as published")
	}
}

// TestExpiredRequestGetsNoAnswer: a store whose clock is past expiresAt
// consumes the request with no answer.
func TestExpiredRequestGetsNoAnswer(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	var lc *liveChannel
	late := func() time.Time { return time.Now().Add(time.Duration(lc.c.ExpiryPeriodSeconds+1) * time.Second) }
	lc = startChannel(t, storeUnderTest{name: "late", now: func() time.Time { return late() }, impls: map[contract.Pair]storehandler.Func{
		{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}: func(context.Context, contract.Request, storehandler.Pass) (string, error) {
			called.Store(true)
			return "HOLDS_DATA", nil
		}}})
	ctx := context.Background()
	req, err := lc.publisher.PublishRound(ctx, publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: "acct-1", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	st := lc.Stores["late"]
	waitFor(t, 10*time.Second, "the expired request to be consumed", func() bool {
		v, f, d, _ := local.CountMessages(ctx, lc.SQS, st.Queue.URL)
		return v+f+d == 0 && strings.Contains(lc.logs.String(), "expired")
	})
	time.Sleep(2 * time.Second) // an answer, had one been sent, would be read by now
	if called.Load() || len(lc.collector.Status(publisher.RoundKey{RequestID: req.RequestID}, []string{"late"}).Answered) != 0 {
		t.Error("an expired request was acted on or answered")
	}
	if v, _, _, _ := local.CountMessages(ctx, lc.SQS, st.DeadLetterQueue.URL); v != 0 {
		t.Error("an expired request was dead-lettered instead of consumed")
	}
}

// TestMalformedBodyIsNeverAnsweredAndDeadLetters: a body that is not a
// contract message is refused on every receive, then dead-lettered.
func TestMalformedBodyIsNeverAnsweredAndDeadLetters(t *testing.T) {
	t.Parallel()
	lc := startChannel(t, storeUnderTest{name: "strict", impls: map[contract.Pair]storehandler.Func{{Type: contract.TypeErase, KeyKind: contract.KeyAccount}: constant("DONE")}})
	ctx := context.Background()
	body := `{"type":"erasure/ERASE","requestId":"r-1","sendNo":1,"expiresAt":"2099-01-01T00:00:00Z","keyKind":"ADDRESS","key":"Secret.Person@Example.com"}`
	if _, err := lc.SNS.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(lc.TopicARN), Message: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
	st := lc.Stores["strict"]
	bound := time.Duration(st.Spec.Settings.MaxReceiveCount*st.Spec.Settings.VisibilityTimeoutSeconds+5) * time.Second
	waitFor(t, bound, "the malformed message to reach the DLQ", func() bool {
		v, _, _, _ := local.CountMessages(ctx, lc.SQS, st.DeadLetterQueue.URL)
		return v == 1
	})
	if n := strings.Count(lc.logs.String(), `"code":"INVALID_MESSAGE"`); n != st.Spec.Settings.MaxReceiveCount {
		t.Errorf("refused %d times, want maxReceiveCount = %d", n, st.Spec.Settings.MaxReceiveCount)
	}
	if v, _, _, _ := local.CountMessages(ctx, lc.SQS, lc.ResponseQueue.URL); v != 0 {
		t.Error("a malformed request was answered")
	}
	for _, secret := range []string{"Secret.Person", "r-1", body} {
		if strings.Contains(lc.logs.String(), secret) {
			t.Errorf("logs carry %q", secret)
		}
	}
}

// assertNoLeak fails if any request's body, key, address or requestId is in out.
func assertNoLeak(t *testing.T, out string, reqs ...contract.Request) {
	t.Helper()
	for _, r := range reqs {
		body, _ := contract.EncodeRequest(r)
		for _, s := range []string{string(body), r.RequestID, r.Key, r.From, r.To, r.AccountID} {
			if s != "" && strings.Contains(out, s) {
				t.Errorf("logs carry a request's value")
			}
		}
	}
}
