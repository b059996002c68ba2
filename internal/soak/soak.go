// Package soak runs the local channel under sustained load with faults
// injected everywhere at once, then checks that nothing was lost: every
// (request, sendNo, store) is answered with an allowed outcome (copies
// absorbed) or its message is intact in that store's dead-letter queue; no
// destructive request is answered before its pass two; no expired request is
// answered; no log line carries a body, key, address or requestId.
package soak

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/sender"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/internal/localledger"
)

// Config is one soak run.
type Config struct {
	Stores    int     // stores on the channel
	Requests  int     // valid requests published (every store receives every one)
	Window    int     // requests in flight at most (closed loop), default 50
	Divisor   int     // channel durations ÷ this, default 60
	Seed      uint64  // fault and mix seed
	HandlerP  float64 // transient handler error rate, default 0.10
	SendFailP float64 // failed response send rate, default 0.05
	DoubleP   float64 // answer sent twice rate, default 0.05
	StopP     float64 // invocation stopped mid-batch (a Lambda timeout) rate, default 0.02
	BadP      float64 // malformed bodies mixed in, per valid request, default 0.02
	ExpiredP  float64 // expired bodies mixed in, per valid request, default 0.02
	RebroadP  float64 // destructive requests rebroadcast with sendNo + 1, default 0.2
	// Access, when given, puts the channel behind a gate that decides every
	// call with it (the access matrix of an app whose roster is the soak's
	// stores, store-001…): each component calls as its own principal, and
	// a denied call or a refused answer is a violation.
	Access local.Decider
}

func (c *Config) defaults() {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.HandlerP, 0.10)
	def(&c.SendFailP, 0.05)
	def(&c.DoubleP, 0.05)
	def(&c.StopP, 0.02)
	def(&c.BadP, 0.02)
	def(&c.ExpiredP, 0.02)
	def(&c.RebroadP, 0.2)
	if c.Window <= 0 {
		c.Window = 50
	}
	if c.Divisor <= 0 {
		c.Divisor = 60
	}
	if c.Stores <= 0 {
		c.Stores = 10
	}
}

// Ledger is what happened.
type Ledger struct {
	Stores, Published, Rebroadcasts, Malformed, Expired int
	Expected                                            int // (request, sendNo, store) triples
	Answered, DeadLettered                              int
	Duplicates, ConflictingDuplicates                   int
	MalformedDeadLettered                               int
	Faults                                              map[string]int64
	Elapsed                                             time.Duration
	RequestsPerSecond                                   float64
	P50, P99                                            time.Duration // publish to answer, pass-two delay excluded
	PeakHeapMiB                                         float64
	DeniedCalls                                         map[string]int // by the gate: "principal action resource" -> calls
	RefusedAnswers                                      int            // by the reader's roster
	LedgerComplete, LedgerOpen                          int            // requests, as the account service's ledger has them
	Violations                                          []string
}

func (l Ledger) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d stores, %d requests published (+%d rebroadcasts), %d malformed, %d expired mixed in\n", l.Stores, l.Published, l.Rebroadcasts, l.Malformed, l.Expired)
	fmt.Fprintf(&b, "ledger: %d requests complete, %d not (their latest broadcast not answered by every store with a completing outcome)\n", l.LedgerComplete, l.LedgerOpen)
	fmt.Fprintf(&b, "  expected answers %d: answered %d, dead-lettered intact %d; duplicates absorbed %d (conflicting %d); malformed dead-lettered %d of %d\n",
		l.Expected, l.Answered, l.DeadLettered, l.Duplicates, l.ConflictingDuplicates, l.MalformedDeadLettered, l.Malformed*l.Stores)
	if l.DeniedCalls != nil {
		fmt.Fprintf(&b, "  behind the access gate: %d kinds of call denied, %d answers refused\n", len(l.DeniedCalls), l.RefusedAnswers)
	}
	keys := make([]string, 0, len(l.Faults))
	for k := range l.Faults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprint(&b, "  faults injected:")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %d", k, l.Faults[k])
	}
	fmt.Fprintf(&b, "\n  %.1f s, %.1f requests/s end to end, publish to answer p50 %v p99 %v (pass-two delay excluded), peak heap %.0f MiB\n",
		l.Elapsed.Seconds(), l.RequestsPerSecond, l.P50.Round(time.Millisecond), l.P99.Round(time.Millisecond), l.PeakHeapMiB)
	fmt.Fprintf(&b, "  violations: %d", len(l.Violations))
	return b.String()
}

