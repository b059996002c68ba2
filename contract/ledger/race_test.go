package ledger_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

var (
	raceSeed     = flag.Uint64("ledger.seed", 1, "seed of TestLedgerRace")
	raceRequests = flag.Int("ledger.requests", 40, "requests of TestLedgerRace")
	raceReaders  = flag.Int("ledger.readers", 8, "concurrent readers of TestLedgerRace")
)

var raceStores = []string{"bitmaps", "ledger", "space", "vault"}

// message is one response-queue message as the readers see it.
type message struct {
	body      []byte
	sender    string
	id        string
	authentic bool // an authenticated, valid answer to a recorded broadcast
	key       string
	outcome   string
}

func roleOf(store string) publisher.Sender {
	return publisher.Sender{RoleID: "AROA" + strings.ToUpper(fmt.Sprintf("%-17s", store)[:17]), Session: contract.HandlerName(store)}
}

// TestLedgerRace is the seeded, randomized race test of the ledger on the
// DynamoDB emulator. Requests are recorded and published (some by a publisher
// that crashes between its record and its publish); several readers take
// answers concurrently, with duplicates, redeliveries, conflicting answers,
// forged senders, unknown requests and rounds, and answers of the wrong type,
// and some readers crash between their write and their delete; the sweeper
// runs beside them. An independent oracle, built from the messages sent and
// read back through the DynamoDB API, checks that every authentic answer was
// counted once and none lost, no forged or unknown-round answer was counted,
// a request is complete exactly when every roster store answered its latest
// broadcast, every expired incomplete round was re-broadcast, and every
// complete request has a receipt in a log that verifies.
func TestLedgerRace(t *testing.T) {
	db := dynamo(t)
	clk := newClock()
	l, verifier := newLedger(t, db, clk.Now)
	r := newRaceRun(t, l, clk)
	plans := r.publish()

	// Round 1: every published request's first broadcast, some stores silent.
	var ms []message
	for _, p := range plans {
		if !p.crashed {
			ms = append(ms, r.answers(p.req, p.silent)...)
		}
	}
	r.deliver(ms, true)
	crashed := r.sweepCrashed(plans)
	r.expire(plans)

	// The oracle, read through the DynamoDB API.
	r.mu.Lock()
	defer r.mu.Unlock()
	complete := r.judge(db, verifier, plans)
	if testing.Verbose() {
		kinds := map[ledger.Result]int{}
		for _, rs := range r.results {
			for res, n := range rs {
				kinds[res] += n
			}
		}
		t.Logf("seed %d: %d requests (%d crashed publishers), %d complete, %d authentic answers, results %v", *raceSeed, len(plans), crashed, complete, len(r.results), kinds)
	}
}

// racePlan is one request of the race and what the oracle expects of it.
type racePlan struct {
	req      contract.Request
	crashed  bool            // the publisher crashed after the record
	silent   map[string]bool // stores that miss the first broadcast
	complete bool            // the oracle's expectation
}

// raceRun is one seeded run of TestLedgerRace: the ledger and its reader,
// and what the oracle collects of every delivery (under mu).
type raceRun struct {
	t      *testing.T
	ctx    context.Context
	l      *ledger.Ledger
	reader *ledger.Reader
	roster publisher.Roster
	pub    *publisher.Publisher
	clk    *clock
	rng    *rand.Rand
	out    *sent
	c      contract.Constants
	msgNo  int

	mu                     sync.Mutex
	results                map[string]map[ledger.Result]int // by authentic key
	counted, forgedCounted []string
}

func newRaceRun(t *testing.T, l *ledger.Ledger, clk *clock) *raceRun {
	roster := publisher.Roster{}
	for _, st := range raceStores {
		roster[st] = roleOf(st)
	}
	return &raceRun{t: t, ctx: context.Background(), l: l, clk: clk, roster: roster,
		reader: &ledger.Reader{Ledger: l, Roster: roster},
		pub:    publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now)),
		rng:    rand.New(rand.NewPCG(*raceSeed, 2)), out: &sent{}, c: contract.Channel(),
		results: map[string]map[ledger.Result]int{}}
}

