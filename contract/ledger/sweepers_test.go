package ledger_test

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

var sweepersSeed = flag.Uint64("ledger.sweepers.seed", 1, "seed of TestConcurrentSweepersAppendOneReceiptEach")

// answerAll records n ERASE requests and every roster store's DONE, leaving
// them complete and unswept.
func answerAll(t *testing.T, l *ledger.Ledger, clk *clock, n int) []string {
	t.Helper()
	ctx := context.Background()
	pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now))
	roster := publisher.Roster{"space": roleOf("space"), "bitmaps": roleOf("bitmaps")}
	r := &ledger.Reader{Ledger: l, Roster: roster}
	var ids []string
	for i := 0; i < n; i++ {
		req := pub.NewErase(contract.KeyAccount, "acct-receipt")
		if _, err := l.Publish(ctx, &sent{}, req, roster.Stores()); err != nil {
			t.Fatal(err)
		}
		for _, st := range roster.Stores() {
			b, _ := contract.EncodeResponse(contract.AnswerFor(req, st, "DONE"))
			if _, err := r.Handle(ctx, b, contract.HandlerSenderID(roster[st].RoleID, roster[st].Session), req.RequestID+st); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, req.RequestID)
	}
	return ids
}

// receiptsByRequest reads the log's records through the DynamoDB API: the
// oracle counts them itself, not through the ledger.
func receiptsByRequest(t *testing.T, db *dynamodb.Client, table string) map[string]int {
	t.Helper()
	out := map[string]int{}
	var start map[string]types.AttributeValue
	for {
		page, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			KeyConditionExpression: aws.String("PK = :p AND begins_with(SK, :r)"), ExclusiveStartKey: start,
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "LOG"}, ":r": &types.AttributeValueMemberS{Value: "REC#"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out[it["RequestId"].(*types.AttributeValueMemberS).Value]++
		}
		if start = page.LastEvaluatedKey; start == nil {
			return out
		}
	}
}

// TestConcurrentSweepersAppendOneReceiptEach: several sweepers (2 to 5, at
// random) run at once over the same completed requests, over several rounds;
// the log holds exactly one receipt per completed request, read back through
// the DynamoDB API, and verifies.
func TestConcurrentSweepersAppendOneReceiptEach(t *testing.T) {
	ctx := context.Background()
	db := dynamo(t)
	rng := rand.New(rand.NewPCG(*sweepersSeed, 31))
	for round := 0; round < 4; round++ {
		clk := newClock()
		l, verifier := newLedger(t, db, clk.Now)
		ids := answerAll(t, l, clk, 8+rng.IntN(12))
		sweepers := 2 + rng.IntN(4)
		var wg sync.WaitGroup
		errs := make(chan error, sweepers)
		for i := 0; i < sweepers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := l.Sweep(ctx, &sent{}); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: a sweeper failed: %v", round, err)
		}
		// A last sweep finishes whatever a contended one left.
		if _, err := l.Sweep(ctx, &sent{}); err != nil {
			t.Fatal(err)
		}
		got := receiptsByRequest(t, db, l.Table())
		for _, id := range ids {
			if got[id] != 1 {
				t.Errorf("round %d (%d sweepers): a completed request has %d receipts, want 1", round, sweepers, got[id])
			}
		}
		if len(got) != len(ids) {
			t.Errorf("round %d: receipts of %d requests, %d completed", round, len(got), len(ids))
		}
		if rep, err := l.Verify(ctx, verifier); err != nil || rep.Receipts != len(ids) {
			t.Errorf("round %d: the log: %+v %v", round, rep, err)
		}
	}
}

var errCrashed = errors.New("the sweeper's process died")

// crashingDB is one sweeper's view of the table that dies after budget calls:
// from then on every call fails, and the call it dies on has already been
// applied when applied is set (a crash after the write, before its answer).
type crashingDB struct {
	ledger.API
	mu      sync.Mutex
	budget  int
	applied bool
}

func (c *crashingDB) alive() (ok, apply bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget--
	if c.budget >= 0 {
		return true, true
	}
	return false, c.budget == -1 && c.applied
}

func (c *crashingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	ok, apply := c.alive()
	if !ok {
		if apply {
			_, _ = c.API.PutItem(ctx, in, o...)
		}
		return nil, errCrashed
	}
	return c.API.PutItem(ctx, in, o...)
}

func (c *crashingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	ok, apply := c.alive()
	if !ok {
		if apply {
			_, _ = c.API.UpdateItem(ctx, in, o...)
		}
		return nil, errCrashed
	}
	return c.API.UpdateItem(ctx, in, o...)
}

func (c *crashingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if ok, _ := c.alive(); !ok {
		return nil, errCrashed
	}
	return c.API.GetItem(ctx, in, o...)
}

func (c *crashingDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if ok, _ := c.alive(); !ok {
		return nil, errCrashed
	}
	return c.API.Query(ctx, in, o...)
}

// TestCrashingSweepersAppendOneReceiptEach: sweepers run at once over the
// same completed requests and die at random points of their appends (before a
// write, or after it was applied and before its answer); healthy sweeps then
// finish what they left. Every completed request ends with exactly one
// receipt, read back through the DynamoDB API, in a log whose records are all
// the ledger's and whose head verifies.
func TestCrashingSweepersAppendOneReceiptEach(t *testing.T) {
	ctx := context.Background()
	db := dynamo(t)
	rng := rand.New(rand.NewPCG(*sweepersSeed, 32))
	for round := 0; round < 4; round++ {
		clk := newClock()
		healthy, verifier := newLedger(t, db, clk.Now)
		ids := answerAll(t, healthy, clk, 6+rng.IntN(10))
		var wg sync.WaitGroup
		crashers := 2 + rng.IntN(4)
		for i := 0; i < crashers; i++ {
			cdb := &crashingDB{API: db, budget: rng.IntN(120), applied: rng.IntN(2) == 0}
			l := healthy.WithAPI(cdb)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = l.Sweep(ctx, &sent{}) // it dies part way: its error is the crash
			}()
		}
		wg.Wait()
		for range 3 {
			if _, err := healthy.Sweep(ctx, &sent{}); err != nil {
				t.Fatal(err)
			}
		}
		got := receiptsByRequest(t, db, healthy.Table())
		for _, id := range ids {
			if got[id] != 1 {
				t.Errorf("round %d (%d crashing sweepers): a completed request has %d receipts, want 1", round, crashers, got[id])
			}
		}
		if rep, err := healthy.VerifyWith(ctx, verifier, ledger.VerifyOptions{Authenticate: true}); err != nil || rep.Receipts != len(ids) || rep.Completed != len(ids) {
			t.Errorf("round %d: the log: %+v %v", round, rep, err)
		}
	}
}
