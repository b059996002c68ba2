package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// The principals of the bench, besides the handler's own (local.HandlerPrincipal).
const (
	accountService = "account-service"
	intruder       = "intruder"
)

// bench is the local channel one handler is judged on: the embedded SNS/SQS
// emulator behind the gate that plays IAM and SenderId, the channel's topic
// and queues, and the handler in its runtime under the Lambda emulator.
type bench struct {
	opts    Options
	ch      *local.Channel
	gate    *local.Gate
	store   *local.StoreQueues
	fn      *lambdaemu.Emulator
	output  *syncBuffer
	refuse  *refusals
	env     []string // the handler's environment as the construct sets it
	self    string   // the handler's SenderId
	publish local.Clients
	other   local.Clients
	asSelf  local.Clients
	// secrets are every value a log line must not hold: bodies, keys,
	// addresses, account ids and requestIds of every message the bench sent.
	secretsMu sync.Mutex
	secrets   []secret
	// coldStart is the first invocation's init and duration.
	coldStart time.Duration
}

type secret struct{ kind, value string }

// minSecretLength is the shortest value the logs case looks for: every key,
// address and requestId the bench sends is longer.
const minSecretLength = 8

// syncBuffer collects the handler's output, as CloudWatch Logs would.
type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Since is what was written from offset on, and the new end.
func (b *syncBuffer) Since(off int) (string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf[off:]), len(b.buf)
}

func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buf)
}

// refusals makes the gate deny the handler's sends to one of the channel's
// queues, as a failing SQS would: the "store call that fails" of the cases.
type refusals struct {
	local.OpenDecider
	mu       sync.Mutex
	resource string
}

func (r *refusals) Decide(principal, action, resource string) iameval.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	if action == "sqs:SendMessage" && resource == r.resource && strings.HasPrefix(principal, "handler/") {
		return iameval.Denied
	}
	return iameval.Allowed
}

func (r *refusals) set(resource string) {
	r.mu.Lock()
	r.resource = resource
	r.mu.Unlock()
}

func (b *bench) remember(kind, value string) {
	if len(strings.TrimSpace(value)) < minSecretLength {
		return // "{}" or "1" is in any log; no personal value is that short
	}
	b.secretsMu.Lock()
	b.secrets = append(b.secrets, secret{kind, value})
	b.secretsMu.Unlock()
}

// rememberRequest records every value of req and its body.
func (b *bench) rememberRequest(req contract.Request, body []byte) {
	b.remember("message body", string(body))
	b.remember("requestId", req.RequestID)
	kind := "key"
	if req.KeyKind == contract.KeyAddress {
		kind = "address"
	}
	b.remember(kind, req.Key)
	b.remember("address", req.From)
	b.remember("address", req.To)
	b.remember("account id", req.AccountID)
}

// publishAndDeliver publishes req on the topic as the account service does,
// with attrs as SNS message attributes (none in a real request), and
// delivers it to the handler as the store's queue receives it.
func (b *bench) publishAndDeliver(ctx context.Context, req contract.Request, attrs map[string]snstypes.MessageAttributeValue) (*delivery, error) {
	body, err := contract.EncodeRequest(req)
	if err != nil {
		return nil, err
	}
	b.rememberRequest(req, body)
	if _, err = b.publish.SNS.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(b.ch.TopicARN), Message: aws.String(string(body)), MessageAttributes: attrs}); err != nil {
		return nil, err
	}
	return b.deliverOne(ctx)
}

// sendRaw sends body to the store's queue as clients' principal.
func (b *bench) sendRaw(ctx context.Context, cl local.Clients, body string, attrs map[string]sqstypes.MessageAttributeValue) error {
	_, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(b.store.Queue.URL), MessageBody: aws.String(body), MessageAttributes: attrs})
	return err
}

// delivery is one invocation the bench made, as Lambda's SQS event source
// makes it.
type delivery struct {
	records []events.SQSMessage
	result  lambdaemu.Result
	failed  map[string]bool // the records the handler reported failed
	// badResponse says the function's response is not an SQS batch response.
	badResponse bool
	output      string // what the handler printed during the invocation
}

