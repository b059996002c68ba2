// Package storehandler is the Lambda SQS adapter a store's erasure handler
// runs. A store gives it the (type, keyKind) pairs it implements and a
// function per pair; for every record of a batch the adapter does the
// contract's steps in order:
//
//  1. parse: an invalid body fails that record (a batch item failure, so SQS
//     retries and then dead-letters it), with only the error code logged;
//  2. expiry, by the store's own clock: an expired valid request is consumed
//     with no answer;
//  3. dispatch: an unimplemented pair is answered NOT_APPLICABLE at once and
//     counted in the ErasureNotApplicable metric (embedded metric format on
//     stdout); an implemented one runs under the batch timeout;
//  4. answer through the response sender; a failed send fails that record only.
//
// A destructive request (ERASE, REFILE) runs twice: after a successful first
// pass the adapter re-sends the request to the store's own queue with the
// pass-two delay, marked as pass two in an SQS message attribute (outside the
// contract body), and answers only after pass two, so DONE means both passes
// ran. Nothing here logs a body, a key, an address or a requestId.
package storehandler

import (
	"sort"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/sender"
)

// Pass is 1 for the first run of a request, 2 for the second run of a
// destructive one.
type Pass int

// Func does a store's work for one implemented pair and returns the outcome:
// an Outcome for ERASE (DONE) and REFILE (MOVED, NONE_OWNED, NOT_MOVED), an
// Answer for CHECK and CLASSIFY (HOLDS_DATA, HOLDS_NONE, CANNOT_ANSWER).
// Returning NOT_APPLICABLE answers at once. ctx ends at the batch timeout.
// An error fails the record: SQS retries it.
type Func func(ctx context.Context, req contract.Request, pass Pass) (string, error)

// ResponseSender sends an answer; *sender.Sender is the real one.
type ResponseSender interface {
	Send(ctx context.Context, r contract.Response) error
}

// DeadlineReserve is the most time the adapter keeps before the Lambda
// deadline to send an answer: a store call ends at its batch timeout or at
// the deadline less the reserve, whichever comes first. The reserve is at most
// a tenth of the time left, so a short handler timeout still gets most of it.
// A record with no time left is not started: it fails and SQS retries it.
const DeadlineReserve = 2 * time.Second

// callDeadline is when a store call starting at now must end, and false if
// there is no time to start one.
func callDeadline(ctx context.Context, now time.Time, batchTimeout time.Duration) (time.Time, bool) {
	end := now.Add(batchTimeout)
	dl, ok := ctx.Deadline()
	if !ok {
		return end, true
	}
	left := dl.Sub(now)
	reserve := min(DeadlineReserve, left/10)
	if left-reserve <= 0 {
		return time.Time{}, false
	}
	if last := dl.Add(-reserve); last.Before(end) {
		end = last
	}
	return end, true
}

// Config configures a Handler.
type Config struct {
	// Env is the handler environment (contract.LoadHandlerEnvironment).
	Env contract.HandlerEnvironment
	// Implementations maps each implemented pair to its function.
	Implementations map[contract.Pair]Func
	// Responses sends answers; typically sender.New(sqsClient, Env.ResponseQueueURL, log).
	Responses ResponseSender
	// Queue sends pass two to the store's own queue (Env.QueueURL).
	Queue sender.SendMessageAPI
	// Now is the store's clock; default time.Now.
	Now func() time.Time
	// Log receives codes, types and counts only; default a JSON logger on stderr.
	Log *slog.Logger
	// Metrics receives one embedded-metric-format line per NOT_APPLICABLE
	// answer; default os.Stdout.
	Metrics io.Writer
	// PassTwoSender is the SenderId SQS reports for a message this handler
	// sent itself: "<its role's unique id>:<its function name>"
	// (contract.HandlerSenderID; NewFromEnvironment builds it from
	// ERASURE_HANDLER_ROLE_ID and AWS_LAMBDA_FUNCTION_NAME). A pass-two
	// marker is accepted only on a record whose SenderId is exactly this,
	// compared whole: a message SNS delivered, or one any other principal
	// sent, is refused (BAD_PASS_MARKER), whatever its attributes say.
	// Required when a destructive pair is implemented.
	PassTwoSender string
}

// ConfigError lists what is wrong with a Config, in the channel's validation
// vocabulary (contract/problem): each problem's path is the Config field.
type ConfigError struct{ Problems problem.List }

func (e *ConfigError) Error() string { return "storehandler: config:\n" + e.Problems.String() }