// faults counts and draws the injected faults.
type faults struct {
	mu     sync.Mutex
	r      *rand.Rand
	counts map[string]*atomic.Int64
}

func (f *faults) hit(kind string, p float64) bool {
	f.mu.Lock()
	hit := f.r.Float64() < p
	f.mu.Unlock()
	if hit {
		f.counts[kind].Add(1)
	}
	return hit
}

var errInjected = errors.New("soak: injected transient fault")

// faultySender fails some sends and sends some answers twice.
type faultySender struct {
	next storehandler.ResponseSender
	f    *faults
	cfg  *Config
}

func (s *faultySender) Send(ctx context.Context, r contract.Response) error {
	if s.f.hit("failed-send", s.cfg.SendFailP) {
		return &sender.ResponseSendError{Code: sender.CodeSendFailed}
	}
	if err := s.next.Send(ctx, r); err != nil {
		return err
	}
	if s.f.hit("double-answer", s.cfg.DoubleP) {
		return s.next.Send(ctx, r)
	}
	return nil
}

// storeKind is what a store implements: everything, account-keyed pairs, or nothing.
func storeKind(i int) string { return []string{"all", "account", "none"}[i%3] }

func implements(kind string, p contract.Pair) bool {
	switch kind {
	case "all":
		return true
	case "account":
		return p.KeyKind == contract.KeyAccount
	}
	return false
}

func impls(kind string, f *faults, cfg *Config) map[contract.Pair]storehandler.Func {
	m := map[contract.Pair]storehandler.Func{}
	for _, cp := range contract.ErasureCapabilityFixtures().Pairs {
		if !implements(kind, cp.Pair) {
			continue
		}
		outcomes := cp.ImplementedOutcomes
		m[cp.Pair] = func(ctx context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
			if f.hit("handler-error", cfg.HandlerP) {
				return "", errInjected
			}
			return outcomes[len(r.RequestID)%len(outcomes)], nil // deterministic per request, the same on every pass
		}
	}
	return m
}

// expectation is one (request, sendNo) published on the channel.
type expectation struct {
	req       contract.Request
	body      []byte
	published time.Time
}

// StoreName is the soak's i-th store (from 0), named as the CDK app's extra
// stores are (context erasure:extraStores), so that the app's access matrix
// covers them.
func StoreName(i int) string { return fmt.Sprintf("store-%03d", i+1) }