// deliver receives up to want messages from the store's queue (waiting up to
// wait for the first), invokes the handler with them as one batch, and then
// deletes them all, failed or not, so that no case sees another's retries.
// It returns nil when no message arrived.
func (b *bench) deliver(ctx context.Context, want int, wait time.Duration) (*delivery, error) {
	var msgs []sqstypes.Message
	deadline := time.Now().Add(wait)
	for len(msgs) < want && time.Now().Before(deadline) {
		w := max(time.Until(deadline), time.Second)
		out, err := b.asSelf.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(b.store.Queue.URL), MaxNumberOfMessages: int32(min(want-len(msgs), 10)),
			WaitTimeSeconds: int32(min(w, 20*time.Second) / time.Second), MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameSenderId},
		})
		if err != nil {
			return nil, fmt.Errorf("conform: receive from the store's queue: %w", err)
		}
		msgs = append(msgs, out.Messages...)
		if len(msgs) > 0 && len(out.Messages) == 0 {
			break
		}
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	d := &delivery{failed: map[string]bool{}}
	ev := events.SQSEvent{}
	for _, m := range msgs {
		attrs := map[string]events.SQSMessageAttribute{}
		for k, v := range m.MessageAttributes {
			attrs[k] = events.SQSMessageAttribute{StringValue: v.StringValue, DataType: aws.ToString(v.DataType)}
		}
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
			MessageAttributes: attrs, Attributes: m.Attributes, EventSource: "aws:sqs", EventSourceARN: b.store.Queue.ARN,
			AWSRegion: b.opts.region(), Md5OfBody: aws.ToString(m.MD5OfBody),
		})
	}
	d.records = ev.Records
	payload, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	off := b.output.Len()
	d.result, err = b.fn.Invoke(ctx, payload, b.opts.handlerTimeout())
	if err != nil {
		return nil, err
	}
	if d.result.ColdStart && !d.result.InitError && b.coldStart == 0 {
		b.coldStart = d.result.InitDuration + d.result.Duration
	}
	time.Sleep(50 * time.Millisecond) // the runtime's last lines
	d.output, _ = b.output.Since(off)
	if d.result.FunctionError == "" {
		d.failed, d.badResponse = batchResponse(d.result.Payload)
	}
	for _, m := range msgs {
		if _, err := b.asSelf.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(b.store.Queue.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			return nil, fmt.Errorf("conform: delete from the store's queue: %w", err)
		}
	}
	return d, nil
}

// batchResponse reads a function's response as Lambda's SQS event source
// does with ReportBatchItemFailures: no response, null, {} or a null or empty
// batchItemFailures is a complete success; a failure without an
// itemIdentifier, or a response that is not such an object, fails the batch.
func batchResponse(payload []byte) (failed map[string]bool, bad bool) {
	failed = map[string]bool{}
	trimmed := strings.TrimSpace(string(payload))
	if trimmed == "" || trimmed == "null" {
		return failed, false
	}
	var resp struct {
		BatchItemFailures []struct {
			ItemIdentifier *string `json:"itemIdentifier"`
		} `json:"batchItemFailures"`
	}
	if json.Unmarshal(payload, &resp) != nil {
		return failed, true
	}
	for _, f := range resp.BatchItemFailures {
		if f.ItemIdentifier == nil || *f.ItemIdentifier == "" {
			return failed, true
		}
		failed[*f.ItemIdentifier] = true
	}
	return failed, false
}

// failedWhole says the handler failed the whole batch rather than its records.
func (d *delivery) failedWhole() bool { return d.result.FunctionError != "" || d.badResponse }

// recordFailed says whether the handler reported the record with this body
// as failed (or failed the whole batch).
func (d *delivery) recordFailed(i int) bool {
	return d.failedWhole() || d.failed[d.records[i].MessageId]
}

// answers drains the response queue: every answer sent since the last call.
func (b *bench) answers(ctx context.Context, wait time.Duration) ([]sqstypes.Message, error) {
	var out []sqstypes.Message
	for {
		got, err := b.publish.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(b.ch.ResponseQueue.URL), MaxNumberOfMessages: 10,
			WaitTimeSeconds: int32(wait / time.Second), MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameSenderId},
		})
		if err != nil {
			return nil, fmt.Errorf("conform: receive from the response queue: %w", err)
		}
		if len(got.Messages) == 0 {
			return out, nil
		}
		for _, m := range got.Messages {
			if _, err := b.publish.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(b.ch.ResponseQueue.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				return nil, err
			}
		}
		out = append(out, got.Messages...)
		wait = 0
	}
}
