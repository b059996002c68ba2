package publisher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
)

// RoundKey identifies one broadcast: a requestId and its sendNo (0 for CHECK
// and CLASSIFY, whose answers carry none).
type RoundKey struct {
	RequestID string
	SendNo    int
}

// KeyOf is the round an answer belongs to.
func KeyOf(r contract.Response) RoundKey { return RoundKey{RequestID: r.RequestID, SendNo: r.SendNo} }

// Collector gathers answers per round. A subscriber that answers a round
// twice (an SQS redelivery) keeps its first answer.
type Collector struct {
	mu          sync.Mutex
	answers     map[RoundKey]map[string]contract.Response
	firstAt     map[RoundKey]map[string]time.Time
	duplicates  int // later copies of an answer already recorded
	conflicting int // later copies whose outcome differs from the first
	notify      chan struct{}
	now         func() time.Time
	roster      []string // the stores expected to answer every round, when known
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{answers: map[RoundKey]map[string]contract.Response{}, firstAt: map[RoundKey]map[string]time.Time{},
		notify: make(chan struct{}, 1), now: time.Now}
}

// Add records an answer, and reports whether it contradicts the store's
// earlier answer to the same round (the first answer stands).
func (c *Collector) Add(r contract.Response) (conflict bool) {
	c.mu.Lock()
	k := KeyOf(r)
	if c.answers[k] == nil {
		c.answers[k] = map[string]contract.Response{}
		c.firstAt[k] = map[string]time.Time{}
	}
	if first, seen := c.answers[k][r.Subscriber]; !seen {
		c.answers[k][r.Subscriber] = r
		c.firstAt[k][r.Subscriber] = c.now()
	} else {
		c.duplicates++
		if first.Outcome != r.Outcome || first.Answer != r.Answer {
			c.conflicting++
			conflict = true
		}
	}
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return conflict
}

// ExpectRoster makes the roster's stores the ones every round waits for
// (RosterStatus). It returns the collector.
func (c *Collector) ExpectRoster(stores []string) *Collector {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roster = append([]string(nil), stores...)
	sort.Strings(c.roster)
	return c
}

// Roster is the stores every round waits for, nil if not given.
func (c *Collector) Roster() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.roster...)
}

// RosterStatus reports a round against the roster: Missing names every
// store on it that has not answered yet.
func (c *Collector) RosterStatus(k RoundKey) RoundStatus { return c.Status(k, c.Roster()) }

// AnsweredAt is when the first answer of a subscriber to a round arrived.
func (c *Collector) AnsweredAt(k RoundKey, subscriber string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.firstAt[k][subscriber]
	return t, ok
}

// Duplicates counts the answers absorbed as copies of one already recorded,
// and how many of those carried a different outcome than the first.
func (c *Collector) Duplicates() (copies, conflicting int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.duplicates, c.conflicting
}

// Changed is signalled (without blocking) when an answer is added.
func (c *Collector) Changed() <-chan struct{} { return c.notify }

// RoundStatus is who has answered a round, and how.
type RoundStatus struct {
	Answered      map[string]contract.Response // by subscriber
	Missing       []string                     // expected subscribers with no answer yet
	NotApplicable []string                     // subscribers that answered NOT_APPLICABLE
	Unexpected    []string                     // subscribers that answered but were not expected
}

// Complete reports whether every expected subscriber has answered.
func (s RoundStatus) Complete() bool { return len(s.Missing) == 0 }

// Status reports a round against the subscribers expected to answer it.
func (c *Collector) Status(k RoundKey, expected []string) RoundStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := RoundStatus{Answered: map[string]contract.Response{}}
	want := map[string]bool{}
	for _, s := range expected {
		want[s] = true
		if _, ok := c.answers[k][s]; !ok {
			st.Missing = append(st.Missing, s)
		}
	}
	for s, r := range c.answers[k] {
		st.Answered[s] = r
		if r.NotApplicable() {
			st.NotApplicable = append(st.NotApplicable, s)
		}
		if !want[s] {
			st.Unexpected = append(st.Unexpected, s)
		}
	}
	sort.Strings(st.Missing)
	sort.Strings(st.NotApplicable)
	sort.Strings(st.Unexpected)
	return st
}

// ReceiveAPI is what the reader calls on SQS.
type ReceiveAPI interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

