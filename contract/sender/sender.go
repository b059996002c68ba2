// Package sender is the response sender every store handler uses: it
// validates an answer against the contract, sends it to the channel's response
// queue, and on failure logs only an error code and a count of failed sends —
// never the body, a key or a requestId — then returns a *ResponseSendError so
// the handler fails and SQS retries.
package sender

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// SendMessageAPI is the one SQS call the sender makes: an *sqs.Client, or a
// function or fake in tests.
type SendMessageAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// The codes of a ResponseSendError.
const (
	// CodeInvalidResponse: the answer does not pass the contract; nothing was sent.
	CodeInvalidResponse = "INVALID_RESPONSE"
	// CodeSendFailed: SQS did not accept the message.
	CodeSendFailed = "SEND_FAILED"
	// CodeCanceled: the context ended before SQS answered.
	CodeCanceled = "CANCELED"
)

// ResponseSendError is the error of a failed send. Its text is the code and,
// for an SQS failure, the AWS error code; it never carries the answer.
type ResponseSendError struct {
	Code        string // CodeInvalidResponse, CodeSendFailed or CodeCanceled
	AWSCode     string // the AWS API error code, when SQS gave one
	FailedSends int64  // failed sends by this sender so far
	err         error
}

func (e *ResponseSendError) Error() string {
	s := "erasure: response send failed: " + e.Code
	if e.AWSCode != "" {
		s += " (" + e.AWSCode + ")"
	}
	return s
}

// Unwrap exposes the cause for errors.Is (context.Canceled, a *contract.ContractError).
func (e *ResponseSendError) Unwrap() error { return e.err }

// Sender sends answers to one response queue.
type Sender struct {
	client   SendMessageAPI
	queueURL string
	log      *slog.Logger
	failed   atomic.Int64
}

// New returns a sender for the response queue at queueURL. log receives one
// line per failure (code and count only); nil means slog.Default().
func New(client SendMessageAPI, queueURL string, log *slog.Logger) *Sender {
	if log == nil {
		log = slog.Default()
	}
	return &Sender{client: client, queueURL: queueURL, log: log}
}

// FailedSends is the number of sends that failed so far.
func (s *Sender) FailedSends() int64 { return s.failed.Load() }

// Send validates r and sends it. The message carries no attribute.
func (s *Sender) Send(ctx context.Context, r contract.Response) error {
	body, err := contract.EncodeResponse(r)
	if err != nil {
		return s.fail(&ResponseSendError{Code: CodeInvalidResponse, err: err})
	}
	_, err = s.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:    aws.String(s.queueURL),
		MessageBody: aws.String(string(body)),
	})
	if err == nil {
		return nil
	}
	e := &ResponseSendError{Code: CodeSendFailed, err: err}
	var api smithy.APIError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		e.Code = CodeCanceled
	case errors.As(err, &api):
		e.AWSCode = api.ErrorCode()
	}
	return s.fail(e)
}

func (s *Sender) fail(e *ResponseSendError) error {
	e.FailedSends = s.failed.Add(1)
	attrs := []any{"code", e.Code, "failedSends", e.FailedSends}
	if e.AWSCode != "" {
		attrs = append(attrs, "awsCode", e.AWSCode)
	}
	s.log.Error("erasure response send failed", attrs...)
	return e
}
