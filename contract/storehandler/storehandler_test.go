package storehandler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
)

var now = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

type fakeResponses struct {
	sent []contract.Response
	fail bool
}

func (f *fakeResponses) Send(_ context.Context, r contract.Response) error {
	if _, err := contract.EncodeResponse(r); err != nil {
		return err
	}
	if f.fail {
		return errors.New("send failed")
	}
	f.sent = append(f.sent, r)
	return nil
}

type fakeQueue struct{ sent []*sqs.SendMessageInput }

func (f *fakeQueue) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	f.sent = append(f.sent, in)
	return &sqs.SendMessageOutput{}, nil
}

func env() contract.HandlerEnvironment {
	c := contract.Channel()
	return contract.HandlerEnvironment{PassTwoDelay: c.PassTwoDelayCap(), BatchTimeout: c.BatchTimeoutCap(), Subscriber: "space",
		ResponseQueueURL: "https://sqs.x/1/responses", QueueURL: "https://sqs.x/2/space"}
}

// self is the SenderId SQS reports for the test handler's own sends.
const self = "AROAEXAMPLEROLEID0001:erasure-handler-space"

func newHandler(t testing.TB, impls map[contract.Pair]Func, r *fakeResponses, q *fakeQueue, out *bytes.Buffer) *Handler {
	t.Helper()
	h, err := New(Config{Env: env(), Implementations: impls, Responses: r, Queue: q, Now: func() time.Time { return now },
		Log: slog.New(slog.NewJSONHandler(out, nil)), Metrics: out, PassTwoSender: self})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func body(t testing.TB, r contract.Request) string {
	t.Helper()
	if r.ExpiresAt.IsZero() {
		r.ExpiresAt = now.Add(time.Hour)
	}
	b, err := contract.EncodeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	refilePair = contract.Pair{Type: contract.TypeRefile, KeyKind: contract.KeyAddress}
	checkPair  = contract.Pair{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}
	refileReq  = contract.Request{Type: contract.TypeRefile, RequestID: "r-1", SendNo: 2, KeyKind: contract.KeyAddress, From: "a@b", To: "c@d", AccountID: "acct"}
	checkReq   = contract.Request{Type: contract.TypeCheck, RequestID: "r-2", KeyKind: contract.KeyAccount, Key: "acct-9"}
)

// TestEveryRecordOfTheBatch: each record is judged on its own; only the
// failed ones are reported.
func TestEveryRecordOfTheBatch(t *testing.T) {
	r, q, out := &fakeResponses{}, &fakeQueue{}, &bytes.Buffer{}
	h := newHandler(t, map[contract.Pair]Func{checkPair: func(context.Context, contract.Request, Pass) (string, error) { return "HOLDS_NONE", nil }}, r, q, out)
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "bad", Body: "{not json"},
		{MessageId: "ok", Body: body(t, checkReq)},
		{MessageId: "na", Body: body(t, contract.Request{Type: contract.TypeErase, RequestID: "r-3", SendNo: 1, KeyKind: contract.KeyAccount, Key: "k"})},
		{MessageId: "expired", Body: body(t, contract.Request{Type: contract.TypeCheck, RequestID: "r-4", KeyKind: contract.KeyAccount, Key: "k", ExpiresAt: now})},
	}}
	resp, err := h.Handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "bad" {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
	if len(r.sent) != 2 || r.sent[0].Answer != contract.AnswerHoldsNone || r.sent[1].Outcome != contract.OutcomeNotApplicable {
		t.Fatalf("answers %+v", r.sent)
	}
	if r.sent[0].Subscriber != "space" || r.sent[1].Subscriber != "space" {
		t.Error("the subscriber is not the configured one")
	}
	var metric map[string]any
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, contract.MetricNotApplicable) && strings.Contains(l, "_aws") {
			_ = json.Unmarshal([]byte(l), &metric)
		}
	}
	if metric == nil || metric[contract.MetricDimensionSubscriber] != "space" || metric[contract.MetricNotApplicable] != float64(1) {
		t.Fatalf("no embedded metric line: %s", out)
	}
	if strings.Contains(out.String(), "acct-9") || strings.Contains(out.String(), "r-2") {
		t.Error("output carries a key or requestId")
	}
}

