package test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/internal/localledger"
)

// tableItems queries the ledger's table for one partition key (and sort-key
// prefix) through the DynamoDB API: the oracle reads the table itself, not the
// ledger.
func tableItems(t *testing.T, db *dynamodb.Client, pk, skPrefix string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(localledger.LedgerTable), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :p AND begins_with(SK, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}, ":s": &types.AttributeValueMemberS{Value: skPrefix}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// TestTheLocalChannelCountsOnlyWhatTheLedgerRecorded runs the local channel
// as erasurectl local does (the ledger as the reader's sink) behind the gate.
// A real store's handler, authenticated as itself, sends two answers the
// ledger refuses while a real ERASE round runs: one to a broadcast (sendNo)
// never published, and a HOLDINGS carrying the ERASE's requestId. The reader
// deletes both and counts neither: what the collector shows for every round
// is exactly what the ledger's table holds, read through the DynamoDB API,
// and the table holds both refusals with their codes.
func TestTheLocalChannelCountsOnlyWhatTheLedgerRecorded(t *testing.T) {
	t.Parallel()
	ctx, e, c, ch, _ := exampleChannelBehindGate(t, "ledgered-")
	led, err := localledger.StartLedger(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(led.Stop)
	db := led.Emulator.Client()

	logs := &local.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	eraseByAccount := contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAccount}
	handlers := map[string]local.HandlerFunc{}
	roster := []string{"bitmaps", "ledger", "space"}
	for _, name := range roster {
		h, err := ch.NewHandler(name, map[contract.Pair]storehandler.Func{eraseByAccount: constant("DONE")}, local.HandlerOptions{Log: log, Metrics: logs})
		if err != nil {
			t.Fatal(err)
		}
		handlers[name] = h.Handle
	}
	collector := publisher.NewCollector()
	t.Cleanup(ch.ServeWith(ctx, e.Region, handlers, collector, led.Sink, log))

	pub := publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN, publisher.WithConstants(c))
	erase, err := led.Publish(ctx, pub, pub.NewErase(contract.KeyAccount, "acct-ledgered-1"), roster)
	if err != nil {
		t.Fatal(err)
	}
	unpublished := erase
	unpublished.SendNo = erase.SendNo + 6
	holdings := contract.Response{Type: contract.TypeHoldings, RequestID: erase.RequestID, Subscriber: "space",
		KeyKind: erase.KeyKind, Key: erase.Key, Answer: contract.AnswerHoldsNone}
	for _, resp := range []contract.Response{contract.AnswerFor(unpublished, "space", "DONE"), holdings} {
		b, err := contract.EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ch.As(local.HandlerPrincipal("space")).SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ch.ResponseQueue.URL), MessageBody: aws.String(string(b))}); err != nil {
			t.Fatalf("space's handler may answer: %v", err)
		}
	}
	refusals := func() map[string]int {
		out := map[string]int{}
		for _, it := range tableItems(t, db, "REFUSED#"+time.Now().UTC().Format("2006-01-02"), "") {
			out[it["Code"].(*types.AttributeValueMemberS).Value]++
		}
		return out
	}
	waitFor(t, 30*time.Second, "the ledger to refuse both answers", func() bool {
		r := refusals()
		return r[contract.CodeUnknownRound] == 1 && r[contract.CodeWrongType] == 1
	})
	key := publisher.RoundKey{RequestID: erase.RequestID, SendNo: erase.SendNo}
	waitFor(t, time.Duration(c.ExpiryPeriodSeconds)*time.Second, "the round to complete", func() bool { return collector.RosterStatus(key).Complete() })

	// The collector against the table, round by round.
	for _, k := range []publisher.RoundKey{key, {RequestID: erase.RequestID, SendNo: unpublished.SendNo}, {RequestID: erase.RequestID}} {
		counted := collector.Status(k, roster).Answered
		recorded := map[string]string{}
		if k.SendNo > 0 {
			for _, it := range tableItems(t, db, "REQ#"+erase.RequestID, fmt.Sprintf("ANS#%04d#", k.SendNo)) {
				recorded[it["SK"].(*types.AttributeValueMemberS).Value[len("ANS#0000#"):]] = it["Outcome"].(*types.AttributeValueMemberS).Value
			}
		}
		if len(counted) != len(recorded) {
			t.Errorf("round %+v: the collector counts %d answers, the ledger's table holds %d", k, len(counted), len(recorded))
		}
		for store, a := range counted {
			if recorded[store] != string(a.Outcome) {
				t.Errorf("round %+v: the collector counts %s's %s, the ledger's table holds %q", k, store, a.Outcome, recorded[store])
			}
		}
	}
	if r := refusals(); r[contract.CodeUnknownRound] != 1 || r[contract.CodeWrongType] != 1 || len(r) != 2 {
		t.Errorf("the ledger's refusals: %v", r)
	}
	assertNoLeak(t, logs.String(), erase)
}
