package sender

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

type sendFunc func(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)

func (f sendFunc) SendMessage(ctx context.Context, in *sqs.SendMessageInput, o ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return f(ctx, in, o...)
}

var ack = contract.Response{Type: contract.TypeAck, RequestID: "req-secret-1", SendNo: 1, Subscriber: "space", Outcome: contract.OutcomeDone}

func TestSendValidatesAndSendsWithoutAttributes(t *testing.T) {
	var got *sqs.SendMessageInput
	s := New(sendFunc(func(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
		got = in
		return &sqs.SendMessageOutput{}, nil
	}), "https://sqs.x/1/responses", nil)
	if err := s.Send(context.Background(), ack); err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.QueueUrl) != "https://sqs.x/1/responses" || len(got.MessageAttributes) != 0 {
		t.Fatalf("input %+v", got)
	}
	if r, err := contract.ParseResponse([]byte(aws.ToString(got.MessageBody))); err != nil || r != ack {
		t.Fatalf("body %v %v", r, err)
	}
}

func TestInvalidAnswerIsNotSent(t *testing.T) {
	var log bytes.Buffer
	s := New(sendFunc(func(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
		t.Fatal("an invalid answer was sent")
		return nil, nil
	}), "u", slog.New(slog.NewJSONHandler(&log, nil)))
	bad := ack
	bad.Outcome = contract.OutcomeMoved // not an ERASE outcome
	err := s.Send(context.Background(), bad)
	var se *ResponseSendError
	if !errors.As(err, &se) || se.Code != CodeInvalidResponse || !errors.Is(err, contract.ErrInvalidMessage) {
		t.Fatalf("err = %v", err)
	}
}

// TestFailureLogsCodeAndCountOnly: the log line and the error carry the code
// and the count, never the body, a key or the requestId.
func TestFailureLogsCodeAndCountOnly(t *testing.T) {
	var log bytes.Buffer
	s := New(sendFunc(func(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
		return nil, &smithy.GenericAPIError{Code: "AWS.SimpleQueueService.NonExistentQueue", Message: "queue req-secret-1 gone"}
	}), "u", slog.New(slog.NewJSONHandler(&log, nil)))
	for i := 1; i <= 2; i++ {
		err := s.Send(context.Background(), ack)
		var se *ResponseSendError
		if !errors.As(err, &se) || se.Code != CodeSendFailed || se.FailedSends != int64(i) || se.AWSCode != "AWS.SimpleQueueService.NonExistentQueue" {
			t.Fatalf("err = %#v", err)
		}
		if strings.Contains(err.Error(), "req-secret-1") {
			t.Fatal("the error carries the requestId")
		}
	}
	if s.FailedSends() != 2 || !strings.Contains(log.String(), `"failedSends":2`) || !strings.Contains(log.String(), `"code":"SEND_FAILED"`) {
		t.Fatalf("log %s", log.String())
	}
	if strings.Contains(log.String(), "req-secret-1") || strings.Contains(log.String(), "erasure/ACK") || strings.Contains(log.String(), "space") {
		t.Fatalf("the log carries the answer: %s", log.String())
	}
}

func TestCanceledSend(t *testing.T) {
	s := New(sendFunc(func(ctx context.Context, _ *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
		return nil, ctx.Err()
	}), "u", slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Send(ctx, ack)
	var se *ResponseSendError
	if !errors.As(err, &se) || se.Code != CodeCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