// TestPassTwo: a destructive request runs twice and is answered once, after
// pass two, with the combined outcome.
func TestPassTwo(t *testing.T) {
	r, q, out := &fakeResponses{}, &fakeQueue{}, &bytes.Buffer{}
	var passes []Pass
	outcomes := map[Pass]string{1: "MOVED", 2: "NONE_OWNED"}
	h := newHandler(t, map[contract.Pair]Func{refilePair: func(_ context.Context, _ contract.Request, p Pass) (string, error) {
		passes = append(passes, p)
		return outcomes[p], nil
	}}, r, q, out)
	b := body(t, refileReq)
	resp, _ := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "1", Body: b}}})
	if len(resp.BatchItemFailures) != 0 || len(r.sent) != 0 || len(q.sent) != 1 {
		t.Fatalf("after pass one: failures %v, answers %d, enqueued %d", resp.BatchItemFailures, len(r.sent), len(q.sent))
	}
	in := q.sent[0]
	if aws.ToString(in.MessageBody) != b || time.Duration(in.DelaySeconds)*time.Second != env().PassTwoDelay || aws.ToString(in.QueueUrl) != env().QueueURL {
		t.Fatal("pass two is not the same body on the store's own queue with the delay")
	}
	attrs := map[string]events.SQSMessageAttribute{}
	for k, v := range in.MessageAttributes {
		attrs[k] = events.SQSMessageAttribute{StringValue: v.StringValue}
	}
	resp, _ = h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "2", Body: b, MessageAttributes: attrs,
		Attributes: map[string]string{"SenderId": self}}}})
	if len(resp.BatchItemFailures) != 0 || len(r.sent) != 1 || len(q.sent) != 1 {
		t.Fatalf("after pass two: failures %v, answers %d", resp.BatchItemFailures, len(r.sent))
	}
	if r.sent[0].Outcome != contract.OutcomeMoved || r.sent[0].SendNo != 2 {
		t.Errorf("answer %+v, want MOVED (pass one moved rows) echoing sendNo 2", r.sent[0])
	}
	if len(passes) != 2 || passes[0] != 1 || passes[1] != 2 {
		t.Errorf("passes %v", passes)
	}
}

func TestCombine(t *testing.T) {
	for _, tc := range []struct {
		t              contract.MessageType
		one, two, want string
	}{
		{contract.TypeRefile, "MOVED", "NONE_OWNED", "MOVED"},
		{contract.TypeRefile, "NONE_OWNED", "MOVED", "MOVED"},
		{contract.TypeRefile, "MOVED", "NOT_MOVED", "NOT_MOVED"},
		{contract.TypeRefile, "NOT_MOVED", "NONE_OWNED", "NOT_MOVED"},
		{contract.TypeRefile, "NONE_OWNED", "NONE_OWNED", "NONE_OWNED"},
		{contract.TypeErase, "DONE", "DONE", "DONE"},
	} {
		if got := combine(tc.t, tc.one, tc.two); got != tc.want {
			t.Errorf("combine(%s, %s, %s) = %s, want %s", tc.t, tc.one, tc.two, got, tc.want)
		}
	}
}

