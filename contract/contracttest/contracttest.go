// Package contracttest is the conformance kit for store teams: it runs every
// capability fixture, restamped to now + R, through a store's implementations
// with the real adapter and the real response sender (only the SQS client is a
// recorder), and fails for any pair whose answer type or outcome is wrong, for
// an answer to an expired request, for a destructive pair answered before its
// second pass, and for a body, key, address or requestId in anything the
// store or the adapter printed.
//
//	func TestConformance(t *testing.T) {
//		contracttest.Run(t, contracttest.Store{
//			Implementations: myStore.Implementations(),
//		})
//	}
//
// Run captures the process's stdout, stderr and the standard logger while it
// runs, so do not call it from parallel tests.
package contracttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/sender"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
)

// Store is what a store team hands the kit: the same implementations its
// Lambda passes to storehandler.Start.
type Store struct {
	Implementations map[contract.Pair]storehandler.Func
	// Subscriber defaults to "conformance".
	Subscriber string
	// Now is the clock the fixtures are restamped against; default time.Now.
	Now func() time.Time
}

// Failure is one way a store breaks the contract.
type Failure struct {
	Pair   contract.Pair
	Check  string // "answer", "pass-two", "expired", "invalid-body", "logs"
	Detail string // never a value from a request
}

func (f Failure) String() string {
	return fmt.Sprintf("%s/%s %s: %s", f.Pair.Type, f.Pair.KeyKind, f.Check, f.Detail)
}

// Run reports every failure of Check on t.
func Run(t testing.TB, s Store) {
	t.Helper()
	for _, f := range Check(s) {
		t.Errorf("erasure conformance: %s", f)
	}
}

// recorder is an SQS SendMessage recorder: the response queue or the store's
// own queue.
type recorder struct {
	mu   sync.Mutex
	sent []*sqs.SendMessageInput
}

func (r *recorder) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, in)
	return &sqs.SendMessageOutput{MessageId: aws.String(strconv.Itoa(len(r.sent)))}, nil
}

