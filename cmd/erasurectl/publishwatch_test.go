package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// TestPublishAndWatch: publish reaches a store queue on the emulator, and
// watch exits 0 once every expected subscriber has answered that round (a
// channel without a roster: --no-roster; TestWatchWaitsForTheRoster has one).
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
		"--request-id", pub.RequestID, "--send-no", "1", "--expect", "space", "--no-roster", "--timeout", "20s")
	if w.code != exitOK || !strings.Contains(w.stdout, "space") || !strings.Contains(w.stdout, "DONE") || strings.Contains(w.stdout, pub.RequestID) {
		t.Fatalf("watch exit %d: %q %s", w.code, w.stdout, w.stderr)
	}
	// A subscriber that never answers: exit 1, naming it.
	m := erasurectl(t, nil, "watch", "--endpoint-url", e.Endpoint, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
		"--request-id", pub.RequestID, "--send-no", "1", "--expect", "ledger", "--no-roster", "--timeout", "2s")
	if m.code != exitCheckFailed || !strings.Contains(m.stderr, "ledger") {
		t.Fatalf("missing answer: exit %d %q", m.code, m.stderr)
	}
}

// TestWatchWaitsForTheRoster: with a roster (read from the channel's
// template), watch waits for every store on it, and counts an answer only
// when SQS names that store's handler as its sender: an answer for ledger
// sent by anyone else is printed as refused, never as ledger's.
func TestWatchWaitsForTheRoster(t *testing.T) {
	ctx := context.Background()
	e, err := emulator.Start(ctx, emulator.Options{Root: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	c := contract.Channel()
	ch, err := local.Create(ctx, local.NewClients(e.Endpoint, e.Region), local.Spec{Constants: c, Stores: []local.StoreSpec{
		{Name: "space", Settings: timing.Defaults(c)}, {Name: "ledger", Settings: timing.Defaults(c)}}})
	if err != nil {
		t.Fatal(err)
	}
	gate, err := local.StartGate(e.Endpoint, local.OpenDecider{})
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	ch.Guard(gate, e.Region)
	pub := publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN)
	answer := func(req contract.Request, principal, subscriber string) {
		body, _ := contract.EncodeResponse(contract.AnswerFor(req, subscriber, "DONE"))
		if _, err := ch.As(principal).SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ch.ResponseQueue.URL), MessageBody: aws.String(string(body))}); err != nil {
			t.Fatal(err)
		}
	}
	creds := gate.Credentials(accessmodel.AccountServicePrincipal, e.Region)
	asAccountService := []string{"AWS_ACCESS_KEY_ID=" + creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + creds.SecretAccessKey}
	// The store stacks' role-id outputs, as cdk deploy --outputs-file writes them.
	outputs := map[string]map[string]string{}
	for _, s := range []string{"space", "ledger"} {
		role, _, _ := strings.Cut(local.SenderID(local.HandlerPrincipal(s)), ":")
		outputs[s+"-store"] = map[string]string{contract.RoleIDOutputPrefix + contract.NameDigest(s): s + "=" + role}
	}
	outputsFile := filepath.Join(t.TempDir(), "outputs.json")
	b, _ := json.Marshal(outputs)
	if err := os.WriteFile(outputsFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	watch := func(req contract.Request, timeout string, extra ...string) result {
		args := append([]string{"watch", "--endpoint-url", gate.URL, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
			"--request-id", req.RequestID, "--send-no", "1", "--roster-from", "cmd/erasurectl/testdata/roster/channel.template.json", "--timeout", timeout}, extra...)
		return erasurectlWith(t, asAccountService, nil, args...)
	}
	forged, err := pub.Erase(ctx, contract.KeyAccount, "acct-7")
	if err != nil {
		t.Fatal(err)
	}
	answer(forged, local.HandlerPrincipal("space"), "space")
	answer(forged, local.HandlerPrincipal("space"), "ledger") // a real store answering for another
	answer(forged, "other/111111111111", "ledger")            // any other principal
	if r := watch(forged, "3s"); r.code != exitUsage || !strings.Contains(r.stderr, "no handler role id for ledger, space") {
		t.Fatalf("a roster without role ids: want exit 2 naming the stores, got %d\n%s", r.code, r.stderr)
	}
	r := watch(forged, "3s", "--role-ids-from", outputsFile)
	if r.code != exitCheckFailed || !strings.Contains(r.stderr, "no answer from: ledger") || !strings.Contains(r.stdout, contract.CodeSenderNotOnRoster) {
		t.Fatalf("forged answers for ledger: want exit 1 waiting for ledger, the forgeries printed as refused; got %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// A fresh round, answered by both stores' own handlers. (The first watch
	// stopped mid long-poll; that receive ends within a second.)
	time.Sleep(1500 * time.Millisecond)
	real, err := pub.Erase(ctx, contract.KeyAccount, "acct-8")
	if err != nil {
		t.Fatal(err)
	}
	answer(real, local.HandlerPrincipal("ledger"), "ledger")
	answer(real, local.HandlerPrincipal("space"), "space")
	spaceRole, _, _ := strings.Cut(local.SenderID(local.HandlerPrincipal("space")), ":")
	if r := watch(real, "20s", "--role-ids-from", outputsFile, "--role-id", "space="+spaceRole); r.code != exitOK || !strings.Contains(r.stdout, "every expected subscriber answered") {
		t.Fatalf("both stores' own answers: want exit 0, got %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	req := real
	if r := erasurectl(t, nil, "watch", "--endpoint-url", gate.URL, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
		"--request-id", req.RequestID, "--roster-from", "no-such-dir", "--timeout", "1s"); r.code != exitUsage {
		t.Errorf("a round without a roster or --expect: want exit 2, got %d (%s)", r.code, r.stderr)
	}
	// No roster where --roster-from points: nothing is counted, even with --expect.
	if r := erasurectlWith(t, asAccountService, nil, "watch", "--endpoint-url", gate.URL, "--region", e.Region, "--queue-url", ch.ResponseQueue.URL,
		"--request-id", req.RequestID, "--send-no", "1", "--expect", "space", "--roster-from", "no-such-dir", "--timeout", "1s"); r.code != exitUsage || strings.Contains(r.stdout, "DONE") {
		t.Errorf("a missing roster with --expect: want exit 2 and nothing counted, got %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
