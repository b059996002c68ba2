package local

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// HandlerFunc is a Lambda SQS handler, such as (*storehandler.Handler).Handle.
type HandlerFunc func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Poller plays Lambda's SQS event source mapping for one store: it receives
// up to BatchSize messages, invokes the handler with a deadline of the
// handler timeout, deletes the records that did not fail, and leaves the
// failed ones to reappear after the visibility timeout (and, after
// maxReceiveCount receives, to move to the dead-letter queue).
type Poller struct {
	Client   *sqs.Client
	Store    *StoreQueues
	Handler  HandlerFunc
	Region   string
	WaitTime time.Duration // long-poll wait; default 1 s
}

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	wait := p.WaitTime
	if wait == 0 {
		wait = time.Second
	}
	for ctx.Err() == nil {
		out, err := p.Client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:              aws.String(p.Store.Queue.URL),
			MaxNumberOfMessages:   int32(p.Store.Spec.Settings.BatchSize),
			WaitTimeSeconds:       int32(wait / time.Second),
			MessageAttributeNames: []string{"All"},
			// Lambda's event source hands the handler every system
			// attribute; the handler proves pass two by SenderId.
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameSenderId},
		})
		if err != nil || len(out.Messages) == 0 {
			if err != nil {
				sleep(ctx, wait)
			}
			continue
		}
		ev := events.SQSEvent{Records: make([]events.SQSMessage, len(out.Messages))}
		for i, m := range out.Messages {
			ev.Records[i] = events.SQSMessage{
				MessageId:         aws.ToString(m.MessageId),
				ReceiptHandle:     aws.ToString(m.ReceiptHandle),
				Body:              aws.ToString(m.Body),
				MessageAttributes: attributes(m.MessageAttributes),
				Attributes:        m.Attributes,
				EventSource:       "aws:sqs",
				EventSourceARN:    p.Store.Queue.ARN,
				AWSRegion:         p.Region,
			}
		}
		timeout := time.Duration(p.Store.Spec.Settings.HandlerTimeoutSeconds) * time.Second
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		resp, err := p.Handler(callCtx, ev)
		cancel()
		if err != nil {
			continue // the whole batch is retried, as Lambda does
		}
		failed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		for _, r := range ev.Records {
			if !failed[r.MessageId] {
				_, _ = p.Client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(p.Store.Queue.URL), ReceiptHandle: aws.String(r.ReceiptHandle)})
			}
		}
	}
}

func attributes(in map[string]sqstypes.MessageAttributeValue) map[string]events.SQSMessageAttribute {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]events.SQSMessageAttribute, len(in))
	for k, v := range in {
		out[k] = events.SQSMessageAttribute{StringValue: v.StringValue, DataType: aws.ToString(v.DataType)}
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
