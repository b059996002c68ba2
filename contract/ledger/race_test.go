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
	ctx := context.Background()
	db := dynamo(t)
	clk := newClock()
	l, verifier := newLedger(t, db, clk.Now)
	rng := rand.New(rand.NewPCG(*raceSeed, 2))
	roster := publisher.Roster{}
	for _, st := range raceStores {
		roster[st] = roleOf(st)
	}
	reader := &ledger.Reader{Ledger: l, Roster: roster}
	pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now))
	out := &sent{}
	c := contract.Channel()

	type plan struct {
		req      contract.Request
		crashed  bool            // the publisher crashed after the record
		silent   map[string]bool // stores that miss the first broadcast
		complete bool            // the oracle's expectation
	}
	var plans []*plan
	for i := 0; i < *raceRequests; i++ {
		var req contract.Request
		if i%4 == 3 {
			var err error
			if req, err = pub.NewRound(publisher.Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: fmt.Sprintf("acct-%04d", i), CreatedAt: clk.Now()}); err != nil {
				t.Fatal(err)
			}
		} else {
			req = pub.NewErase(contract.KeyAccount, fmt.Sprintf("acct-%04d", i))
		}
		p := &plan{req: req, crashed: rng.IntN(8) == 0, silent: map[string]bool{}}
		if rng.IntN(3) == 0 {
			p.silent[raceStores[rng.IntN(len(raceStores))]] = true
		}
		if p.crashed {
			if err := l.Record(ctx, req, raceStores, clk.Now()); err != nil {
				t.Fatal(err)
			}
		} else if _, err := l.Publish(ctx, out, req, raceStores); err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}

	var mu sync.Mutex
	results := map[string]map[ledger.Result]int{} // by authentic key
	var counted, forgedCounted []string
	outcomeOf := func(t contract.MessageType, done bool) string {
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
	msgNo := 0
	mk := func(resp contract.Response, sender string, authentic bool) message {
		b, err := contract.EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		msgNo++
		o := string(resp.Outcome) + string(resp.Answer)
		return message{body: b, sender: sender, id: fmt.Sprintf("m-%06d", msgNo), authentic: authentic,
			key: fmt.Sprintf("%s/%d/%s", resp.RequestID, resp.SendNo, resp.Subscriber), outcome: o}
	}
	// answers builds the messages for one broadcast, with the faults.
	answers := func(req contract.Request, skip map[string]bool) []message {
		var ms []message
		for _, st := range raceStores {
			if skip[st] {
				continue
			}
			resp := contract.AnswerFor(req, st, outcomeOf(req.Type, rng.IntN(2) == 0))
			m := mk(resp, contract.HandlerSenderID(roster[st].RoleID, roster[st].Session), true)
			ms = append(ms, m)
			for range rng.IntN(3) { // duplicates: another publish of the same answer
				d := m
				d.id = fmt.Sprintf("%s-dup%d", m.id, rng.IntN(1000))
				ms = append(ms, d)
			}
			if rng.IntN(10) == 0 { // a store that changed its answer: a conflict, the first stands
				other := contract.AnswerFor(req, st, outcomeOf(req.Type, resp.Outcome != contract.OutcomeDone && resp.Answer != contract.AnswerHoldsNone))
				ms = append(ms, mk(other, m.sender, true))
			}
			if rng.IntN(6) == 0 { // forged: a right-looking answer from a sender off the roster
				ms = append(ms, mk(resp, "AROAFORGEDFORGED0001:"+roster[st].Session, false))
			}
		}
		if rng.IntN(5) == 0 { // an unknown request
			fake := req
			fake.RequestID = "ffffffff-ffff-4fff-8fff-" + fmt.Sprintf("%012d", rng.IntN(1e9))
			ms = append(ms, mk(contract.AnswerFor(fake, raceStores[0], outcomeOf(req.Type, true)), contract.HandlerSenderID(roster[raceStores[0]].RoleID, roster[raceStores[0]].Session), false))
		}
		if req.Type.IsDestructive() && rng.IntN(5) == 0 { // a round never broadcast
			future := req
			future.SendNo = req.SendNo + 3
			ms = append(ms, mk(contract.AnswerFor(future, raceStores[1], "DONE"), contract.HandlerSenderID(roster[raceStores[1]].RoleID, roster[raceStores[1]].Session), false))
		}
		if req.Type == contract.TypeErase && rng.IntN(5) == 0 { // HOLDINGS carrying an ERASE's requestId
			wrong := contract.Response{Type: contract.TypeHoldings, RequestID: req.RequestID, Subscriber: raceStores[2], KeyKind: req.KeyKind, Key: req.Key, Answer: contract.AnswerHoldsNone}
			ms = append(ms, mk(wrong, contract.HandlerSenderID(roster[raceStores[2]].RoleID, roster[raceStores[2]].Session), false))
		}
		return ms
	}
	// deliver runs the readers over the messages concurrently; a reader
	// crashes between its write and its delete one time in eight, and the
	// message comes back.
	deliver := func(ms []message, sweeping bool) {
		rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		queue := make(chan message, len(ms)*4)
		for _, m := range ms {
			queue <- m
		}
		var pending sync.WaitGroup
		pending.Add(len(ms))
		crash := make([]bool, len(ms)*4)
		for i := range crash {
			crash[i] = rng.IntN(8) == 0
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
						rec, err := reader.Handle(ctx, m.body, m.sender, m.id)
						cmu.Lock()
						crashed := crash[ci%len(crash)]
						ci++
						cmu.Unlock()
						if err != nil && !errors.Is(err, ledger.ErrKeep) {
							t.Errorf("reader: %v", err)
						}
						mu.Lock()
						if m.authentic {
							if results[m.key] == nil {
								results[m.key] = map[ledger.Result]int{}
							}
							results[m.key][rec.Result]++
						}
						if rec.Result == ledger.Recorded {
							counted = append(counted, m.key)
							if !m.authentic {
								forgedCounted = append(forgedCounted, m.key)
							}
						}
						mu.Unlock()
						if crashed && err == nil { // wrote, then died before its delete: redelivered
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
					if _, err := l.Sweep(ctx, out); err != nil {
						t.Errorf("sweep: %v", err)
					}
				}
			}()
		}
		pending.Wait()
		close(stop)
		wg.Wait()
	}

	// Round 1: every published request's first broadcast, some stores silent.
	var ms []message
	for _, p := range plans {
		if !p.crashed {
			ms = append(ms, answers(p.req, p.silent)...)
		}
	}
	deliver(ms, true)

	// A publisher tick on: the sweeper publishes what crashed publishers
	// recorded (a CHECK still inside P).
	clk.Advance(time.Duration(c.PublisherTickSeconds+1) * time.Second)
	rep, err := l.Sweep(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	crashed := 0
	ms = nil
	for _, p := range plans {
		if p.crashed {
			crashed++
			got := out.of(p.req.RequestID)
			if len(got) != 1 || got[0].SendNo != p.req.SendNo || got[0].Key != p.req.Key {
				t.Errorf("a request recorded by a crashed publisher was published %d times, not once as recorded", len(got))
				continue
			}
			ms = append(ms, answers(got[0], p.silent)...)
		}
	}
	if rep.Published != crashed {
		t.Errorf("the sweep published %d crashed requests, want %d", rep.Published, crashed)
	}
	deliver(ms, false)

	// After R: every expired incomplete broadcast is re-broadcast (ERASE) or
	// expires (CHECK); the re-broadcasts are answered by every store, with
	// late answers to the first broadcast among them.
	clk.Advance(c.ExpiryPeriod())
	if _, err := l.Sweep(ctx, out); err != nil {
		t.Fatal(err)
	}
	ms = nil
	for _, p := range plans {
		got := out.of(p.req.RequestID)
		incomplete := len(p.silent) > 0
		switch {
		case incomplete && p.req.Type.IsDestructive():
			if len(got) != 2 || got[1].SendNo != p.req.SendNo+1 || !got[1].ExpiresAt.After(p.req.ExpiresAt) || got[1].Key != p.req.Key {
				t.Errorf("an expired incomplete ERASE was broadcast %d times; want a re-broadcast with sendNo + 1 and a fresh expiresAt", len(got))
				continue
			}
			ms = append(ms, answers(got[1], nil)...)
			for st := range p.silent { // the silent store's late answer to the old round counts for that round only
				ms = append(ms, mk(contract.AnswerFor(got[0], st, "DONE"), contract.HandlerSenderID(roster[st].RoleID, roster[st].Session), true))
			}
			p.complete = true
		case incomplete:
			if len(got) != 1 {
				t.Errorf("a CHECK round was re-broadcast")
			}
		default:
			p.complete = true
			if len(got) != 1 {
				t.Errorf("a complete request was broadcast %d times", len(got))
			}
		}
	}
	deliver(ms, true)
	clk.Advance(time.Second)
	if rep, err := l.Sweep(ctx, out); err != nil || rep.Errors > 0 {
		t.Fatalf("the last sweep: %+v, %v", rep, err)
	}

	// The oracle, read through the DynamoDB API.
	mu.Lock()
	defer mu.Unlock()
	if len(forgedCounted) > 0 {
		t.Errorf("%d forged, unknown-round or wrong-type answers were counted", len(forgedCounted))
	}
	seen := map[string]int{}
	for _, k := range counted {
		seen[k]++
	}
	for k, rs := range results {
		if seen[k] != 1 {
			t.Errorf("an authentic answer was recorded %d times, want once (results %v)", seen[k], rs)
		}
	}
	table := scanAnswers(t, db, l)
	for k := range results {
		if _, ok := table[k]; !ok {
			t.Errorf("an authentic answer is not in the table")
		}
	}
	for k := range table {
		if _, ok := results[k]; !ok {
			t.Errorf("the table holds an answer nobody authentic sent")
		}
	}
	complete := 0
	for _, p := range plans {
		r, ok, err := l.Get(ctx, p.req.RequestID)
		if err != nil || !ok {
			t.Fatalf("a recorded request is gone: %v", err)
		}
		all := true
		for _, st := range raceStores {
			o, ok := table[fmt.Sprintf("%s/%d/%s", p.req.RequestID, r.SendNo, st)]
			all = all && ok && o != string(contract.AnswerCannotAnswer)
		}
		if (r.Status == ledger.StatusComplete) != all || all != p.complete {
			t.Errorf("request status %s, every roster store answered its latest broadcast: %v, oracle expects complete: %v", r.Status, all, p.complete)
		}
		if r.Status == ledger.StatusComplete {
			complete++
			if r.LogIndex < 0 {
				t.Errorf("a complete request has no receipt")
				continue
			}
			v, err := l.ReceiptOf(ctx, p.req.RequestID, verifier)
			if err != nil {
				t.Errorf("receipt: %v", err)
				continue
			}
			if len(v.Receipt.Stores) != len(raceStores) || v.Receipt.SendNo != r.SendNo || strings.Contains(string(mustJSON(v.Receipt)), p.req.Key) {
				t.Errorf("a receipt does not hold every store's answer to the completing broadcast, or holds the key")
			}
		}
	}
	lr, err := l.Verify(ctx, verifier)
	if err != nil || lr.Receipts != complete {
		t.Errorf("the log holds %d receipts for %d complete requests: %v", lr.Receipts, complete, err)
	}
	if testing.Verbose() {
		kinds := map[ledger.Result]int{}
		for _, rs := range results {
			for r, n := range rs {
				kinds[r] += n
			}
		}
		t.Logf("seed %d: %d requests (%d crashed publishers), %d complete, %d authentic answers, results %v", *raceSeed, len(plans), crashed, complete, len(results), kinds)
	}
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
