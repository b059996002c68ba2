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
	if rep, err := l.Sweep(ctx, &sent{}); err != nil || rep.Receipts != n {
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
