package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Request is a request's state as the ledger holds it.
type Request struct {
	RequestID  string
	Type       contract.MessageType
	KeyKind    contract.KeyKind
	KeyDigest  string
	SendNo     int // the latest broadcast (0 for CHECK and CLASSIFY)
	ExpiresAt  time.Time
	Roster     []string
	Status     Status
	ReceivedAt time.Time
	DueBy      time.Time // one calendar month from receipt (GDPR Art. 12(3))
	// CompletedAt is when the request completed; LogIndex its receipt's
	// index in the log (-1 until appended).
	CompletedAt time.Time
	LogIndex    int
}

// DueBy is a request's deadline: one calendar month from its receipt
// (Art. 12(3) GDPR), the month counted as Regulation 1182/71 counts it.
func DueBy(received time.Time) time.Time { return received.UTC().AddDate(0, 1, 0) }

// Publisher is what the ledger publishes through: publisher.Publisher.
type Publisher interface {
	PublishRequest(ctx context.Context, req contract.Request) (contract.Request, error)
}

// Record writes a request and its first broadcast before either is published:
// its type, key kind and keyed key digest, sendNo, expiresAt and the roster
// it waits for. A request already recorded is refused (DUPLICATE_REQUEST).
func (l *Ledger) Record(ctx context.Context, req contract.Request, roster []string, receivedAt time.Time) error {
	if len(roster) == 0 {
		return fail("NO_ROSTER", errors.New("a request waits for at least one store"))
	}
	if req.RequestID == "" || req.ExpiresAt.IsZero() {
		return fail("INVALID_REQUEST", errors.New("a request needs its requestId and expiresAt"))
	}
	exp := req.ExpiresAt
	roster = append([]string(nil), roster...)
	sort.Strings(roster)
	digest := ""
	switch req.Type {
	case contract.TypeRefile:
		digest = l.keyDigest(contract.KeyAccount, req.AccountID)
	default:
		digest = l.keyDigest(req.KeyKind, req.Key)
	}
	it := key(reqPK(req.RequestID), "REQ")
	it["Type"], it["KeyKind"], it["KeyDigest"] = s(string(req.Type)), s(string(req.KeyKind)), s(digest)
	it["SendNo"], it["ExpiresAt"], it["Roster"] = n(req.SendNo), s(stamp(exp)), ss(roster)
	it["Status"], it["ReceivedAt"], it["DueBy"] = s(string(StatusOpen)), s(stamp(receivedAt)), s(stamp(DueBy(receivedAt)))
	// Until it is published the sweeper looks at it one publisher tick on:
	// a publisher that crashed after recording leaves it to the sweeper, still
	// inside P for a CHECK or CLASSIFY round.
	it["Pending"], it["Due"] = s(pendingKey("OPEN", req.RequestID)), s(stamp(receivedAt.Add(l.publishGrace())))
	it["LogIndex"] = n(-1)
	sealed, err := l.seal(ctx, req)
	if err != nil {
		return err
	}
	it["SealedKey"] = s(sealed)
	// The round first: a request item never exists without its broadcast.
	if err := l.putRound(ctx, req.RequestID, req.SendNo, exp); err != nil {
		return err
	}
	_, err = l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if isConditionFailed(err) {
		return fail("DUPLICATE_REQUEST", errors.New("the request is already recorded"))
	}
	if err != nil {
		return fail("WRITE_FAILED", err)
	}
	return nil
}

func (l *Ledger) putRound(ctx context.Context, requestID string, sendNo int, exp time.Time) error {
	it := key(reqPK(requestID), roundSK(sendNo))
	it["ExpiresAt"] = s(stamp(exp))
	_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if err != nil && !isConditionFailed(err) {
		return fail("WRITE_FAILED", err)
	}
	return nil
}

// MarkPublished records that a broadcast was published; the sweeper next
// looks at the request when the broadcast expires.
func (l *Ledger) MarkPublished(ctx context.Context, requestID string, sendNo int) error {
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(requestID), roundSK(sendNo)),
		UpdateExpression:          aws.String("SET PublishedAt = if_not_exists(PublishedAt, :t)"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":t": s(stamp(l.now()))},
		ReturnValues:              "ALL_NEW"})
	if isConditionFailed(err) {
		return fail("UNKNOWN_ROUND", errors.New("no such broadcast is recorded"))
	}
	if err != nil {
		return fail("WRITE_FAILED", err)
	}
	_, err = l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(requestID), "REQ"),
		UpdateExpression:          aws.String("SET Due = :e"),
		ConditionExpression:       aws.String("SendNo = :n AND #st = :o"),
		ExpressionAttributeNames:  map[string]string{"#st": "Status"},
		ExpressionAttributeValues: item{":e": out.Attributes["ExpiresAt"], ":n": n(sendNo), ":o": s(string(StatusOpen))}})
	if err != nil && !isConditionFailed(err) { // a later broadcast, or completion, already moved it on
		return fail("WRITE_FAILED", err)
	}
	return nil
}