// Run runs one soak on a fresh channel of the emulator.
func Run(ctx context.Context, emu *emulator.Emulator, cfg Config) (Ledger, error) {
	cfg.defaults()
	c, err := timing.Scaled(contract.Channel(), cfg.Divisor)
	if err != nil {
		return Ledger{}, err
	}
	cl := local.NewClients(emu.Endpoint, emu.Region)
	spec := local.Spec{Prefix: fmt.Sprintf("soak%d-", time.Now().UnixNano()%1e9), Constants: c}
	names := make([]string, cfg.Stores)
	kinds := map[string]string{}
	for i := range names {
		names[i] = StoreName(i)
		kinds[names[i]] = storeKind(i)
		st := timing.Defaults(c)
		if i%2 == 1 {
			st.BatchSize = 10
		}
		spec.Stores = append(spec.Stores, local.StoreSpec{Name: names[i], Settings: st})
	}
	ch, err := local.Create(ctx, cl, spec)
	if err != nil {
		return Ledger{}, err
	}
	var gate *local.Gate
	if cfg.Access != nil {
		if gate, err = local.StartGate(emu.Endpoint, cfg.Access); err != nil {
			return Ledger{}, err
		}
		defer gate.Close()
		ch.Guard(gate, emu.Region)
	}
	accountService := ch.As(accessmodel.AccountServicePrincipal)
	f := &faults{r: rand.New(rand.NewPCG(cfg.Seed, 7)), counts: map[string]*atomic.Int64{}}
	for _, k := range []string{"handler-error", "failed-send", "double-answer", "stopped-mid-batch"} {
		f.counts[k] = &atomic.Int64{}
	}
	logs := &local.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	handlers := map[string]local.HandlerFunc{}
	for _, n := range names {
		h, err := ch.NewHandler(n, impls(kinds[n], f, &cfg), local.HandlerOptions{Log: log, Metrics: logs,
			WrapResponses: func(s storehandler.ResponseSender) storehandler.ResponseSender {
				return &faultySender{next: s, f: f, cfg: &cfg}
			}})
		if err != nil {
			return Ledger{}, err
		}
		handlers[n] = stopsMidBatch(h.Handle, f, &cfg)
	}
	// The account service's ledger: every request recorded before it is
	// published, every authenticated answer recorded before it is counted.
	book, err := localledger.StartLedger(ctx, c, nil)
	if err != nil {
		return Ledger{}, err
	}
	defer book.Stop()
	collector := publisher.NewCollector()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	peak := sampleHeap(runCtx)
	stop := ch.ServeWith(runCtx, emu.Region, handlers, collector, book.Sink, log)
	defer stop()

	led := Ledger{Stores: cfg.Stores}
	pub := publisher.New(accountService.SNS, ch.TopicARN, publisher.WithConstants(c))
	mix := rand.New(rand.NewPCG(cfg.Seed, 11))
	var exps []expectation
	var bad [][]byte
	var expired []contract.Request
	start := time.Now()
	// In flight: not yet answered by every store, and published less than
	// R + S ago (after that it is answered, dead-lettered, or lost).
	settled := 0 // exps[:settled] are all settled
	horizon := time.Duration(c.ExpiryPeriodSeconds+c.ClockSkewAllowanceSeconds) * time.Second
	done := func(e expectation) bool {
		return time.Since(e.published) > horizon || collector.Status(publisher.RoundKey{RequestID: e.req.RequestID, SendNo: e.req.SendNo}, names).Complete()
	}
	inFlight := func() int {
		for settled < len(exps) && done(exps[settled]) {
			settled++
		}
		n := 0
		for _, e := range exps[settled:] {
			if !done(e) {
				n++
			}
		}
		return n
	}
	for i := 0; i < cfg.Requests; i++ {
		for inFlight() >= cfg.Window && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		before := time.Now() // a store can receive it before Publish returns
		req, err := publishOne(ctx, book, pub, names, mix, i)
		if err != nil {
			return led, err
		}
		body, _ := contract.EncodeRequest(req)
		exps = append(exps, expectation{req: req, body: body, published: before})
		led.Published++
		if req.Type.IsDestructive() && mix.Float64() < cfg.RebroadP {
			before := time.Now()
			again, err := book.Rebroadcast(ctx, pub, req.RequestID)
			if err != nil {
				return led, err
			}
			body, _ := contract.EncodeRequest(again)
			exps = append(exps, expectation{req: again, body: body, published: before})
			led.Rebroadcasts++
		}
		// Malformed bodies go out in the first tenth of the run, so their
		// redrive (maxReceiveCount visibility timeouts) overlaps the load.
		if i == 0 || i < max(cfg.Requests/10, 1) && mix.Float64() < cfg.BadP*10 { // at least one, always
			b := []byte(fmt.Sprintf(`{"type":"erasure/ERASE","requestId":"bad-%d","sendNo":1.5}`, i))
			if err := publishRaw(ctx, accountService.SNS, ch.TopicARN, b); err != nil {
				return led, err
			}
			bad = append(bad, b)
			led.Malformed++
		}
		if i == 0 || mix.Float64() < cfg.ExpiredP { // at least one, always
			// Every type in turn, destructive ones included: an expired ERASE
			// or REFILE must be consumed with no answer and no action.
			r := expiredRequest(led.Expired, i)
			b, err := contract.EncodeRequest(r)
			if err != nil {
				return led, err
			}
			if err := publishRaw(ctx, accountService.SNS, ch.TopicARN, b); err != nil {
				return led, err
			}
			expired = append(expired, r)
			led.Expired++
		}
	}
	// Wait until every expectation is answered or could have been
	// dead-lettered: R after the last publication, plus the redrive of the
	// malformed bodies.
	deadline := time.Now().Add(time.Duration(c.ExpiryPeriodSeconds+c.ClockSkewAllowanceSeconds) * time.Second)
	for time.Now().Before(deadline) && inFlight() > 0 {
		time.Sleep(200 * time.Millisecond)
	}
	led.Elapsed = time.Since(start)
	// Let the redrive of failing messages run out before reading the DLQs:
	// until every store's DLQ holds at least the malformed bodies and nothing
	// is in flight, or maxReceiveCount visibility timeouts have passed.
	waitUntil := time.Now().Add(time.Duration(c.MaxReceiveCount*c.VisibilityTimeoutCapSeconds+2) * time.Second)
	for time.Now().Before(waitUntil) && ctx.Err() == nil {
		ready := inFlight() == 0
		for _, n := range names {
			if !ready {
				break
			}
			v, _, _, err := local.CountMessages(ctx, ch.SQS, ch.Stores[n].DeadLetterQueue.URL)
			ready = err == nil && v >= len(bad)
		}
		if ready {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	stop()
	cancel()
	led.PeakHeapMiB = float64(peak()) / (1 << 20)
	led.Faults = map[string]int64{}
	for k, v := range f.counts {
		led.Faults[k] = v.Load()
	}
	led.Duplicates, led.ConflictingDuplicates = collector.Duplicates()
	if gate != nil {
		led.DeniedCalls, led.RefusedAnswers = gate.DeniedCalls(), ch.RefusedAnswers()
		for call, n := range led.DeniedCalls {
			led.Violations = append(led.Violations, fmt.Sprintf("the gate denied %d calls %s: the deployed policies would too", n, call))
		}
		if led.RefusedAnswers > 0 {
			led.Violations = append(led.Violations, fmt.Sprintf("%d answers from the stores' own handlers were refused by the roster", led.RefusedAnswers))
		}
	}
	if led.ConflictingDuplicates > 0 {
		led.Violations = append(led.Violations, fmt.Sprintf("%d duplicate answers differ from the first", led.ConflictingDuplicates))
	}
	if err := checkLedger(ctx, &led, book, collector, names, exps); err != nil {
		return led, err
	}
	return led, check(ctx, &led, cfg, c, ch, collector, names, kinds, exps, bad, expired, logs.String())
}

// completes is every outcome that completes a request in the ledger.
func completes(o string) bool {
	switch contract.Outcome(o) {
	case contract.OutcomeDone, contract.OutcomeMoved, contract.OutcomeNoneOwned, contract.OutcomeNotMoved, contract.OutcomeNotApplicable:
		return true
	}
	return o == string(contract.AnswerHoldsData) || o == string(contract.AnswerHoldsNone)
}

// checkLedger reports completion from the ledger and checks it against the
// answers the reader counted: a request is complete in the ledger exactly
// when every store answered its latest broadcast with a completing outcome.
func checkLedger(ctx context.Context, led *Ledger, book *localledger.Ledger, col *publisher.Collector, names []string, exps []expectation) error {
	latest := map[string]contract.Request{}
	for _, e := range exps {
		if cur, ok := latest[e.req.RequestID]; !ok || e.req.SendNo > cur.SendNo {
			latest[e.req.RequestID] = e.req
		}
	}
	for id, req := range latest {
		r, ok, err := book.Get(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			led.Violations = append(led.Violations, "a published request is not in the ledger")
			continue
		}
		st := col.Status(publisher.RoundKey{RequestID: id, SendNo: req.SendNo}, names)
		want := st.Complete()
		for _, a := range st.Answered {
			want = want && completes(string(a.Outcome)+string(a.Answer))
		}
		if got := r.Status == ledger.StatusComplete; got != want {
			led.Violations = append(led.Violations, fmt.Sprintf("the ledger says %s for a request whose latest broadcast every store answered: %v", r.Status, want))
		}
		if r.Status == ledger.StatusComplete {
			led.LedgerComplete++
		} else {
			led.LedgerOpen++
		}
	}
	return nil
}

// check verifies the invariant and fills the ledger's counts and latencies.
func check(ctx context.Context, led *Ledger, cfg Config, c contract.Constants, ch *local.Channel, col *publisher.Collector,
	names []string, kinds map[string]string, exps []expectation, bad [][]byte, expired []contract.Request, logs string) error {
	dlq := map[string]map[string]int{} // store -> body -> count
	for _, n := range names {
		bodies, err := drain(ctx, ch.SQS, ch.Stores[n].DeadLetterQueue.URL)
		if err != nil {
			return err
		}
		dlq[n] = bodies
	}
	pairs := map[contract.Pair]contract.CapabilityPair{}
	for _, cp := range contract.ErasureCapabilityFixtures().Pairs {
		pairs[cp.Pair] = cp
	}
	var lat []time.Duration
	passTwo := time.Duration(c.PassTwoDelayCapSeconds) * time.Second
	for _, e := range exps {
		k := publisher.RoundKey{RequestID: e.req.RequestID, SendNo: e.req.SendNo}
		st := col.Status(k, names)
		cp := pairs[contract.Pair{Type: e.req.Type, KeyKind: e.req.KeyKind}]
		for _, n := range names {
			led.Expected++
			r, answered := st.Answered[n]
			if !answered {
				if dlq[n][string(e.body)] > 0 {
					dlq[n][string(e.body)]--
					led.DeadLettered++
					continue
				}
				led.Violations = append(led.Violations, fmt.Sprintf("%s: a %s (sendNo %d) was neither answered nor dead-lettered", n, e.req.Type, e.req.SendNo))
				continue
			}
			led.Answered++
			if !cp.Allows(string(r.Outcome)+string(r.Answer), implements(kinds[n], cp.Pair)) {
				led.Violations = append(led.Violations, fmt.Sprintf("%s: %s answered %s%s, not an allowed outcome", n, e.req.Type, r.Outcome, r.Answer))
			}
			at, _ := col.AnsweredAt(k, n)
			d := at.Sub(e.published)
			if e.req.Type.IsDestructive() && implements(kinds[n], cp.Pair) {
				if d < passTwo {
					led.Violations = append(led.Violations, fmt.Sprintf("%s: a %s answered %v after publication, before its pass two (%v)", n, e.req.Type, d, passTwo))
				}
				d -= passTwo
			}
			lat = append(lat, d)
		}
	}
	for _, r := range expired {
		key := publisher.RoundKey{RequestID: r.RequestID, SendNo: r.SendNo}
		if st := col.Status(key, names); len(st.Answered) > 0 {
			led.Violations = append(led.Violations, fmt.Sprintf("an expired %s was answered by %d stores", r.Type, len(st.Answered)))
		}
	}
	for _, b := range bad {
		for _, n := range names {
			if dlq[n][string(b)] > 0 {
				dlq[n][string(b)]--
				led.MalformedDeadLettered++
			} else {
				led.Violations = append(led.Violations, n+": a malformed body is not in the dead-letter queue")
			}
		}
	}
	leaked := func(r contract.Request) bool {
		for _, v := range []string{r.RequestID, r.Key, r.From, r.To, r.AccountID} {
			if v != "" && strings.Contains(logs, v) {
				return true
			}
		}
		return false
	}
	for _, e := range exps {
		if leaked(e.req) {
			led.Violations = append(led.Violations, "a log line carries a requestId, key or address")
			break
		}
	}
	for _, r := range expired {
		if leaked(r) {
			led.Violations = append(led.Violations, "a log line carries an expired request's requestId, key or address")
			break
		}
	}
	for _, b := range bad {
		if strings.Contains(logs, string(b)) || strings.Contains(logs, "bad-") {
			led.Violations = append(led.Violations, "a log line carries a malformed body")
			break
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		led.P50, led.P99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	led.RequestsPerSecond = float64(led.Published+led.Rebroadcasts) / led.Elapsed.Seconds()
	return nil
}

// publishOne records a request in the ledger and publishes it.
func publishOne(ctx context.Context, book *localledger.Ledger, pub *publisher.Publisher, roster []string, mix *rand.Rand, i int) (contract.Request, error) {
	acct := fmt.Sprintf("acct-soak-%d", i)
	addr := fmt.Sprintf("user%d@soak.example", i)
	var req contract.Request
	var err error
	switch mix.IntN(6) {
	case 0:
		req = pub.NewErase(contract.KeyAccount, acct)
	case 1:
		req = pub.NewErase(contract.KeyAddress, addr)
	case 2:
		req = pub.NewRefile(addr, fmt.Sprintf("new%d@soak.example", i), acct)
	case 3:
		req, err = pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: acct, CreatedAt: time.Now()})
	case 4:
		req, err = pub.NewRound(publisher.Round{Type: contract.TypeClassify, KeyKind: contract.KeyAddress, Key: addr, CreatedAt: time.Now()})
	default:
		req, err = pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAddress, Key: addr, CreatedAt: time.Now()})
	}
	if err != nil {
		return req, err
	}
	return book.Publish(ctx, pub, req, roster)
}