// Roster says who may answer for each store: the SQS SenderId of its
// handler. A Lambda function's messages carry "<role unique id>:<session>",
// and Lambda names the session after the function. An answer counts only
// when its subscriber is on the roster and its sender is that store's.
type Roster map[string]Sender

// Sender is one store handler's identity as SQS reports it.
type Sender struct {
	// RoleID is the handler role's unique id (AROA…), from IAM GetRole or the
	// store stack's ErasureHandlerRoleId output. Required: a function name
	// alone never authenticates (any role may name a session after it).
	RoleID string
	// Session is the Lambda function's name.
	Session string
}

// Stores are the roster's store names, sorted.
func (r Roster) Stores() []string {
	out := make([]string, 0, len(r))
	for name := range r {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Allows says whether senderID may answer for subscriber: it is exactly
// "<the store's role id>:<its function name>".
func (r Roster) Allows(subscriber, senderID string) bool {
	want, ok := r[subscriber]
	if !ok || want.Session == "" || want.RoleID == "" {
		return false
	}
	return senderID == contract.HandlerSenderID(want.RoleID, want.Session)
}

// ErrIncompleteRoster is returned by Roster.Check.
var ErrIncompleteRoster = errors.New("publisher: roster")

// Check reports a roster that cannot authenticate every store: empty, or a
// store without a role id (AROA…) or session.
func (r Roster) Check() error {
	if len(r) == 0 {
		return fmt.Errorf("%w: no store", ErrIncompleteRoster)
	}
	var missing []string
	for _, name := range r.Stores() {
		if s := r[name]; !contract.IsRoleID(s.RoleID) || s.Session == "" || strings.Contains(s.Session, ":") {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: no handler role id for %s", ErrIncompleteRoster, strings.Join(missing, ", "))
	}
	return nil
}

// Reader reads the response queue into a Collector. A valid answer is
// recorded and deleted; an invalid one is left on the queue, so that after
// maxReceiveCount receives it moves to the response dead-letter queue and
// nothing is dropped silently. With a roster, an answer whose sender is not
// its store's handler is never counted: it is left on the queue the same way,
// for investigation. It logs codes and counts only.
type Reader struct {
	client    ReceiveAPI
	queueURL  string
	collector *Collector
	log       *slog.Logger
	roster    Roster
	metrics   io.Writer
	now       func() time.Time
	invalid   int
	refused   atomic.Int64 // read by Refused while Run polls
	conflicts atomic.Int64
	// sinkRefused counts answers the sink recorded as refused (RefusedError).
	sinkRefused atomic.Int64
	sink        Sink
}

// Sink receives every authenticated answer before it is counted and deleted:
// a durable record such as the ledger. A RefusedError deletes the message
// uncounted (the sink recorded the refusal); any other error keeps it on the
// queue (it is read again); nil lets the reader count and delete it.
type Sink func(ctx context.Context, resp contract.Response, senderID, messageID string) error

// RefusedError is what a sink returns for an answer it recorded as refused
// (the ledger's codes: an unknown request or broadcast, the wrong type or
// key, a store off the request's roster): the reader deletes the answer and
// never counts it, so that what a user sees is what the ledger recorded. Its
// text is the code alone.
type RefusedError struct{ Code string }

func (e *RefusedError) Error() string { return "publisher: the sink refused the answer: " + e.Code }

// WithSink makes the reader pass every authenticated answer to sink first.
// It returns the reader.
func (r *Reader) WithSink(sink Sink) *Reader {
	r.sink = sink
	return r
}

// WithRoster makes the reader count only answers sent by each store's own
// handler (see Roster), and its collector wait for the roster's stores
// (Collector.RosterStatus) unless it was given others. It returns the reader.
func (r *Reader) WithRoster(roster Roster) *Reader {
	r.roster = roster
	if r.collector.Roster() == nil {
		r.collector.ExpectRoster(roster.Stores())
	}
	return r
}

// WithMetrics makes the reader write a CloudWatch embedded-metric line
// (contract.MetricAnswersRefused, by Code) to w for every answer it refuses
// on the roster's grounds: in Lambda or with the CloudWatch agent, stdout.
func (r *Reader) WithMetrics(w io.Writer) *Reader {
	r.metrics = w
	return r
}

// emitRefused counts one refused answer. The line carries the code only:
// never the subscriber the answer claims, its requestId or its sender.
func (r *Reader) emitRefused(code string) { r.emit(contract.MetricAnswersRefused, code) }

// emit writes one embedded-metric line of metric, by code.
func (r *Reader) emit(metric, code string) {
	if r.metrics == nil {
		return
	}
	_, _ = r.metrics.Write(contract.CodeMetricLine(r.now(), metric, code))
}

// Conflicts is how many answers contradicted their store's earlier answer.
func (r *Reader) Conflicts() int { return int(r.conflicts.Load()) }

// Refused is how many answers the roster refused (each receive counts).
func (r *Reader) Refused() int { return int(r.refused.Load()) }

// SinkRefused is how many answers the sink recorded as refused (RefusedError):
// deleted, never counted.
func (r *Reader) SinkRefused() int { return int(r.sinkRefused.Load()) }

// NewReader returns a reader of the response queue at queueURL.
func NewReader(client ReceiveAPI, queueURL string, c *Collector, log *slog.Logger) *Reader {
	if log == nil {
		log = slog.Default()
	}
	return &Reader{client: client, queueURL: queueURL, collector: c, log: log, now: time.Now}
}

// Poll receives once (long-polling up to wait) and returns how many valid
// answers it recorded.
func (r *Reader) Poll(ctx context.Context, wait time.Duration) (int, error) {
	in := &sqs.ReceiveMessageInput{
		QueueUrl:            aws.String(r.queueURL),
		MaxNumberOfMessages: 10,
		WaitTimeSeconds:     int32(wait / time.Second),
	}
	if r.roster != nil || r.sink != nil {
		in.MessageSystemAttributeNames = []types.MessageSystemAttributeName{types.MessageSystemAttributeNameSenderId}
	}
	out, err := r.client.ReceiveMessage(ctx, in)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range out.Messages {
		resp, err := contract.ParseResponse([]byte(aws.ToString(m.Body)))
		if err != nil {
			r.invalid++
			var ce *contract.ContractError
			code := "ERROR"
			if errors.As(err, &ce) {
				code = string(ce.Code)
			}
			r.log.Warn("erasure answer refused; left for the dead-letter queue", "code", code, "refused", r.invalid)
			continue
		}
		if r.roster != nil && !r.roster.Allows(resp.Subscriber, m.Attributes[string(types.MessageSystemAttributeNameSenderId)]) {
			refused := r.refused.Add(1)
			r.log.Warn("erasure answer from a sender that is not its store's handler; not counted, left for the dead-letter queue",
				"code", contract.CodeSenderNotOnRoster, "refused", refused)
			r.emitRefused(contract.CodeSenderNotOnRoster)
			continue
		}
		if r.sink != nil {
			err := r.sink(ctx, resp, m.Attributes[string(types.MessageSystemAttributeNameSenderId)], aws.ToString(m.MessageId))
			if refused := (*RefusedError)(nil); errors.As(err, &refused) {
				r.sinkRefused.Add(1)
				r.log.Warn("erasure answer refused by the ledger; recorded there, not counted", "code", refused.Code)
				if _, err := r.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(r.queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
					r.log.Warn("erasure answer not deleted; it will be read again", "code", "DELETE_FAILED")
				}
				continue
			}
			if err != nil {
				r.log.Warn("erasure answer not recorded; it will be read again", "code", "SINK_FAILED")
				continue
			}
		}
		if r.collector.Add(resp) {
			n := r.conflicts.Add(1)
			r.log.Warn("erasure answer contradicts its store's earlier answer to the round; the first stands",
				"code", contract.CodeConflictingAnswer, "conflicts", n)
			r.emit(contract.MetricAnswersConflicting, contract.CodeConflictingAnswer)
		}
		if _, err := r.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(r.queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			r.log.Warn("erasure answer not deleted; it will be read again", "code", "DELETE_FAILED")
		}
		n++
	}
	return n, nil
}

// Run polls until ctx ends.
func (r *Reader) Run(ctx context.Context, wait time.Duration) error {
	for ctx.Err() == nil {
		if _, err := r.Poll(ctx, wait); err != nil && ctx.Err() == nil {
			r.log.Warn("erasure response queue receive failed", "code", "RECEIVE_FAILED")
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
	}
	return nil
}
