// Package publisher is the account service's side of the channel: it builds
// requests with a fresh requestId and expiresAt = now + R, validates them,
// publishes them on the erasure topic with no message attribute, and enforces
// the round publish bound P for CHECK and CLASSIFY. Collector and Reader
// gather the stores' answers.
package publisher

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// PublishAPI is the one SNS call the publisher makes.
type PublishAPI interface {
	Publish(ctx context.Context, in *sns.PublishInput, optFns ...func(*sns.Options)) (*sns.PublishOutput, error)
}

// Publisher publishes requests on one topic.
type Publisher struct {
	client   PublishAPI
	topicARN string
	now      func() time.Time
	c        contract.Constants
	newID    func() string
}

// Option sets an optional Publisher setting.
type Option func(*Publisher)

// WithClock sets the publisher's clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(p *Publisher) { p.now = now } }

// WithConstants sets the channel constants (default contract.Channel()).
func WithConstants(c contract.Constants) Option { return func(p *Publisher) { p.c = c } }

// WithRequestIDs sets the requestId generator (default a random UUID v4).
func WithRequestIDs(f func() string) Option { return func(p *Publisher) { p.newID = f } }

// New returns a publisher for the topic at topicARN.
func New(client PublishAPI, topicARN string, opts ...Option) *Publisher {
	p := &Publisher{client: client, topicARN: topicARN, now: time.Now, c: contract.Channel(), newID: NewRequestID}
	for _, o := range opts {
		o(p)
	}
	return p
}

// NewRequestID returns a random UUID v4.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// PublishError is a failed publish: the request was invalid, or SNS refused
// it. It never carries the request.
type PublishError struct {
	Code    string // INVALID_REQUEST, ROUND_TOO_LATE, PUBLISH_FAILED, CANCELED
	AWSCode string
	err     error
}

func (e *PublishError) Error() string {
	s := "erasure: publish failed: " + e.Code
	if e.AWSCode != "" {
		s += " (" + e.AWSCode + ")"
	}
	return s
}

// Unwrap exposes the cause.
func (e *PublishError) Unwrap() error { return e.err }

// ErrRoundTooLate: a CHECK or CLASSIFY round was not published within P of
// its creation.
var ErrRoundTooLate = errors.New("erasure: round not published within roundPublishBoundSeconds of its creation")

// Erase publishes sendNo 1 of an ERASE. An ADDRESS key is passed through
// contract.AddressKey first.
func (p *Publisher) Erase(ctx context.Context, kind contract.KeyKind, key string) (contract.Request, error) {
	return p.publish(ctx, contract.Request{Type: contract.TypeErase, RequestID: p.newID(), SendNo: 1, KeyKind: kind, Key: keyFor(kind, key)})
}

// Refile publishes sendNo 1 of a REFILE moving accountID's rows from one
// address to another (both passed through contract.AddressKey).
func (p *Publisher) Refile(ctx context.Context, from, to, accountID string) (contract.Request, error) {
	return p.publish(ctx, contract.Request{Type: contract.TypeRefile, RequestID: p.newID(), SendNo: 1, KeyKind: contract.KeyAddress,
		From: contract.AddressKey(from), To: contract.AddressKey(to), AccountID: accountID})
}

// Rebroadcast publishes the next broadcast of a destructive request: the same
// requestId, sendNo + 1, and a fresh expiresAt.
func (p *Publisher) Rebroadcast(ctx context.Context, req contract.Request) (contract.Request, error) {
	if !req.Type.IsDestructive() {
		return contract.Request{}, &PublishError{Code: "INVALID_REQUEST", err: errors.New("only ERASE and REFILE are rebroadcast")}
	}
	req.SendNo++
	return p.publish(ctx, req)
}

// Round is one CHECK or CLASSIFY round, created by the account service's
// tick and published within P of CreatedAt.
type Round struct {
	Type      contract.MessageType // TypeCheck or TypeClassify
	KeyKind   contract.KeyKind
	Key       string
	CreatedAt time.Time
}