// TestForgedPassMarkers: a marker on a non-destructive request or with an
// impossible outcome fails the record.
func TestForgedPassMarkers(t *testing.T) {
	r, q, out := &fakeResponses{}, &fakeQueue{}, &bytes.Buffer{}
	ok := func(context.Context, contract.Request, Pass) (string, error) { return "HOLDS_DATA", nil }
	h := newHandler(t, map[contract.Pair]Func{checkPair: ok, refilePair: func(context.Context, contract.Request, Pass) (string, error) { return "MOVED", nil }}, r, q, out)
	two := aws.String("2")
	for name, rec := range map[string]events.SQSMessage{
		"on CHECK":    {Body: body(t, checkReq), MessageAttributes: map[string]events.SQSMessageAttribute{contract.AttrPass: {StringValue: two}, contract.AttrPassOneOutcome: {StringValue: aws.String("HOLDS_DATA")}}},
		"bad outcome": {Body: body(t, refileReq), MessageAttributes: map[string]events.SQSMessageAttribute{contract.AttrPass: {StringValue: two}, contract.AttrPassOneOutcome: {StringValue: aws.String("DONE")}}},
		"no outcome":  {Body: body(t, refileReq), MessageAttributes: map[string]events.SQSMessageAttribute{contract.AttrPass: {StringValue: two}}},
		"pass three":  {Body: body(t, refileReq), MessageAttributes: map[string]events.SQSMessageAttribute{contract.AttrPass: {StringValue: aws.String("3")}, contract.AttrPassOneOutcome: {StringValue: aws.String("MOVED")}}},
	} {
		rec.MessageId = name
		resp, _ := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{rec}})
		if len(resp.BatchItemFailures) != 1 {
			t.Errorf("%s: accepted", name)
		}
	}
	if len(r.sent) != 0 {
		t.Errorf("forged markers were answered")
	}
}

// TestDeadlineAndBatchTimeout: a call never outlives the batch timeout or
// the Lambda deadline, and a record with no time left is not started.
func TestDeadlineAndBatchTimeout(t *testing.T) {
	r, q, out := &fakeResponses{}, &fakeQueue{}, &bytes.Buffer{}
	var deadline time.Time
	calls := 0
	h := newHandler(t, map[contract.Pair]Func{checkPair: func(ctx context.Context, _ contract.Request, _ Pass) (string, error) {
		calls++
		deadline, _ = ctx.Deadline()
		return "HOLDS_DATA", nil
	}}, r, q, out)
	rec := events.SQSMessage{MessageId: "1", Body: body(t, checkReq)}

	ctx, cancel := context.WithDeadline(context.Background(), now.Add(10*time.Minute))
	h.Handle(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}})
	cancel()
	if want := now.Add(env().BatchTimeout); !deadline.Equal(want) {
		t.Errorf("call deadline %v, want now + batch timeout %v", deadline, want)
	}
	ctx, cancel = context.WithDeadline(context.Background(), now.Add(5*time.Second))
	h.Handle(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}})
	cancel()
	if !deadline.Before(now.Add(5*time.Second)) || deadline.Before(now.Add(4*time.Second)) {
		t.Errorf("call deadline %v, want just before the Lambda deadline", deadline.Sub(now))
	}
	ctx, cancel = context.WithDeadline(context.Background(), now)
	resp, _ := h.Handle(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}})
	cancel()
	if calls != 2 || len(resp.BatchItemFailures) != 1 {
		t.Errorf("with no time left: %d calls, %d failures", calls, len(resp.BatchItemFailures))
	}
}

func TestSendFailureFailsThatRecordOnly(t *testing.T) {
	r, q, out := &fakeResponses{fail: true}, &fakeQueue{}, &bytes.Buffer{}
	h := newHandler(t, nil, r, q, out)
	resp, _ := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "a", Body: body(t, checkReq)}, {MessageId: "b", Body: "x"},
	}})
	if len(resp.BatchItemFailures) != 2 {
		t.Fatalf("failures %v", resp.BatchItemFailures)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	_, err := New(Config{Env: env(), Responses: &fakeResponses{}, Implementations: map[contract.Pair]Func{
		{Type: contract.TypeRefile, KeyKind: contract.KeyAccount}: func(context.Context, contract.Request, Pass) (string, error) { return "", nil },
		{Type: contract.TypeAck, KeyKind: contract.KeyAccount}:    func(context.Context, contract.Request, Pass) (string, error) { return "", nil },
	}})
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) < 2 {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkHandleRecord is the adapter's per-record overhead: parse, expiry,
// dispatch, answer build and validation, excluding the network.
func BenchmarkHandleRecord(b *testing.B) {
	r, q := &fakeResponses{}, &fakeQueue{}
	h, _ := New(Config{Env: env(), Responses: discard{}, Queue: q, Now: func() time.Time { return now },
		Log: slog.New(slog.DiscardHandler), Metrics: &bytes.Buffer{},
		Implementations: map[contract.Pair]Func{checkPair: func(context.Context, contract.Request, Pass) (string, error) { return "HOLDS_DATA", nil }}})
	_ = r
	ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "1", Body: body(b, checkReq)}}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if resp, _ := h.Handle(ctx, ev); len(resp.BatchItemFailures) != 0 {
			b.Fatal("failed")
		}
	}
}