// Unwrap gives the problems, each an error.
func (e *ConfigError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// Handler is the adapter; Handle is its Lambda entry point.
type Handler struct {
	cfg       Config
	metricsMu sync.Mutex
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	var p problem.List
	config := problem.Root("Config")
	if !contract.IsSubscriberName(cfg.Env.Subscriber) {
		p.Add(config.Child("Env").Child("Subscriber"), problem.Invalid, "not a subscriber name")
	}
	if cfg.Env.BatchTimeout <= 0 {
		p.Add(config.Child("Env").Child("BatchTimeout"), problem.BelowMinimum, "must be positive")
	}
	if cfg.Responses == nil {
		p.Add(config.Child("Responses"), problem.Missing, "required")
	}
	destructive := false
	for pair, fn := range cfg.Implementations {
		at := config.Child("Implementations").Key(string(pair.Type) + " with " + string(pair.KeyKind))
		if !implementable(pair) {
			p.Add(at, problem.Invalid, "not a pair a store can implement")
		}
		if fn == nil {
			p.Add(at, problem.Missing, "no function")
		}
		if pair.Type.IsDestructive() && (cfg.Queue == nil || cfg.Env.QueueURL == "") {
			p.Add(config.Child("Queue"), problem.Missing, "Queue and Env.QueueURL are required for pass two of %s", pair.Type)
		}
		destructive = destructive || pair.Type.IsDestructive()
	}
	if destructive && !validSender(cfg.PassTwoSender) {
		p.Add(config.Child("PassTwoSender"), problem.Invalid, "must be \"<role id>:<function name>\" (contract.HandlerSenderID) for pass two")
	}
	if len(p) > 0 {
		sort.Slice(p, func(i, j int) bool { return p[i].String() < p[j].String() }) // Implementations is a map
		return nil, &ConfigError{Problems: p}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if cfg.Metrics == nil {
		cfg.Metrics = os.Stdout
	}
	return &Handler{cfg: cfg}, nil
}

func implementable(p contract.Pair) bool {
	if !p.Type.IsRequest() || (p.KeyKind != contract.KeyAccount && p.KeyKind != contract.KeyAddress) {
		return false
	}
	return p.Type != contract.TypeRefile || p.KeyKind == contract.KeyAddress
}

// Handle processes every record of the batch and reports the ones that
// failed, so SQS retries only those.
func (h *Handler) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	for i := range ev.Records {
		if err := h.record(ctx, &ev.Records[i]); err != nil {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
		}
	}
	return resp, nil
}

// Errors a record can fail with, besides the contract's and the sender's.
var (
	ErrNoTimeLeft     = errors.New("storehandler: not enough time before the Lambda deadline")
	ErrBadPassMarker  = errors.New("storehandler: a pass-two marker that is not valid")
	ErrPassTwoEnqueue = errors.New("storehandler: pass two could not be enqueued")
)

func (h *Handler) record(ctx context.Context, rec *events.SQSMessage) error {
	log := h.cfg.Log
	// Step 1: validate first.
	req, err := contract.ParseRequest([]byte(rec.Body))
	if err != nil {
		log.Warn("erasure request refused", "code", codeOf(err))
		return err
	}
	pass, passOne, err := passOf(rec, req.Type, h.cfg.PassTwoSender)
	if err != nil {
		log.Warn("erasure request refused", "code", "BAD_PASS_MARKER", "type", string(req.Type))
		return err
	}
	// Step 2: expiry by the store's own clock.
	now := h.cfg.Now()
	if req.Expired(now) {
		log.Info("erasure request expired: consumed without an answer", "type", string(req.Type), "pass", int(pass))
		return nil
	}
	// Step 3: dispatch.
	fn, ok := h.cfg.Implementations[req.Pair()]
	if !ok {
		return h.notApplicable(ctx, req)
	}
	end, ok := callDeadline(ctx, now, h.cfg.Env.BatchTimeout)
	if !ok {
		log.Warn("erasure request deferred", "code", "NO_TIME_LEFT", "type", string(req.Type), "pass", int(pass))
		return ErrNoTimeLeft
	}
	callCtx, cancel := context.WithDeadline(ctx, end)
	outcome, err := fn(callCtx, req, pass)
	cancel()
	if err != nil {
		code := "STORE_CALL_FAILED"
		if errors.Is(err, context.DeadlineExceeded) {
			code = "BATCH_TIMEOUT"
		}
		log.Warn("erasure store call failed", "code", code, "type", string(req.Type), "pass", int(pass))
		return err
	}
	if outcome == string(contract.OutcomeNotApplicable) {
		return h.notApplicable(ctx, req)
	}
	if req.Type.IsDestructive() && pass == 1 {
		if _, err := contract.EncodeResponse(contract.AnswerFor(req, h.cfg.Env.Subscriber, outcome)); err != nil {
			log.Warn("erasure store call returned an outcome the contract refuses", "code", codeOf(err), "type", string(req.Type))
			return err
		}
		return h.enqueuePassTwo(ctx, rec, req, outcome)
	}
	if pass == 2 {
		outcome = combine(req.Type, passOne, outcome)
	}
	// Step 4: answer.
	return h.answer(ctx, contract.AnswerFor(req, h.cfg.Env.Subscriber, outcome))
}

func (h *Handler) notApplicable(ctx context.Context, req contract.Request) error {
	h.emitNotApplicable(req.Type)
	return h.answer(ctx, contract.NotApplicableFor(req, h.cfg.Env.Subscriber))
}

func (h *Handler) answer(ctx context.Context, r contract.Response) error {
	if err := h.cfg.Responses.Send(ctx, r); err != nil {
		return err // the sender has logged its code and count
	}
	h.cfg.Log.Info("erasure answer sent", "type", string(r.Type), "outcome", string(r.Outcome)+string(r.Answer))
	h.emitMetric(contract.MetricAnswers, contract.MetricDimensionOutcome, string(r.Outcome)+string(r.Answer))
	return nil
}

func (h *Handler) enqueuePassTwo(ctx context.Context, rec *events.SQSMessage, req contract.Request, outcome string) error {
	delay := int32(h.cfg.Env.PassTwoDelay / time.Second)
	_, err := h.cfg.Queue.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:     aws.String(h.cfg.Env.QueueURL),
		MessageBody:  aws.String(rec.Body),
		DelaySeconds: delay,
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			contract.AttrPass:           {DataType: aws.String("Number"), StringValue: aws.String("2")},
			contract.AttrPassOneOutcome: {DataType: aws.String("String"), StringValue: aws.String(outcome)},
		},
	})
	if err != nil {
		h.cfg.Log.Warn("erasure pass two not enqueued", "code", "PASS_TWO_ENQUEUE_FAILED", "type", string(req.Type))
		return fmt.Errorf("%w: %w", ErrPassTwoEnqueue, err)
	}
	h.cfg.Log.Info("erasure pass two enqueued", "type", string(req.Type), "delaySeconds", int(delay))
	return nil
}

