package test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// TestForgedAnswersAreRefusedOnTheLocalChannel runs the example app's stores
// on the emulator behind the gate, which decides every call with the access
// matrix of the example app's synthesized policies. While a real ERASE round
// runs: another principal of either account cannot answer at all
// (AccessDenied, as the deployed queue policy would say); a store's handler
// cannot reach another store's queue; a real store's handler answering for
// another store gets through SQS (its role may answer) but the reader never
// counts it; and the round completes with the real answers only.
func TestForgedAnswersAreRefusedOnTheLocalChannel(t *testing.T) {
	t.Parallel()
	ctx, e, c, ch, gate := exampleChannelBehindGate(t, "forged-")

	logs := &local.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	eraseByAccount := contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAccount}
	// ledger holds nothing of the kind: its own answer is NOT_APPLICABLE,
	// so a counted DONE for it could only be the forged one.
	outcomes := map[string]string{"bitmaps": "DONE", "ledger": "NOT_APPLICABLE", "space": "DONE"}
	handlers := map[string]local.HandlerFunc{}
	for name, outcome := range outcomes {
		impls := map[contract.Pair]storehandler.Func{eraseByAccount: constant(outcome)}
		if outcome == "NOT_APPLICABLE" {
			impls = nil
		}
		h, err := ch.NewHandler(name, impls, local.HandlerOptions{Log: log, Metrics: logs})
		if err != nil {
			t.Fatal(err)
		}
		handlers[name] = h.Handle
	}
	collector := publisher.NewCollector()
	t.Cleanup(ch.Serve(ctx, e.Region, handlers, collector, log))

	pub := publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN, publisher.WithConstants(c))
	erase, err := pub.Erase(ctx, contract.KeyAccount, "acct-forged-1")
	if err != nil {
		t.Fatalf("the account service may publish: %v", err)
	}
	key := publisher.RoundKey{RequestID: erase.RequestID, SendNo: erase.SendNo}
	forged, err := contract.EncodeResponse(contract.AnswerFor(erase, "ledger", "DONE"))
	if err != nil {
		t.Fatal(err)
	}
	send := func(principal, queueURL string) error {
		_, err := ch.As(principal).SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(string(forged))})
		return err
	}
	denied := func(what string, err error) {
		t.Helper()
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
			t.Errorf("%s: want AccessDenied, got %v", what, err)
		}
	}
	for _, p := range []string{"other/111111111111", "other/222222222222"} {
		denied(p+" answers", send(p, ch.ResponseQueue.URL))
	}
	_, err = ch.As(local.HandlerPrincipal("space")).SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(ch.Stores["ledger"].Queue.URL)})
	denied("space's handler reads ledger's queue", err)
	denied("space's handler sends to bitmaps' queue", send(local.HandlerPrincipal("space"), ch.Stores["bitmaps"].Queue.URL))
	_, err = ch.As("other/111111111111").SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(ch.Stores["space"].Queue.URL)})
	denied("another principal of the store's account takes its requests", err)

	// A real store's handler answers for another store: its role may answer,
	// so SQS takes it; the reader refuses it, because SQS names space's
	// handler as the sender of an answer for ledger.
	if err := send(local.HandlerPrincipal("space"), ch.ResponseQueue.URL); err != nil {
		t.Fatalf("space's handler may send to the response queue: %v", err)
	}
	waitFor(t, 10*time.Second, "the reader to refuse the forged answer", func() bool { return ch.RefusedAnswers() > 0 })
	if a, ok := collector.RosterStatus(key).Answered["ledger"]; ok && a.Outcome == contract.OutcomeDone {
		t.Fatal("the forged answer for ledger was counted")
	}
	deadline := time.Now().Add(time.Duration(c.ExpiryPeriodSeconds) * time.Second)
	for !collector.RosterStatus(key).Complete() {
		if time.Now().After(deadline) {
			t.Fatalf("the round did not complete: missing %v; the gate denied %v", collector.RosterStatus(key).Missing, gate.DeniedCalls())
		}
		time.Sleep(100 * time.Millisecond)
	}
	st := collector.RosterStatus(key)
	if strings.Join(collector.Roster(), ",") != "bitmaps,ledger,space" {
		t.Errorf("the collector waits for %v, want the roster", collector.Roster())
	}
	for name, want := range outcomes {
		if got := string(st.Answered[name].Outcome); got != want {
			t.Errorf("%s: counted %s, want its own handler's %s", name, got, want)
		}
	}
	if gate.Denied() < 5 {
		t.Errorf("the gate denied %d calls, want at least the 5 forged ones", gate.Denied())
	}
	if !strings.Contains(logs.String(), contract.CodeSenderNotOnRoster) {
		t.Error("no SENDER_NOT_ON_ROSTER line in the log")
	}
	assertNoLeak(t, logs.String(), erase)
}

// exampleChannelBehindGate creates the example app's three stores' queues on
// the shared emulator (names prefixed) behind a gate that decides with the
// example app's access matrix.
func exampleChannelBehindGate(t *testing.T, prefix string) (context.Context, *emulator.Emulator, contract.Constants, *local.Channel, *local.Gate) {
	t.Helper()
	defaultApp(t)
	matrix, err := erasurecheck.Access([]string{defaultDir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e := sharedEmulator(t)
	c := scaledConstants(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	spec := local.Spec{Prefix: prefix, Constants: c}
	for _, n := range []string{"bitmaps", "ledger", "space"} {
		spec.Stores = append(spec.Stores, local.StoreSpec{Name: n, Settings: timing.Defaults(c)})
	}
	ch, err := local.Create(ctx, local.NewClients(e.Endpoint, e.Region), spec)
	if err != nil {
		t.Fatal(err)
	}
	gate, err := local.StartGate(e.Endpoint, matrix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gate.Close() })
	ch.Guard(gate, e.Region)
	return ctx, e, c, ch, gate
}