func publishRaw(ctx context.Context, client *sns.Client, topic string, body []byte) error {
	_, err := client.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(string(body))})
	return err
}

// stopsMidBatch makes some invocations stop part-way through their batch
// without answering the rest, and fail, as a Lambda that times out does: the
// whole batch comes back after the visibility timeout.
func stopsMidBatch(h local.HandlerFunc, f *faults, cfg *Config) local.HandlerFunc {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if !f.hit("stopped-mid-batch", cfg.StopP) {
			return h(ctx, ev)
		}
		part := events.SQSEvent{Records: ev.Records[:len(ev.Records)/2]}
		if len(part.Records) > 0 {
			_, _ = h(ctx, part)
		}
		return events.SQSEventResponse{}, errors.New("soak: invocation stopped mid-batch")
	}
}

// drain reads every message of a dead-letter queue: body -> count.
func drain(ctx context.Context, client *sqs.Client, url string) (map[string]int, error) {
	out := map[string]int{}
	for empty := 0; empty < 2; {
		res, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600})
		if err != nil {
			return nil, err
		}
		if len(res.Messages) == 0 {
			empty++
			continue
		}
		for _, m := range res.Messages {
			out[aws.ToString(m.Body)]++
		}
	}
	return out, nil
}

// sampleHeap samples the heap in use until ctx ends; the returned func
// reports the peak.
func sampleHeap(ctx context.Context) func() uint64 {
	var peak atomic.Uint64
	go func() {
		var m runtime.MemStats
		for ctx.Err() == nil {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return peak.Load
}

// expiredRequest is the n-th expired request: ERASE, REFILE, CHECK and
// CLASSIFY in turn, each with values of its own so a leak of any is seen.
func expiredRequest(n, i int) contract.Request {
	r := contract.Request{RequestID: publisher.NewRequestID(), ExpiresAt: time.Now().UTC().Add(-time.Second)}
	switch n % 4 {
	case 0:
		r.Type, r.SendNo, r.KeyKind, r.Key = contract.TypeErase, 1, contract.KeyAccount, fmt.Sprintf("acct-expired-erase-%d", i)
	case 1:
		r.Type, r.SendNo, r.KeyKind = contract.TypeRefile, 1, contract.KeyAddress
		r.From, r.To, r.AccountID = fmt.Sprintf("expired-from-%d@example.com", i), fmt.Sprintf("expired-to-%d@example.com", i), fmt.Sprintf("acct-expired-refile-%d", i)
	case 2:
		r.Type, r.KeyKind, r.Key = contract.TypeCheck, contract.KeyAccount, fmt.Sprintf("acct-expired-check-%d", i)
	default:
		r.Type, r.KeyKind, r.Key = contract.TypeClassify, contract.KeyAddress, fmt.Sprintf("expired-classify-%d@example.com", i)
	}
	return r
}
