package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// TestPublishAndWatch: publish reaches a store queue on the emulator, and
// watch exits 0 once every expected subscriber has answered that round.
func TestPublishAndWatch(t *testing.T) {
	ctx := context.Background()
	e, err := emulator.Start(ctx, emulator.Options{Root: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	c := contract.Channel()
	cl := local.NewClients(e.Endpoint, e.Region)
	ch, err := local.Create(ctx, cl, local.Spec{Constants: c, Stores: []local.StoreSpec{{Name: "space", Settings: timing.Defaults(c)}}})
	if err != nil {
		t.Fatal(err)
	}
	r := erasurectl(t, nil, "--json", "publish", "erase", "--endpoint-url", e.Endpoint, "--region", e.Region,
		"--topic-arn", ch.TopicARN, "--key-kind", "ADDRESS", "--key", "Jane@Example.com")
	var pub published
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &pub) != nil || pub.SendNo != 1 || pub.Type != "erasure/ERASE" {
		t.Fatalf("publish exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	out, err := cl.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(ch.Stores["space"].Queue.URL), WaitTimeSeconds: 2})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("store queue: %v", err)
	}
	req, err := contract.ParseRequest([]byte(aws.ToString(out.Messages[0].Body)))
	if err != nil || req.RequestID != pub.RequestID || req.Key != "jane@example.com" {
		t.Fatalf("published request %v", err)
	}
	text := erasurectl(t, nil, "publish", "check", "--endpoint-url", e.Endpoint, "--region", e.Region, "--topic-arn", ch.TopicARN, "--key", "acct-1")
	if text.code != exitOK || strings.Contains(text.stdout, "acct-1") {
		t.Fatalf("text publish: %d %q", text.code, text.stdout)
	}

	// An answer from space, then watch waits for it.
	body, _ := contract.EncodeResponse(contract.AnswerFor(req, "space", "DONE"))
	if _, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ch.ResponseQueue.URL), MessageBody: aws.String(string(body))}); err != nil {
		t.Fatal(err)
	}
	w := erasurectl(t, nil, "watch", "--endpoint-url", e.Endpoint, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
		"--request-id", pub.RequestID, "--send-no", "1", "--expect", "space", "--timeout", "20s")
	if w.code != exitOK || !strings.Contains(w.stdout, "space") || !strings.Contains(w.stdout, "DONE") || strings.Contains(w.stdout, pub.RequestID) {
		t.Fatalf("watch exit %d: %q %s", w.code, w.stdout, w.stderr)
	}
	// A subscriber that never answers: exit 1, naming it.
	m := erasurectl(t, nil, "watch", "--endpoint-url", e.Endpoint, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
		"--request-id", pub.RequestID, "--send-no", "1", "--expect", "ledger", "--timeout", "2s")
	if m.code != exitCheckFailed || !strings.Contains(m.stderr, "ledger") {
		t.Fatalf("missing answer: exit %d %q", m.code, m.stderr)
	}
}
