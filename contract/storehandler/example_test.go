package storehandler_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
)

// answers prints each answer instead of sending it to the response queue.
type answers struct{}

func (answers) Send(_ context.Context, r contract.Response) error {
	fmt.Println("answer:", r.Type, r.Subscriber, r.Answer)
	return nil
}

// ownQueue would receive pass two of a destructive request.
type ownQueue struct{}

func (ownQueue) SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return &sqs.SendMessageOutput{}, nil
}

// A store that implements CHECK by account: the adapter parses each record,
// drops an expired one without an answer, dispatches the pair, and answers
// NOT_APPLICABLE at once for a pair the store does not implement. In a
// Lambda, pass h.Handle to lambda.Start.
func ExampleNew() {
	h, err := storehandler.New(storehandler.Config{
		Env: contract.HandlerEnvironment{Subscriber: "space", PassTwoDelay: 5 * time.Minute, BatchTimeout: time.Minute,
			ResponseQueueURL: "https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-responses",
			QueueURL:         "https://sqs.eu-west-1.amazonaws.com/111111111111/space"},
		Implementations: map[contract.Pair]storehandler.Func{
			{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}: func(ctx context.Context, req contract.Request, _ storehandler.Pass) (string, error) {
				return string(contract.AnswerHoldsData), nil // look the account up here
			},
		},
		Responses: answers{},
		Queue:     ownQueue{},
		Now:       func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) },
		Metrics:   discard{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, _ := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "1", Body: `{"type":"erasure/CHECK","requestId":"r-1","expiresAt":"2099-01-01T00:00:00Z","keyKind":"ACCOUNT","key":"acct-42"}`},
		{MessageId: "2", Body: `{"type":"erasure/CHECK","requestId":"r-2","expiresAt":"2099-01-01T00:00:00Z","keyKind":"ADDRESS","key":"a@example.com"}`},
		{MessageId: "3", Body: `not json`},
	}})
	fmt.Println("failed records:", len(resp.BatchItemFailures))
	// Output:
	// answer: erasure/HOLDINGS space HOLDS_DATA
	// answer: erasure/HOLDINGS space NOT_APPLICABLE
	// failed records: 1
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