// validSender says whether s is "<role id>:<session>" with exactly one colon.
func validSender(s string) bool {
	role, session, ok := strings.Cut(s, ":")
	return ok && contract.IsRoleID(role) && session != "" && !strings.Contains(session, ":")
}

// passOf reads the pass-two marker. A record without it is pass one. A
// marker on a non-destructive request, with an outcome the request type
// cannot have, or on a message whose SenderId is not exactly self (this
// handler's own role id and function name), is refused.
func passOf(rec *events.SQSMessage, t contract.MessageType, self string) (Pass, string, error) {
	a, ok := rec.MessageAttributes[contract.AttrPass]
	if !ok {
		return 1, "", nil
	}
	if a.StringValue == nil || *a.StringValue != "2" || !t.IsDestructive() {
		return 0, "", ErrBadPassMarker
	}
	if !validSender(self) || rec.Attributes["SenderId"] != self {
		return 0, "", ErrBadPassMarker
	}
	o, ok := rec.MessageAttributes[contract.AttrPassOneOutcome]
	if !ok || o.StringValue == nil || !outcomeFor(t, *o.StringValue) {
		return 0, "", ErrBadPassMarker
	}
	return 2, *o.StringValue, nil
}

func outcomeFor(t contract.MessageType, o string) bool {
	switch t {
	case contract.TypeErase:
		return o == string(contract.OutcomeDone)
	case contract.TypeRefile:
		return o == string(contract.OutcomeMoved) || o == string(contract.OutcomeNoneOwned) || o == string(contract.OutcomeNotMoved)
	}
	return false
}

// combine is the answer after both passes. For REFILE, NOT_MOVED in either
// pass wins (something could not be moved), then MOVED (something was), then
// NONE_OWNED. ERASE is DONE only when both passes were.
func combine(t contract.MessageType, passOne, passTwo string) string {
	if t != contract.TypeRefile {
		return passTwo
	}
	for _, o := range []contract.Outcome{contract.OutcomeNotMoved, contract.OutcomeMoved} {
		if passOne == string(o) || passTwo == string(o) {
			return string(o)
		}
	}
	return passTwo
}

// emitNotApplicable counts one NOT_APPLICABLE answer of a message type.
func (h *Handler) emitNotApplicable(t contract.MessageType) {
	h.emitMetric(contract.MetricNotApplicable, "MessageType", string(t))
}

// emitMetric writes one CloudWatch embedded-metric-format line counting name
// by Subscriber, or by Subscriber and a second dimension when it is the
// answers metric; extraKey/extraValue are always written as a property.
func (h *Handler) emitMetric(name, extraKey, extraValue string) {
	dims := []string{contract.MetricDimensionSubscriber}
	if name == contract.MetricAnswers {
		dims = append(dims, extraKey)
	}
	line, _ := json.Marshal(map[string]any{
		"_aws": map[string]any{
			"Timestamp": h.cfg.Now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  contract.MetricNamespace,
				"Dimensions": [][]string{dims},
				"Metrics":    []any{map[string]string{"Name": name, "Unit": "Count"}},
			}},
		},
		contract.MetricDimensionSubscriber: h.cfg.Env.Subscriber,
		name:                               1,
		extraKey:                           extraValue,
	})
	h.metricsMu.Lock()
	defer h.metricsMu.Unlock()
	_, _ = h.cfg.Metrics.Write(append(line, '\n'))
}

func codeOf(err error) string {
	var ce *contract.ContractError
	if errors.As(err, &ce) {
		return string(ce.Code)
	}
	var se *sender.ResponseSendError
	if errors.As(err, &se) {
		return se.Code
	}
	return "ERROR"
}