// PublishRound publishes a round, refusing it with ErrRoundTooLate once P has
// passed since it was created.
func (p *Publisher) PublishRound(ctx context.Context, r Round) (contract.Request, error) {
	if r.Type != contract.TypeCheck && r.Type != contract.TypeClassify {
		return contract.Request{}, &PublishError{Code: "INVALID_REQUEST", err: errors.New("a round is CHECK or CLASSIFY")}
	}
	if p.now().Sub(r.CreatedAt) > p.c.RoundPublishBound() {
		return contract.Request{}, &PublishError{Code: "ROUND_TOO_LATE", err: ErrRoundTooLate}
	}
	return p.publish(ctx, contract.Request{Type: r.Type, RequestID: p.newID(), KeyKind: r.KeyKind, Key: keyFor(r.KeyKind, r.Key)})
}

func keyFor(kind contract.KeyKind, key string) string {
	if kind == contract.KeyAddress {
		return contract.AddressKey(key)
	}
	return key
}

// NewErase builds sendNo 1 of an ERASE without publishing it: its requestId
// and expiresAt (R from now) filled in, an ADDRESS key passed through
// contract.AddressKey. A ledger records it, then PublishRequest sends it.
func (p *Publisher) NewErase(kind contract.KeyKind, key string) contract.Request {
	return p.Prepare(contract.Request{Type: contract.TypeErase, RequestID: p.newID(), SendNo: 1, KeyKind: kind, Key: keyFor(kind, key)})
}

// NewRefile builds sendNo 1 of a REFILE without publishing it (addresses
// passed through contract.AddressKey).
func (p *Publisher) NewRefile(from, to, accountID string) contract.Request {
	return p.Prepare(contract.Request{Type: contract.TypeRefile, RequestID: p.newID(), SendNo: 1, KeyKind: contract.KeyAddress,
		From: contract.AddressKey(from), To: contract.AddressKey(to), AccountID: accountID})
}

// NewRound builds a CHECK or CLASSIFY round without publishing it.
func (p *Publisher) NewRound(r Round) (contract.Request, error) {
	if r.Type != contract.TypeCheck && r.Type != contract.TypeClassify {
		return contract.Request{}, &PublishError{Code: "INVALID_REQUEST", err: errors.New("a round is CHECK or CLASSIFY")}
	}
	if p.now().Sub(r.CreatedAt) > p.c.RoundPublishBound() {
		return contract.Request{}, &PublishError{Code: "ROUND_TOO_LATE", err: ErrRoundTooLate}
	}
	return p.Prepare(contract.Request{Type: r.Type, RequestID: p.newID(), KeyKind: r.KeyKind, Key: keyFor(r.KeyKind, r.Key)}), nil
}

// Prepare sets a request's expiresAt to R from now.
func (p *Publisher) Prepare(req contract.Request) contract.Request {
	req.ExpiresAt = p.now().UTC().Add(p.c.ExpiryPeriod())
	return req
}

// PublishRequest publishes a request as it is (expiresAt included), for a
// ledger that recorded it first; one without expiresAt gets R from now.
func (p *Publisher) PublishRequest(ctx context.Context, req contract.Request) (contract.Request, error) {
	if req.ExpiresAt.IsZero() {
		req = p.Prepare(req)
	}
	return p.send(ctx, req)
}

func (p *Publisher) publish(ctx context.Context, req contract.Request) (contract.Request, error) {
	return p.send(ctx, p.Prepare(req))
}

func (p *Publisher) send(ctx context.Context, req contract.Request) (contract.Request, error) {
	body, err := contract.EncodeRequest(req)
	if err != nil {
		return contract.Request{}, &PublishError{Code: "INVALID_REQUEST", err: err}
	}
	_, err = p.client.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(p.topicARN), Message: aws.String(string(body))})
	if err != nil {
		e := &PublishError{Code: "PUBLISH_FAILED", err: err}
		var api smithy.APIError
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			e.Code = "CANCELED"
		case errors.As(err, &api):
			e.AWSCode = api.ErrorCode()
		}
		return contract.Request{}, e
	}
	return req, nil
}
