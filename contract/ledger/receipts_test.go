package ledger_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// completeSome records, answers and sweeps n ERASE requests to completion.
func completeSome(t *testing.T, l *ledger.Ledger, clk *clock, n int) []string {
	t.Helper()
	ids := answerAll(t, l, clk, n)
	if rep, err := l.Sweep(context.Background(), &sent{}); err != nil || rep.Receipts != n {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
	return ids
}

// TestReceiptLogDetectsTampering verifies a log of receipts, then changes one
// receipt in the table and shows verification fails; so do a removed record
// and a head signed by another key.
func TestReceiptLogDetectsTampering(t *testing.T) {
	ctx := context.Background()
	db := dynamo(t)
	clk := newClock()
	l, verifier := newLedger(t, db, clk.Now)
	ids := completeSome(t, l, clk, 7)
	rep, err := l.Verify(ctx, verifier)
	if err != nil || rep.Receipts != 7 {
		t.Fatalf("an untouched log: %+v %v", rep, err)
	}
	v, err := l.ReceiptOf(ctx, ids[3], verifier)
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.KeyDigest == "" || strings.Contains(string(mustJSON(v.Receipt)), "acct-receipt") {
		t.Fatal("a receipt holds the key, or no keyed digest of it")
	}
	if v.Receipt.KeyDigest != l.KeyDigest(contract.KeyAccount, "acct-receipt") {
		t.Fatal("the receipt's digest is not the ledger's keyed hash of the key")
	}
	for _, st := range v.Receipt.Stores {
		if st.Outcome != "DONE" || !strings.Contains(st.Sender, ":erasure-handler-") || (st.Subscriber == "bitmaps") != (st.LingeringDays == 30) {
			t.Fatalf("a store's line of the receipt is wrong: %+v", st)
		}
	}
	_, otherVerifier, _ := ledger.GenerateLogKey("erasure-ledger-test")
	if _, err := l.Verify(ctx, otherVerifier); err == nil {
		t.Error("a head checked against another key verified")
	}

	// Change one receipt: a store's outcome.
	k := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "LOG"}, "SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("REC#%012d", v.Index)}}
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(l.Table()), Key: k})
	if err != nil {
		t.Fatal(err)
	}
	data := got.Item["Data"].(*types.AttributeValueMemberS).Value
	forged := bytes.Replace([]byte(data), []byte(`"outcome":"DONE"`), []byte(`"outcome":"NOT_APPLICABLE"`), 1)
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.Table()), Item: map[string]types.AttributeValue{
		"PK": k["PK"], "SK": k["SK"], "Data": &types.AttributeValueMemberS{Value: string(forged)}, "RequestId": got.Item["RequestId"]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Verify(ctx, verifier); err == nil || !strings.Contains(err.Error(), "LOG_TAMPERED") {
		t.Fatalf("a changed receipt verified: %v", err)
	}
	// And its MAC no longer holds: the ledger did not write what it now says.
	if _, err := l.VerifyWith(ctx, verifier, ledger.VerifyOptions{Authenticate: true}); err == nil || !strings.Contains(err.Error(), "LOG_FORGED") {
		t.Fatalf("a changed receipt authenticated: %v", err)
	}
	if _, err := l.ReceiptOf(ctx, ids[3], verifier); err == nil {
		t.Fatal("a changed receipt proved into the signed head")
	}
	// Put it back, and remove another.
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.Table()), Item: got.Item}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Verify(ctx, verifier); err != nil {
		t.Fatalf("the restored log: %v", err)
	}
	k["SK"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("REC#%012d", (v.Index+2)%7)}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(l.Table()), Key: k}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Verify(ctx, verifier); err == nil {
		t.Fatal("a log with a removed receipt verified")
	}
}

// logItem reads one item of the log's partition through the DynamoDB API.
func logItem(t *testing.T, db *dynamodb.Client, table, sk string) map[string]types.AttributeValue {
	t.Helper()
	got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "LOG"}, "SK": &types.AttributeValueMemberS{Value: sk}}})
	if err != nil {
		t.Fatal(err)
	}
	return got.Item
}