func (r *recorder) take() []*sqs.SendMessageInput {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// kitSender is the SenderId the kit's handler takes for its own sends.
const kitSender = "AROACONFORMANCEKIT0001:erasure-handler-conformance"

// Check runs the kit and returns every failure.
func Check(s Store) []Failure {
	if s.Subscriber == "" {
		s.Subscriber = "conformance"
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	c := contract.Channel()
	now := s.Now()
	responses, queue := &recorder{}, &recorder{}
	env := contract.HandlerEnvironment{
		PassTwoDelay: c.PassTwoDelayCap(), BatchTimeout: c.BatchTimeoutCap(), Subscriber: s.Subscriber,
		ResponseQueueURL: "https://sqs.local/000000000000/responses", QueueURL: "https://sqs.local/000000000000/store",
	}
	out := &capture{}
	restore := out.start()
	logger := slog.New(slog.NewJSONHandler(out, nil))
	h, err := storehandler.New(storehandler.Config{
		Env: env, Implementations: s.Implementations, Now: func() time.Time { return now },
		Responses: sender.New(responses, env.ResponseQueueURL, logger), Queue: queue, Log: logger, Metrics: out,
		PassTwoSender: kitSender,
	})
	if err != nil {
		restore()
		return []Failure{{Check: "config", Detail: err.Error()}}
	}
	var fails []Failure
	var requests []contract.Request
	invoke := func(rec events.SQSMessage) bool {
		ctx, cancel := context.WithTimeout(context.Background(), c.HandlerTimeoutCap())
		defer cancel()
		resp, _ := h.Handle(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}})
		return len(resp.BatchItemFailures) == 0
	}
	for _, p := range contract.ErasureCapabilityFixtures().Pairs {
		fail := func(check, format string, args ...any) {
			fails = append(fails, Failure{Pair: p.Pair, Check: check, Detail: fmt.Sprintf(format, args...)})
		}
		_, implemented := s.Implementations[p.Pair]
		req := p.Restamped(now, c)
		requests = append(requests, req)
		body, _ := contract.EncodeRequest(req)
		ok := invoke(events.SQSMessage{MessageId: "m1", Body: string(body)})
		if !ok {
			fail("answer", "the handler failed the record")
			continue
		}
		if implemented && p.Pair.Type.IsDestructive() {
			if n := len(responses.take()); n != 0 {
				fail("pass-two", "answered before the second pass (%d answers)", n)
			}
			sent := queue.take()
			if len(sent) != 1 {
				fail("pass-two", "%d pass-two messages enqueued, want 1", len(sent))
				continue
			}
			if aws.ToString(sent[0].MessageBody) != string(body) || time.Duration(sent[0].DelaySeconds)*time.Second != env.PassTwoDelay {
				fail("pass-two", "pass two is not the request re-sent with the pass-two delay")
			}
			attrs := map[string]events.SQSMessageAttribute{}
			for k, v := range sent[0].MessageAttributes {
				attrs[k] = events.SQSMessageAttribute{StringValue: v.StringValue, DataType: aws.ToString(v.DataType)}
			}
			// SQS reports the handler's own send with its own SenderId.
			if !invoke(events.SQSMessage{MessageId: "m2", Body: string(body), MessageAttributes: attrs, Attributes: map[string]string{"SenderId": kitSender}}) {
				fail("pass-two", "the handler failed the second pass")
				continue
			}
		}
		sent := responses.take()
		if len(sent) != 1 {
			fail("answer", "%d answers, want 1", len(sent))
			continue
		}
		if len(sent[0].MessageAttributes) != 0 {
			fail("answer", "the answer carries message attributes")
		}
		ans, err := contract.ParseResponse([]byte(aws.ToString(sent[0].MessageBody)))
		if err != nil {
			fail("answer", "the answer is not a valid response: %s", err)
			continue
		}
		outcome := string(ans.Outcome) + string(ans.Answer)
		switch {
		case ans.Type != p.ResponseType:
			fail("answer", "answered with %s, want %s", ans.Type, p.ResponseType)
		case ans.RequestID != req.RequestID || ans.SendNo != req.SendNo:
			fail("answer", "the answer does not echo the request's requestId and sendNo")
		case ans.Subscriber != s.Subscriber:
			fail("answer", "the subscriber is not the configured one")
		case ans.Type == contract.TypeHoldings && (ans.Key != req.Key || ans.KeyKind != req.KeyKind):
			fail("answer", "HOLDINGS does not echo the key and keyKind")
		case !p.Allows(outcome, implemented):
			if implemented {
				fail("answer", "an implemented pair answered %s; allowed: %v", outcome, p.ImplementedOutcomes)
			} else {
				fail("answer", "an unimplemented pair answered %s; allowed: %s", outcome, p.NotImplementedOutcome)
			}
		}
		if !implemented && !strings.Contains(out.String(), contract.MetricNotApplicable) {
			fail("answer", "NOT_APPLICABLE was not counted in the %s metric", contract.MetricNotApplicable)
		}

		// An expired request is consumed with no answer and no second pass.
		expired := req
		expired.ExpiresAt = now.Add(-time.Millisecond)
		eb, _ := contract.EncodeRequest(expired)
		if !invoke(events.SQSMessage{MessageId: "m3", Body: string(eb)}) {
			fail("expired", "the handler failed an expired request instead of consuming it")
		}
		if n := len(responses.take()) + len(queue.take()); n != 0 {
			fail("expired", "an expired request was acted on (%d messages sent)", n)
		}
	}

	// An invalid body fails its record, unanswered.
	bad := `{"type":"erasure/ERASE","requestId":"conformance-invalid","sendNo":1,"expiresAt":"2099-01-01T00:00:00Z","keyKind":"ADDRESS","key":"Conformance.Invalid@Example.com"}`
	if invoke(events.SQSMessage{MessageId: "m4", Body: bad}) {
		fails = append(fails, Failure{Check: "invalid-body", Detail: "an invalid body was not failed back to SQS"})
	}
	if n := len(responses.take()) + len(queue.take()); n != 0 {
		fails = append(fails, Failure{Check: "invalid-body", Detail: "an invalid body was answered"})
	}
	restore()

	printed := out.String()
	secrets := []string{bad, "conformance-invalid", "Conformance.Invalid"}
	for _, r := range requests {
		b, _ := contract.EncodeRequest(r)
		secrets = append(secrets, string(b), r.RequestID, r.Key, r.From, r.To, r.AccountID)
	}
	leaked := map[string]bool{}
	for _, sct := range secrets {
		if sct != "" && strings.Contains(printed, sct) {
			leaked[kindOf(sct, requests)] = true
		}
	}
	kinds := make([]string, 0, len(leaked))
	for k := range leaked {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fails = append(fails, Failure{Check: "logs", Detail: "the store's or the adapter's output carries a " + k})
	}
	return fails
}

func kindOf(s string, reqs []contract.Request) string {
	for _, r := range reqs {
		switch s {
		case r.RequestID:
			return "requestId"
		case r.Key:
			return "key"
		case r.From, r.To:
			return "address"
		case r.AccountID:
			return "account id"
		}
	}
	if strings.HasPrefix(s, "{") {
		return "message body"
	}
	return "request value"
}

// capture collects what is written to os.Stdout, os.Stderr and the standard
// logger while the kit runs, and everything the adapter logs.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *capture) start() (restore func()) {
	oldOut, oldErr, oldLog := os.Stdout, os.Stderr, log.Writer()
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(c, r); close(done) }()
	os.Stdout, os.Stderr = w, w
	log.SetOutput(w)
	return func() {
		os.Stdout, os.Stderr = oldOut, oldErr
		log.SetOutput(oldLog)
		_ = w.Close()
		<-done
		_ = r.Close()
	}
}