// sealedFields are what a re-broadcast needs and the ledger keeps only sealed.
type sealedFields struct {
	Key       string `json:"k,omitempty"`
	From      string `json:"f,omitempty"`
	To        string `json:"t,omitempty"`
	AccountID string `json:"a,omitempty"`
}

func (l *Ledger) seal(ctx context.Context, req contract.Request) (string, error) {
	b, _ := json.Marshal(sealedFields{Key: req.Key, From: req.From, To: req.To, AccountID: req.AccountID})
	out, err := l.vault.Seal(ctx, req.RequestID, b)
	if err != nil {
		return "", fail("SEAL_FAILED", err)
	}
	return out, nil
}

// rebuild is the request as published at sendNo, its sealed fields opened.
func (l *Ledger) rebuild(ctx context.Context, r Request, sealed string, sendNo int, exp time.Time) (contract.Request, error) {
	b, err := l.vault.Open(ctx, r.RequestID, sealed)
	if err != nil {
		return contract.Request{}, fail("UNSEAL_FAILED", err)
	}
	var f sealedFields
	if err := json.Unmarshal(b, &f); err != nil {
		return contract.Request{}, fail("UNSEAL_FAILED", errors.New("a sealed key is malformed"))
	}
	return contract.Request{Type: r.Type, RequestID: r.RequestID, SendNo: sendNo, ExpiresAt: exp, KeyKind: r.KeyKind,
		Key: f.Key, From: f.From, To: f.To, AccountID: f.AccountID}, nil
}

// Publish records a request, publishes it, and marks it published. A crash
// between the record and the publish leaves an unpublished broadcast that
// the sweeper publishes: it is never lost.
func (l *Ledger) Publish(ctx context.Context, pub Publisher, req contract.Request, roster []string) (contract.Request, error) {
	if err := l.Record(ctx, req, roster, l.now()); err != nil {
		return req, err
	}
	sent, err := pub.PublishRequest(ctx, req)
	if err != nil {
		return req, fail("PUBLISH_FAILED", fmt.Errorf("recorded; the sweeper publishes it: %w", err))
	}
	return sent, l.MarkPublished(ctx, req.RequestID, req.SendNo)
}

// publishGrace is how long after its record the sweeper takes over an
// unpublished broadcast: the publisher's tick.
func (l *Ledger) publishGrace() time.Duration {
	return time.Duration(l.c.PublisherTickSeconds) * time.Second
}

// Get reads a request's state; ok is false for a request the ledger does not
// hold.
func (l *Ledger) Get(ctx context.Context, requestID string) (Request, bool, error) {
	it, err := l.consistentGet(ctx, key(reqPK(requestID), "REQ"))
	if err != nil || it == nil {
		return Request{}, false, err
	}
	return requestOf(requestID, it), true, nil
}

func requestOf(id string, it item) Request {
	return Request{RequestID: id, Type: contract.MessageType(str(it, "Type")), KeyKind: contract.KeyKind(str(it, "KeyKind")),
		KeyDigest: str(it, "KeyDigest"), SendNo: num(it, "SendNo"), ExpiresAt: parseStamp(str(it, "ExpiresAt")),
		Roster: list(it, "Roster"), Status: Status(str(it, "Status")), ReceivedAt: parseStamp(str(it, "ReceivedAt")),
		DueBy: parseStamp(str(it, "DueBy")), CompletedAt: parseStamp(str(it, "CompletedAt")), LogIndex: num(it, "LogIndex")}
}

// StoreAnswer is one store's recorded answer to a broadcast.
type StoreAnswer struct {
	Subscriber, Outcome, Sender string
	AnsweredAt                  time.Time
}

// Answers are the recorded answers to a request's broadcast sendNo (0 for
// CHECK and CLASSIFY), by store.
func (l *Ledger) Answers(ctx context.Context, requestID string, sendNo int) (map[string]StoreAnswer, error) {
	items, err := l.queryAll(ctx, reqPK(requestID), answerPrefix(sendNo))
	if err != nil {
		return nil, err
	}
	out := map[string]StoreAnswer{}
	for _, it := range items {
		st := str(it, "SK")[len(answerPrefix(sendNo)):]
		out[st] = StoreAnswer{Subscriber: st, Outcome: str(it, "Outcome"), Sender: str(it, "Sender"), AnsweredAt: parseStamp(str(it, "AnsweredAt"))}
	}
	return out, nil
}