func putItem(t *testing.T, db *dynamodb.Client, table string, it map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func headSize(t *testing.T, db *dynamodb.Client, table string) string {
	t.Helper()
	return logItem(t, db, table, "HEAD")["TreeSize"].(*types.AttributeValueMemberN).Value
}

// TestReceiptLogRefusesWhatTheLedgerDidNotWrite: someone who can write the
// table puts a receipt record at the log's next index, freshly made or copied
// with another record's MAC; the next append refuses it (LOG_FORGED) instead
// of signing it, the log stops growing, and it grows again once the record is
// removed.
func TestReceiptLogRefusesWhatTheLedgerDidNotWrite(t *testing.T) {
	for _, name := range []string{"without a MAC", "with another record's MAC"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := dynamo(t)
			clk := newClock()
			l, verifier := newLedger(t, db, clk.Now)
			completeSome(t, l, clk, 4)
			first := logItem(t, db, l.Table(), "REC#000000000000")
			forged := map[string]types.AttributeValue{"Data": first["Data"], "RequestId": first["RequestId"], "Mac": first["Mac"]}
			if name == "without a MAC" {
				forged = map[string]types.AttributeValue{"RequestId": first["RequestId"], "Data": &types.AttributeValueMemberS{
					Value: strings.Replace(first["Data"].(*types.AttributeValueMemberS).Value, `"outcome":"DONE"`, `"outcome":"NOT_APPLICABLE"`, -1)}}
			}
			forged["PK"], forged["SK"] = &types.AttributeValueMemberS{Value: "LOG"}, &types.AttributeValueMemberS{Value: fmt.Sprintf("REC#%012d", 4)}
			putItem(t, db, l.Table(), forged)
			ids := answerAll(t, l, clk, 1)
			rep, err := l.Sweep(ctx, &sent{})
			if err != nil || rep.Errors != 1 || rep.LastError == nil || !strings.Contains(rep.LastError.Error(), "LOG_FORGED") {
				t.Fatalf("the sweep over a forged record: %+v %v", rep, err)
			}
			if got := headSize(t, db, l.Table()); got != "4" {
				t.Fatalf("the log's head moved to %s over a forged record", got)
			}
			if _, err := l.ReceiptOf(ctx, ids[0], verifier); err == nil {
				t.Fatal("a request got a receipt while the log held a forged record")
			}
			if _, err := l.VerifyWith(ctx, verifier, ledger.VerifyOptions{Authenticate: true}); err == nil {
				t.Fatal("a log holding a forged record verified")
			}
			// The operator removes it: the log grows again.
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(l.Table()), Key: map[string]types.AttributeValue{"PK": forged["PK"], "SK": forged["SK"]}}); err != nil {
				t.Fatal(err)
			}
			if rep, err := l.Sweep(ctx, &sent{}); err != nil || rep.Receipts != 1 {
				t.Fatalf("the sweep after the forged record's removal: %+v %v", rep, err)
			}
			if _, err := l.ReceiptOf(ctx, ids[0], verifier); err != nil {
				t.Fatal(err)
			}
			if rep, err := l.VerifyWith(ctx, verifier, ledger.VerifyOptions{Authenticate: true}); err != nil || rep.Receipts != 5 {
				t.Fatalf("the log after the removal: %+v %v", rep, err)
			}
		})
	}
}

// TestReceiptLogDetectsRollback: a head restored from an older backup, with
// the newer records deleted, fails verification against the head a verifier
// kept (a tlog consistency proof), and even without it, because a completed
// request's receipt index lies past the head.
func TestReceiptLogDetectsRollback(t *testing.T) {
	ctx := context.Background()
	db := dynamo(t)
	clk := newClock()
	l, verifier := newLedger(t, db, clk.Now)
	completeSome(t, l, clk, 3)
	older := logItem(t, db, l.Table(), "HEAD")
	completeSome(t, l, clk, 2)
	rep, err := l.Verify(ctx, verifier)
	if err != nil || rep.Receipts != 5 || rep.Completed != 5 || rep.Head == "" {
		t.Fatalf("the untouched log: %+v %v", rep, err)
	}
	trusted := rep.Head
	if _, err := l.VerifyWith(ctx, verifier, ledger.VerifyOptions{TrustedHead: trusted}); err != nil {
		t.Fatalf("the log against its own head: %v", err)
	}
	putItem(t, db, l.Table(), older)
	for _, i := range []int{3, 4} {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(l.Table()), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "LOG"}, "SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("REC#%012d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.VerifyWith(ctx, verifier, ledger.VerifyOptions{TrustedHead: trusted}); err == nil || !strings.Contains(err.Error(), "LOG_ROLLED_BACK") {
		t.Fatalf("a rolled-back log against the trusted head: %v", err)
	}
	if _, err := l.Verify(ctx, verifier); err == nil || !strings.Contains(err.Error(), "LOG_ROLLED_BACK") {
		t.Fatalf("a rolled-back log without a trusted head: %v", err)
	}
}

// TestAnswersExpireAfterTheReceipt: once a request's receipt is in the log,
// its rounds and answers carry the table's TTL, ledgerAnswerRetentionDays on;
// the request item and the receipt log carry none, and the receipt still
// proves. Read back through the DynamoDB API.
func TestAnswersExpireAfterTheReceipt(t *testing.T) {
	ctx := context.Background()
	db := dynamo(t)
	clk := newClock()
	l, verifier := newLedger(t, db, clk.Now)
	// A request still open (no answer yet): nothing of it expires.
	req := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now)).NewErase(contract.KeyAccount, "acct-open")
	if _, err := l.Publish(ctx, &sent{}, req, []string{"space", "bitmaps"}); err != nil {
		t.Fatal(err)
	}
	open := req.RequestID
	want := fmt.Sprint(clk.Now().Add(contract.Channel().LedgerAnswerRetention()).Unix())
	ids := completeSome(t, l, clk, 2)
	page, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(l.Table()), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	expiring := 0
	for _, it := range page.Items {
		pk, sk := it["PK"].(*types.AttributeValueMemberS).Value, it["SK"].(*types.AttributeValueMemberS).Value
		e, has := it[ledger.ExpireAttribute].(*types.AttributeValueMemberN)
		swept := pk != "REQ#"+open
		switch {
		case strings.HasPrefix(pk, "REQ#") && (strings.HasPrefix(sk, "ROUND#") || strings.HasPrefix(sk, "ANS#")) && swept:
			if !has || e.Value != want {
				t.Errorf("%s of a request with its receipt: %s %v, want %s", sk, ledger.ExpireAttribute, e, want)
			}
			expiring++
		case has:
			t.Errorf("%s %s expires: only a receipted request's rounds and answers may", pk[:4], sk)
		}
	}
	if expiring != 2*(1+2) { // two requests, each one round and two answers
		t.Errorf("%d items expiring, want 6", expiring)
	}
	for _, id := range ids {
		if _, err := l.ReceiptOf(ctx, id, verifier); err != nil {
			t.Fatal(err)
		}
	}
}