// publish records and publishes the run's requests (every fourth a CHECK);
// one publisher in eight crashes between its record and its publish.
func (r *raceRun) publish() []*racePlan {
	var plans []*racePlan
	for i := 0; i < *raceRequests; i++ {
		var req contract.Request
		if i%4 == 3 {
			var err error
			if req, err = r.pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: fmt.Sprintf("acct-%04d", i), CreatedAt: r.clk.Now()}); err != nil {
				r.t.Fatal(err)
			}
		} else {
			req = r.pub.NewErase(contract.KeyAccount, fmt.Sprintf("acct-%04d", i))
		}
		p := &racePlan{req: req, crashed: r.rng.IntN(8) == 0, silent: map[string]bool{}}
		if r.rng.IntN(3) == 0 {
			p.silent[raceStores[r.rng.IntN(len(raceStores))]] = true
		}
		if p.crashed {
			if err := r.l.Record(r.ctx, req, raceStores, r.clk.Now()); err != nil {
				r.t.Fatal(err)
			}
		} else if _, err := r.l.Publish(r.ctx, r.out, req, raceStores); err != nil {
			r.t.Fatal(err)
		}
		plans = append(plans, p)
	}
	return plans
}

// raceOutcome is a store's answer to a request of type t that did (or did
// not) find data.
func raceOutcome(t contract.MessageType, done bool) string {
	switch {
	case t == contract.TypeCheck && done:
		return string(contract.AnswerHoldsNone)
	case t == contract.TypeCheck:
		return string(contract.AnswerHoldsData)
	case done:
		return string(contract.OutcomeDone)
	}
	return string(contract.OutcomeNotApplicable)
}

// mk is the message of resp from sender.
func (r *raceRun) mk(resp contract.Response, sender string, authentic bool) message {
	b, err := contract.EncodeResponse(resp)
	if err != nil {
		r.t.Fatal(err)
	}
	r.msgNo++
	o := string(resp.Outcome) + string(resp.Answer)
	return message{body: b, sender: sender, id: fmt.Sprintf("m-%06d", r.msgNo), authentic: authentic,
		key: fmt.Sprintf("%s/%d/%s", resp.RequestID, resp.SendNo, resp.Subscriber), outcome: o}
}

// senderOf is the sender id of st's handler.
func (r *raceRun) senderOf(st string) string {
	return contract.HandlerSenderID(r.roster[st].RoleID, r.roster[st].Session)
}

// answers builds the messages for one broadcast, with the faults.
func (r *raceRun) answers(req contract.Request, skip map[string]bool) []message {
	var ms []message
	for _, st := range raceStores {
		if skip[st] {
			continue
		}
		resp := contract.AnswerFor(req, st, raceOutcome(req.Type, r.rng.IntN(2) == 0))
		m := r.mk(resp, r.senderOf(st), true)
		ms = append(ms, m)
		for range r.rng.IntN(3) { // duplicates: another publish of the same answer
			d := m
			d.id = fmt.Sprintf("%s-dup%d", m.id, r.rng.IntN(1000))
			ms = append(ms, d)
		}
		if r.rng.IntN(10) == 0 { // a store that changed its answer: a conflict, the first stands
			other := contract.AnswerFor(req, st, raceOutcome(req.Type, resp.Outcome != contract.OutcomeDone && resp.Answer != contract.AnswerHoldsNone))
			ms = append(ms, r.mk(other, m.sender, true))
		}
		if r.rng.IntN(6) == 0 { // forged: a right-looking answer from a sender off the roster
			ms = append(ms, r.mk(resp, "AROAFORGEDFORGED0001:"+r.roster[st].Session, false))
		}
	}
	if r.rng.IntN(5) == 0 { // an unknown request
		fake := req
		fake.RequestID = "ffffffff-ffff-4fff-8fff-" + fmt.Sprintf("%012d", r.rng.IntN(1e9))
		ms = append(ms, r.mk(contract.AnswerFor(fake, raceStores[0], raceOutcome(req.Type, true)), r.senderOf(raceStores[0]), false))
	}
	if req.Type.IsDestructive() && r.rng.IntN(5) == 0 { // a round never broadcast
		future := req
		future.SendNo = req.SendNo + 3
		ms = append(ms, r.mk(contract.AnswerFor(future, raceStores[1], "DONE"), r.senderOf(raceStores[1]), false))
	}
	if req.Type == contract.TypeErase && r.rng.IntN(5) == 0 { // HOLDINGS carrying an ERASE's requestId
		wrong := contract.Response{Type: contract.TypeHoldings, RequestID: req.RequestID, Subscriber: raceStores[2], KeyKind: req.KeyKind, Key: req.Key, Answer: contract.AnswerHoldsNone}
		ms = append(ms, r.mk(wrong, r.senderOf(raceStores[2]), false))
	}
	return ms
}