type discard struct{}

func (discard) Send(_ context.Context, r contract.Response) error {
	_, err := contract.EncodeResponse(r)
	return err
}

// TestPassTwoMarkerMustComeFromThisFunction: a marker is accepted only on a
// message this handler sent itself: SenderId exactly "<its role id>:<its
// function name>", compared whole. The rows are the SenderId shapes SQS
// reports: an assumed role (role id:session), a federated user (account:name),
// an IAM user (its unique id), an AWS service (SNS delivering to the queue).
func TestPassTwoMarkerMustComeFromThisFunction(t *testing.T) {
	r, q, out := &fakeResponses{}, &fakeQueue{}, &bytes.Buffer{}
	h := newHandler(t, map[contract.Pair]Func{refilePair: func(context.Context, contract.Request, Pass) (string, error) { return "MOVED", nil }}, r, q, out)
	marker := map[string]events.SQSMessageAttribute{contract.AttrPass: {StringValue: aws.String("2")}, contract.AttrPassOneOutcome: {StringValue: aws.String("MOVED")}}
	for _, c := range []struct {
		sender   string
		accepted bool
	}{
		{self, true}, // this handler's role, the session Lambda names after the function
		{"AROAEXAMPLEROLEID0001:erasure-handler-space-2", false}, // same role, another session
		{"AROAEXAMPLEROLEID0001:x:erasure-handler-space", false}, // ends like it: two colons
		{"AROAOTHERROLEID000001:erasure-handler-space", false},   // another role, the function's name as session
		{"AROAEXAMPLEROLEID0001:ERASURE-HANDLER-SPACE", false},   // case differs
		{" AROAEXAMPLEROLEID0001:erasure-handler-space", false},  // padded
		{"AROAEXAMPLEROLEID0001:erasure-handler-space\n", false}, // padded
		{"111122223333:erasure-handler-space", false},            // a federated user of that name
		{"AIDAEXAMPLEUSERID0001", false},                         // an IAM user
		{"AIDAIT2UOQQY3AUEKVGXU", false},                         // delivered by SNS: a publisher's attributes
		{"", false},
	} {
		r.sent = nil
		rec := events.SQSMessage{MessageId: "m", Body: body(t, refileReq), MessageAttributes: marker, Attributes: map[string]string{"SenderId": c.sender}}
		resp, _ := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{rec}})
		if got := len(resp.BatchItemFailures) == 0 && len(r.sent) == 1; got != c.accepted {
			t.Errorf("SenderId %q: accepted %v, want %v", c.sender, got, c.accepted)
		}
		if !c.accepted && !strings.Contains(out.String(), "BAD_PASS_MARKER") {
			t.Errorf("SenderId %q: refused without the BAD_PASS_MARKER code", c.sender)
		}
	}
}

// TestPassTwoNeedsItsOwnSender: a destructive pair cannot be configured
// without the handler's own SenderId (no marker could ever be proven).
func TestPassTwoNeedsItsOwnSender(t *testing.T) {
	impls := map[contract.Pair]Func{refilePair: func(context.Context, contract.Request, Pass) (string, error) { return "MOVED", nil }}
	for _, sender := range []string{"", "erasure-handler-space", "AROAEXAMPLEROLEID0001:", "AROAEXAMPLEROLEID0001:a:b", "AIDAEXAMPLEUSERID0001:x"} {
		_, err := New(Config{Env: env(), Implementations: impls, Responses: &fakeResponses{}, Queue: &fakeQueue{}, PassTwoSender: sender})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("PassTwoSender %q: err = %v, want a ConfigError", sender, err)
		}
	}
}
