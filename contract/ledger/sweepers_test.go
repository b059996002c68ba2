package ledger_test

import (
	"context"
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