// deliver runs the readers over the messages concurrently; a reader
// crashes between its write and its delete one time in eight, and the
// message comes back. With sweeping, the sweeper runs beside them.
func (r *raceRun) deliver(ms []message, sweeping bool) {
	r.rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	queue := make(chan message, len(ms)*4)
	for _, m := range ms {
		queue <- m
	}
	var pending sync.WaitGroup
	pending.Add(len(ms))
	crash := make([]bool, len(ms)*4)
	for i := range crash {
		crash[i] = r.rng.IntN(8) == 0
	}
	var cmu sync.Mutex
	ci := 0
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range *raceReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case m := <-queue:
					cmu.Lock()
					crashed := crash[ci%len(crash)]
					ci++
					cmu.Unlock()
					if r.read(m) && crashed { // wrote, then died before its delete: redelivered
						queue <- m
						continue
					}
					pending.Done()
				}
			}
		}()
	}
	if sweeping {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if _, err := r.l.Sweep(r.ctx, r.out); err != nil {
					r.t.Errorf("sweep: %v", err)
				}
			}
		}()
	}
	pending.Wait()
	close(stop)
	wg.Wait()
}

// read hands m to the reader and notes what it recorded; it says whether
// the reader's write went through (a crash after it redelivers m).
func (r *raceRun) read(m message) bool {
	rec, err := r.reader.Handle(r.ctx, m.body, m.sender, m.id)
	if err != nil && !errors.Is(err, ledger.ErrKeep) {
		r.t.Errorf("reader: %v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.authentic {
		if r.results[m.key] == nil {
			r.results[m.key] = map[ledger.Result]int{}
		}
		r.results[m.key][rec.Result]++
	}
	if rec.Result == ledger.Recorded {
		r.counted = append(r.counted, m.key)
		if !m.authentic {
			r.forgedCounted = append(r.forgedCounted, m.key)
		}
	}
	return err == nil
}

// sweepCrashed moves a publisher tick on: the sweeper publishes what
// crashed publishers recorded (a CHECK still inside P), once each, and the
// stores answer. It returns how many publishers crashed.
func (r *raceRun) sweepCrashed(plans []*racePlan) int {
	r.clk.Advance(time.Duration(r.c.PublisherTickSeconds+1) * time.Second)
	rep, err := r.l.Sweep(r.ctx, r.out)
	if err != nil {
		r.t.Fatal(err)
	}
	crashed := 0
	var ms []message
	for _, p := range plans {
		if p.crashed {
			crashed++
			got := r.out.of(p.req.RequestID)
			if len(got) != 1 || got[0].SendNo != p.req.SendNo || got[0].Key != p.req.Key {
				r.t.Errorf("a request recorded by a crashed publisher was published %d times, not once as recorded", len(got))
				continue
			}
			ms = append(ms, r.answers(got[0], p.silent)...)
		}
	}
	if rep.Published != crashed {
		r.t.Errorf("the sweep published %d crashed requests, want %d", rep.Published, crashed)
	}
	r.deliver(ms, false)
	return crashed
}

// expire moves past R: every expired incomplete broadcast is re-broadcast
// (ERASE) or expires (CHECK); the re-broadcasts are answered by every
// store, with late answers to the first broadcast among them.
func (r *raceRun) expire(plans []*racePlan) {
	r.clk.Advance(r.c.ExpiryPeriod())
	if _, err := r.l.Sweep(r.ctx, r.out); err != nil {
		r.t.Fatal(err)
	}
	var ms []message
	for _, p := range plans {
		got := r.out.of(p.req.RequestID)
		incomplete := len(p.silent) > 0
		switch {
		case incomplete && p.req.Type.IsDestructive():
			if len(got) != 2 || got[1].SendNo != p.req.SendNo+1 || !got[1].ExpiresAt.After(p.req.ExpiresAt) || got[1].Key != p.req.Key {
				r.t.Errorf("an expired incomplete ERASE was broadcast %d times; want a re-broadcast with sendNo + 1 and a fresh expiresAt", len(got))
				continue
			}
			ms = append(ms, r.answers(got[1], nil)...)
			for st := range p.silent { // the silent store's late answer to the old round counts for that round only
				ms = append(ms, r.mk(contract.AnswerFor(got[0], st, "DONE"), r.senderOf(st), true))
			}
			p.complete = true
		case incomplete:
			if len(got) != 1 {
				r.t.Errorf("a CHECK round was re-broadcast")
			}
		default:
			p.complete = true
			if len(got) != 1 {
				r.t.Errorf("a complete request was broadcast %d times", len(got))
			}
		}
	}
	r.deliver(ms, true)
	r.clk.Advance(time.Second)
	if rep, err := r.l.Sweep(r.ctx, r.out); err != nil || rep.Errors > 0 {
		r.t.Fatalf("the last sweep: %+v, %v", rep, err)
	}
}

// judge is the oracle: every authentic answer counted once and in the
// table, nothing forged counted, each request complete exactly when every
// roster store answered its latest broadcast, each complete one with a
// receipt in a log that verifies. It returns how many are complete.
func (r *raceRun) judge(db *dynamodb.Client, verifier string, plans []*racePlan) int {
	t := r.t
	if len(r.forgedCounted) > 0 {
		t.Errorf("%d forged, unknown-round or wrong-type answers were counted", len(r.forgedCounted))
	}
	seen := map[string]int{}
	for _, k := range r.counted {
		seen[k]++
	}
	for k, rs := range r.results {
		if seen[k] != 1 {
			t.Errorf("an authentic answer was recorded %d times, want once (results %v)", seen[k], rs)
		}
	}
	table := scanAnswers(t, db, r.l)
	for k := range r.results {
		if _, ok := table[k]; !ok {
			t.Errorf("an authentic answer is not in the table")
		}
	}
	for k := range table {
		if _, ok := r.results[k]; !ok {
			t.Errorf("the table holds an answer nobody authentic sent")
		}
	}
	complete := 0
	for _, p := range plans {
		rec, ok, err := r.l.Get(r.ctx, p.req.RequestID)
		if err != nil || !ok {
			t.Fatalf("a recorded request is gone: %v", err)
		}
		all := true
		for _, st := range raceStores {
			o, ok := table[fmt.Sprintf("%s/%d/%s", p.req.RequestID, rec.SendNo, st)]
			all = all && ok && o != string(contract.AnswerCannotAnswer)
		}
		if (rec.Status == ledger.StatusComplete) != all || all != p.complete {
			t.Errorf("request status %s, every roster store answered its latest broadcast: %v, oracle expects complete: %v", rec.Status, all, p.complete)
		}
		if rec.Status != ledger.StatusComplete {
			continue
		}
		complete++
		if rec.LogIndex < 0 {
			t.Errorf("a complete request has no receipt")
			continue
		}
		v, err := r.l.ReceiptOf(r.ctx, p.req.RequestID, verifier)
		if err != nil {
			t.Errorf("receipt: %v", err)
			continue
		}
		if len(v.Receipt.Stores) != len(raceStores) || v.Receipt.SendNo != rec.SendNo || strings.Contains(string(mustJSON(v.Receipt)), p.req.Key) {
			t.Errorf("a receipt does not hold every store's answer to the completing broadcast, or holds the key")
		}
	}
	lr, err := r.l.Verify(r.ctx, verifier)
	if err != nil || lr.Receipts != complete {
		t.Errorf("the log holds %d receipts for %d complete requests: %v", lr.Receipts, complete, err)
	}
	return complete
}

// scanAnswers reads every ANS item of the table: request/sendNo/store → outcome.
func scanAnswers(t *testing.T, db *dynamodb.Client, l *ledger.Ledger) map[string]string {
	t.Helper()
	out := map[string]string{}
	var start map[string]types.AttributeValue
	for {
		page, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(l.Table()), ExclusiveStartKey: start, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			sk := it["SK"].(*types.AttributeValueMemberS).Value
			if !strings.HasPrefix(sk, "ANS#") {
				continue
			}
			parts := strings.SplitN(sk, "#", 3)
			var sendNo int
			fmt.Sscanf(parts[1], "%d", &sendNo)
			id := strings.TrimPrefix(it["PK"].(*types.AttributeValueMemberS).Value, "REQ#")
			out[fmt.Sprintf("%s/%d/%s", id, sendNo, parts[2])] = it["Outcome"].(*types.AttributeValueMemberS).Value
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		start = page.LastEvaluatedKey
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return out
}
