package publisher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/linn-cloud/erasure-channel/contract"
)

type recorder struct{ in []*sns.PublishInput }

func (r *recorder) Publish(_ context.Context, in *sns.PublishInput, _ ...func(*sns.Options)) (*sns.PublishOutput, error) {
	r.in = append(r.in, in)
	return &sns.PublishOutput{}, nil
}

var now = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

func TestEraseIsValidFreshAndAttributeFree(t *testing.T) {
	rec := &recorder{}
	c := contract.Channel()
	p := New(rec, "arn:aws:sns:eu-west-1:1:t", WithClock(func() time.Time { return now }))
	req, err := p.Erase(context.Background(), contract.KeyAddress, "Jane@Example.COM")
	if err != nil {
		t.Fatal(err)
	}
	in := rec.in[0]
	if len(in.MessageAttributes) != 0 || aws.ToString(in.TopicArn) != "arn:aws:sns:eu-west-1:1:t" {
		t.Fatal("published with attributes or to the wrong topic")
	}
	got, err := contract.ParseRequest([]byte(aws.ToString(in.Message)))
	if err != nil || got != req {
		t.Fatalf("body %v %v", got, err)
	}
	if req.Key != "jane@example.com" || req.SendNo != 1 || !req.ExpiresAt.Equal(now.Add(c.ExpiryPeriod())) {
		t.Fatalf("request %+v", req)
	}
	again, _ := p.Erase(context.Background(), contract.KeyAddress, "Jane@Example.COM")
	if again.RequestID == req.RequestID {
		t.Fatal("requestIds are not fresh")
	}
	re, err := p.Rebroadcast(context.Background(), req)
	if err != nil || re.RequestID != req.RequestID || re.SendNo != 2 {
		t.Fatalf("rebroadcast %+v %v", re, err)
	}
}

func TestRoundPublishBound(t *testing.T) {
	c := contract.Channel()
	rec := &recorder{}
	p := New(rec, "t", WithClock(func() time.Time { return now }))
	r := Round{Type: contract.TypeCheck, KeyKind: contract.KeyAccount, Key: "acct", CreatedAt: now.Add(-c.RoundPublishBound())}
	if _, err := p.PublishRound(context.Background(), r); err != nil {
		t.Fatalf("at P: %v", err)
	}
	r.CreatedAt = r.CreatedAt.Add(-time.Second)
	_, err := p.PublishRound(context.Background(), r)
	if !errors.Is(err, ErrRoundTooLate) {
		t.Fatalf("past P: %v", err)
	}
	if len(rec.in) != 1 {
		t.Fatal("a late round was published")
	}
	if _, err := p.PublishRound(context.Background(), Round{Type: contract.TypeErase, CreatedAt: now}); err == nil {
		t.Fatal("ERASE accepted as a round")
	}
}

func TestInvalidRequestIsNotPublished(t *testing.T) {
	rec := &recorder{}
	p := New(rec, "t")
	_, err := p.Erase(context.Background(), contract.KeyAccount, "")
	var pe *PublishError
	if !errors.As(err, &pe) || pe.Code != "INVALID_REQUEST" || len(rec.in) != 0 {
		t.Fatalf("err = %v", err)
	}
}

func TestCollector(t *testing.T) {
	c := NewCollector()
	k := RoundKey{RequestID: "r", SendNo: 1}
	c.Add(contract.Response{Type: contract.TypeAck, RequestID: "r", SendNo: 1, Subscriber: "a", Outcome: contract.OutcomeDone})
	c.Add(contract.Response{Type: contract.TypeAck, RequestID: "r", SendNo: 1, Subscriber: "b", Outcome: contract.OutcomeNotApplicable})
	c.Add(contract.Response{Type: contract.TypeAck, RequestID: "r", SendNo: 1, Subscriber: "a", Outcome: contract.OutcomeNotApplicable}) // a redelivery keeps the first
	c.Add(contract.Response{Type: contract.TypeAck, RequestID: "r", SendNo: 2, Subscriber: "c", Outcome: contract.OutcomeDone})          // another broadcast
	st := c.Status(k, []string{"a", "b", "d"})
	if st.Complete() || len(st.Missing) != 1 || st.Missing[0] != "d" || len(st.NotApplicable) != 1 || st.NotApplicable[0] != "b" {
		t.Fatalf("status %+v", st)
	}
	if st.Answered["a"].Outcome != contract.OutcomeDone {
		t.Fatal("a redelivery replaced the first answer")
	}
}
