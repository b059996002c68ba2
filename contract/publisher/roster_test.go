package publisher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
)

// responseQueue is a one-shot fake of the response queue: it hands out its
// messages with their SenderId and records which were deleted.
type responseQueue struct {
	msgs      []types.Message
	asked     []types.MessageSystemAttributeName
	deleted   map[string]bool
	delivered bool
}

func (q *responseQueue) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	q.asked = in.MessageSystemAttributeNames
	if q.delivered {
		return &sqs.ReceiveMessageOutput{}, nil
	}
	q.delivered = true
	return &sqs.ReceiveMessageOutput{Messages: q.msgs}, nil
}

func (q *responseQueue) DeleteMessage(_ context.Context, in *sqs.DeleteMessageInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	q.deleted[aws.ToString(in.ReceiptHandle)] = true
	return &sqs.DeleteMessageOutput{}, nil
}

func answer(handle, subscriber, sender string) types.Message {
	body := `{"type":"erasure/ACK","requestId":"req-forged-0001","sendNo":1,"subscriber":"` + subscriber + `","outcome":"DONE"}`
	return types.Message{Body: aws.String(body), ReceiptHandle: aws.String(handle),
		Attributes: map[string]string{string(types.MessageSystemAttributeNameSenderId): sender}}
}

// TestRosterCountsOnlyEachStoresOwnHandler: answers from the store's own
// handler count; a forged DONE (another session, the right session under
// another role, a store not on the roster, no sender at all) is never
// counted, never deleted (it reaches the dead-letter queue for
// investigation), and is logged by code only.
func TestRosterCountsOnlyEachStoresOwnHandler(t *testing.T) {
	q := &responseQueue{deleted: map[string]bool{}, msgs: []types.Message{
		answer("real-space", "space", "AROASPACE:erasure-space"),
		answer("real-ledger", "ledger", "AROALEDGER:erasure-ledger"),
		answer("ci-role", "space", "AROACIROLE:deploy-pipeline"),
		answer("other-store-as-space", "space", "AROALEDGER:erasure-ledger"),
		answer("right-session-wrong-role", "space", "AROAIMPOSTOR:erasure-space"),
		answer("not-on-roster", "shadow", "AROASHADOW:erasure-shadow"),
		answer("no-sender", "ledger", ""),
		answer("two-colons", "space", "AROASPACE:x:erasure-space"),
	}}
	var logs bytes.Buffer
	c := NewCollector()
	var metrics bytes.Buffer
	r := NewReader(q, "https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-responses", c, slog.New(slog.NewJSONHandler(&logs, nil))).
		WithRoster(Roster{
			"space":  {RoleID: "AROASPACE", Session: "erasure-space"},
			"ledger": {RoleID: "AROALEDGER", Session: "erasure-ledger"},
			"audit":  {Session: "erasure-audit"}, // on the roster, never answers
		}).WithMetrics(&metrics)
	n, err := r.Poll(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.asked) != 1 || q.asked[0] != types.MessageSystemAttributeNameSenderId {
		t.Fatalf("the reader did not ask SQS for the sender: %v", q.asked)
	}
	if n != 2 || r.Refused() != 6 {
		t.Fatalf("counted %d, refused %d; want 2 and 6", n, r.Refused())
	}
	st := c.RosterStatus(RoundKey{RequestID: "req-forged-0001", SendNo: 1})
	if len(st.Answered) != 2 || strings.Join(st.Missing, ",") != "audit" || len(st.Unexpected) != 0 {
		t.Fatalf("round %+v: want space and ledger from their own handlers only, and audit missing", st)
	}
	lines := strings.Split(strings.TrimSpace(metrics.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("want one metric line per refused answer (6), got %d:\n%s", len(lines), metrics.String())
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m[contract.MetricAnswersRefused] != 1.0 || m[contract.MetricDimensionCode] != contract.CodeSenderNotOnRoster {
			t.Errorf("metric line %s (%v)", l, err)
		}
	}
	for handle, want := range map[string]bool{"real-space": true, "real-ledger": true, "ci-role": false, "other-store-as-space": false,
		"right-session-wrong-role": false, "not-on-roster": false, "no-sender": false, "two-colons": false} {
		if q.deleted[handle] != want {
			t.Errorf("%s: deleted = %v, want %v", handle, q.deleted[handle], want)
		}
	}
	for _, leak := range []string{"req-forged-0001", "DONE", "AROA", "deploy-pipeline", "shadow", `"space"`, `"ledger"`} {
		if strings.Contains(logs.String()+metrics.String(), leak) {
			t.Errorf("the log carries %q: %s", leak, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "SENDER_NOT_ON_ROSTER") {
		t.Errorf("no refusal code in the log: %s", logs.String())
	}
}

// TestReaderWithoutRosterAsksNoSender: the reader without a roster keeps its
// behaviour (every valid answer counts).
func TestReaderWithoutRosterAsksNoSender(t *testing.T) {
	q := &responseQueue{deleted: map[string]bool{}, msgs: []types.Message{answer("a", "space", "")}}
	r := NewReader(q, "u", NewCollector(), slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)))
	if n, err := r.Poll(context.Background(), 0); err != nil || n != 1 || len(q.asked) != 0 {
		t.Fatalf("n %d, err %v, asked %v", n, err, q.asked)
	}
}

// TestAFunctionNameAloneNeverAuthenticates: a roster store without its role
// id counts no answer, even one sent under its function's name, and Check
// says which store lacks it.
func TestAFunctionNameAloneNeverAuthenticates(t *testing.T) {
	roster := Roster{"space": {RoleID: "AROASPACEROLEID00001", Session: "erasure-handler-space"}, "ledger": {Session: "erasure-handler-ledger"}}
	if roster.Allows("ledger", "AROAANYROLEID0000001:erasure-handler-ledger") {
		t.Error("an answer under ledger's function name from any role counts")
	}
	if err := roster.Check(); !errors.Is(err, ErrIncompleteRoster) || !strings.Contains(err.Error(), "ledger") || strings.Contains(err.Error(), "space") {
		t.Errorf("Check = %v, want ledger named as lacking its role id", err)
	}
	if err := (Roster{}).Check(); !errors.Is(err, ErrIncompleteRoster) {
		t.Errorf("an empty roster: Check = %v", err)
	}
	if err := (Roster{"space": roster["space"]}).Check(); err != nil {
		t.Errorf("a complete roster: %v", err)
	}
}

// TestConflictingAnswersAreCountedAndReported: DONE after NOT_APPLICABLE
// (or the reverse) from the store's own handler keeps the first answer, is
// counted, logged by code and written as the ErasureAnswersConflicting
// metric.
func TestConflictingAnswersAreCountedAndReported(t *testing.T) {
	na := `{"type":"erasure/ACK","requestId":"req-conflict-0001","sendNo":1,"subscriber":"space","outcome":"NOT_APPLICABLE"}`
	done := strings.Replace(na, "NOT_APPLICABLE", "DONE", 1)
	msg := func(h, body string) types.Message {
		return types.Message{Body: aws.String(body), ReceiptHandle: aws.String(h),
			Attributes: map[string]string{string(types.MessageSystemAttributeNameSenderId): "AROASPACEROLEID00001:erasure-handler-space"}}
	}
	q := &responseQueue{deleted: map[string]bool{}, msgs: []types.Message{msg("1", na), msg("2", done), msg("3", na)}}
	var logs, metrics bytes.Buffer
	c := NewCollector()
	r := NewReader(q, "u", c, slog.New(slog.NewJSONHandler(&logs, nil))).
		WithRoster(Roster{"space": {RoleID: "AROASPACEROLEID00001", Session: "erasure-handler-space"}}).WithMetrics(&metrics)
	if _, err := r.Poll(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if r.Conflicts() != 1 {
		t.Fatalf("conflicts %d, want 1 (the DONE after NOT_APPLICABLE; the second NOT_APPLICABLE is a plain duplicate)", r.Conflicts())
	}
	st := c.RosterStatus(RoundKey{RequestID: "req-conflict-0001", SendNo: 1})
	if len(st.NotApplicable) != 1 {
		t.Errorf("the first answer does not stand: %+v", st)
	}
	if !strings.Contains(logs.String(), contract.CodeConflictingAnswer) || strings.Contains(logs.String()+metrics.String(), "req-conflict") {
		t.Errorf("log %s", logs.String())
	}
	var m map[string]any
	if json.Unmarshal(bytes.TrimSpace(metrics.Bytes()), &m) != nil || m[contract.MetricAnswersConflicting] != 1.0 {
		t.Errorf("no conflict metric line: %s", metrics.String())
	}
}

// TestASinkRefusalIsDeletedAndNeverCounted: an answer the sink (the ledger)
// recorded as refused is deleted and not counted, so that the collector shows
// what the ledger recorded; a sink failure keeps it for another read; the log
// carries the code alone.
func TestASinkRefusalIsDeletedAndNeverCounted(t *testing.T) {
	q := &responseQueue{deleted: map[string]bool{}, msgs: []types.Message{
		answer("counted", "space", "AROASPACE:erasure-space"),
		answer("unknown-round", "ledger", "AROALEDGER:erasure-ledger"),
		answer("sink-down", "audit", "AROAAUDIT:erasure-audit"),
	}}
	var logs bytes.Buffer
	c := NewCollector()
	r := NewReader(q, "https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-responses", c, slog.New(slog.NewJSONHandler(&logs, nil))).
		WithSink(func(_ context.Context, resp contract.Response, _, _ string) error {
			switch resp.Subscriber {
			case "ledger":
				return &RefusedError{Code: contract.CodeUnknownRound}
			case "audit":
				return errors.New("the table is unreachable")
			}
			return nil
		})
	n, err := r.Poll(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st := c.Status(RoundKey{RequestID: "req-forged-0001", SendNo: 1}, []string{"space", "ledger", "audit"})
	if n != 1 || r.SinkRefused() != 1 || len(st.Answered) != 1 || st.Answered["space"].Outcome != contract.OutcomeDone {
		t.Fatalf("counted %d, sink-refused %d, round %+v: want space alone counted and ledger's refusal not", n, r.SinkRefused(), st)
	}
	for handle, want := range map[string]bool{"counted": true, "unknown-round": true, "sink-down": false} {
		if q.deleted[handle] != want {
			t.Errorf("%s: deleted = %v, want %v", handle, q.deleted[handle], want)
		}
	}
	if !strings.Contains(logs.String(), contract.CodeUnknownRound) || strings.Contains(logs.String(), "req-forged-0001") {
		t.Errorf("the log: want the code and never the requestId: %s", logs.String())
	}
}
