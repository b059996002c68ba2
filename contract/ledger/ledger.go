// Package ledger is the account service's durable record of erasure requests
// on DynamoDB: every request recorded before it is published, every answer
// recorded exactly once with a conditional write, completion decided from the
// table, expired rounds re-broadcast by a sweeper up to the channel's
// maxBroadcasts, and a tamper-evident log of receipts (a Merkle tree with
// signed tree heads, golang.org/x/mod/sumdb/tlog and note) that holds no
// personal data. The table holds no key, address or message body: a request's
// key is kept only as a keyed hash.
//
// The table (one, on-demand) has a string partition key PK and sort key SK,
// and one sparse global secondary index, "pending" (Pending, Due), over the
// items that need the sweeper: open requests by expiry, completed requests
// awaiting their receipt. Items, by PK and SK:
//
//	REQ#<requestId>  REQ                    the request: type, keyKind, keyDigest, sendNo, expiresAt, roster, status
//	REQ#<requestId>  ROUND#<sendNo>         one broadcast: expiresAt, publishedAt once published
//	REQ#<requestId>  ANS#<sendNo>#<store>   one store's first answer to a broadcast: outcome, sender, answeredAt
//	REQ#<requestId>  CONFLICT#<sendNo>#<store>#<outcome>  a later, contradicting answer
//	REFUSED#<day>    <messageId>            an answer refused, with its code (no body)
//	LOG              REC#<index>            a receipt, canonical JSON
//	LOG              HASH#<index>           a stored hash of the Merkle tree
//	LOG              HEAD                   the tree size and the signed tree head
package ledger

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
)

// API is what the ledger calls on DynamoDB.
type API interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Status is a request's state in the ledger.
type Status string

// Request states.
const (
	StatusOpen      Status = "OPEN"      // waiting for answers to its latest broadcast
	StatusComplete  Status = "COMPLETE"  // every roster store answered the latest broadcast with an allowed outcome
	StatusExhausted Status = "EXHAUSTED" // maxBroadcasts broadcasts expired without every answer: the alarm
	StatusExpired   Status = "EXPIRED"   // a CHECK or CLASSIFY round expired without every answer (never re-broadcast)
)

// PendingIndex is the sparse global secondary index the sweeper reads.
const PendingIndex = "pending"

// pendingShards spreads the pending index over this many partition keys, so
// that a million requests a day do not share one hot key.
const pendingShards = 16

// Options configure a Ledger.
type Options struct {
	// Table is the table's name.
	Table string
	// KeySecret keys the HMAC of each request's key (the receipt's keyDigest):
	// a plain hash of an account id is still personal data. Required.
	KeySecret []byte
	// Signer signs the receipt log's tree heads (a note signer key, see
	// GenerateLogKey). Required to append receipts.
	Signer string
	// Verifier is the signer's note verifier key: the sweeper checks the
	// table's log against the anchor with it. Required with Anchor.
	Verifier string
	// Anchor, when set, receives every signed tree head, and each sweep
	// first checks that the table's log extends the latest head it holds
	// (on AWS, ErasureLedger's Object Lock bucket).
	Anchor *Anchor
	// Vault seals an open request's key for its re-broadcasts. Required.
	Vault Vault
	// Lingering is each store's lingering bound in days (a bitmap store's
	// noncurrent-version expiry), copied into its receipts.
	Lingering map[string]int
	// Constants default to contract.Channel().
	Constants *contract.Constants
	// Now defaults to time.Now.
	Now func() time.Time
	// Metrics receives a CloudWatch embedded-metric line per refused answer,
	// conflict, exhausted or overdue request (stdout in Lambda). Optional.
	Metrics io.Writer
}

// Ledger is the request ledger on one table.
type Ledger struct {
	db       API
	table    string
	secret   []byte
	signer   string
	verifier string
	anchor   *Anchor
	linger   map[string]int
	vault    Vault
	c        contract.Constants
	now      func() time.Time
	metrics  io.Writer
	emitMu   sync.Mutex // one metric line at a time: the sweep emits from its workers
}

// New returns a ledger on opts.Table.
func New(db API, opts Options) (*Ledger, error) {
	if opts.Table == "" {
		return nil, errors.New("ledger: no table name")
	}
	if len(opts.KeySecret) < 16 {
		return nil, errors.New("ledger: the key secret must be at least 16 bytes")
	}
	if opts.Vault == nil {
		return nil, errors.New("ledger: no vault to seal open requests' keys")
	}
	if opts.Anchor != nil && (opts.Anchor.API == nil || opts.Anchor.Bucket == "" || opts.Signer == "" || opts.Verifier == "") {
		return nil, errors.New("ledger: an anchor needs its S3 client and bucket, and the log's signer and verifier keys")
	}
	l := &Ledger{db: db, table: opts.Table, secret: opts.KeySecret, signer: opts.Signer, verifier: opts.Verifier, anchor: opts.Anchor, linger: opts.Lingering,
		vault: opts.Vault, c: contract.Channel(), now: time.Now, metrics: opts.Metrics}
	if opts.Constants != nil {
		l.c = *opts.Constants
	}
	if opts.Now != nil {
		l.now = opts.Now
	}
	return l, nil
}

// Error is a ledger error with a code; it never carries a key, a body or a
// requestId.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "ledger: " + e.Code + ": " + e.Err.Error()
	}
	return "ledger: " + e.Code
}

func (e *Error) Unwrap() error { return e.Err }

func fail(code string, err error) error { return &Error{Code: code, Err: err} }

// ---------------------------------------------------------------- item helpers

type item = map[string]types.AttributeValue

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }
func ss(v []string) types.AttributeValue {
	out := make([]types.AttributeValue, len(v))
	for i, x := range v {
		out[i] = s(x)
	}
	return &types.AttributeValueMemberL{Value: out}
}

func str(it item, k string) string {
	if v, ok := it[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func num(it item, k string) int {
	if v, ok := it[k].(*types.AttributeValueMemberN); ok {
		i, _ := strconv.Atoi(v.Value)
		return i
	}
	return 0
}

func list(it item, k string) []string {
	v, ok := it[k].(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(v.Value))
	for _, x := range v.Value {
		if s, ok := x.(*types.AttributeValueMemberS); ok {
			out = append(out, s.Value)
		}
	}
	return out
}

func key(pk, sk string) item { return item{"PK": s(pk), "SK": s(sk)} }

func reqPK(id string) string                { return "REQ#" + id }
func roundSK(sendNo int) string             { return fmt.Sprintf("ROUND#%04d", sendNo) }
func answerPrefix(sendNo int) string        { return fmt.Sprintf("ANS#%04d#", sendNo) }
func answerSK(sendNo int, st string) string { return answerPrefix(sendNo) + st }

// stamp is the ledger's time format: RFC 3339 UTC with fixed nanoseconds, so
// that string order is time order in the pending index.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

func parseStamp(v string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t
}

func shard(requestID string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(requestID))
	return int(h.Sum32() % pendingShards)
}

func pendingKey(state string, requestID string) string {
	return fmt.Sprintf("%s#%02d", state, shard(requestID))
}

// isConditionFailed reports a conditional write that did not apply.
func isConditionFailed(err error) bool {
	var cf *types.ConditionalCheckFailedException
	return errors.As(err, &cf)
}

// keyDigest is the HMAC-SHA256 of a request's key under the ledger secret.
func (l *Ledger) keyDigest(kind contract.KeyKind, k string) string {
	m := hmac.New(sha256.New, l.secret)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(k))
	return hex.EncodeToString(m.Sum(nil))
}

// KeyDigest is the keyed hash a receipt carries for a key: the account service
// recomputes it to find a subject's receipts.
func (l *Ledger) KeyDigest(kind contract.KeyKind, k string) string { return l.keyDigest(kind, k) }

func (l *Ledger) consistentGet(ctx context.Context, k item) (item, error) {
	out, err := l.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(l.table), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fail("READ_FAILED", err)
	}
	return out.Item, nil
}

// queryAll reads every item of a partition under a sort-key prefix,
// consistently.
func (l *Ledger) queryAll(ctx context.Context, pk, prefix string) ([]item, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(l.table),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": s(pk), ":p": s(prefix)},
		ConsistentRead:            aws.Bool(true),
	}
	if prefix == "" {
		in.KeyConditionExpression, in.ExpressionAttributeValues = aws.String("PK = :pk"), item{":pk": s(pk)}
	}
	return l.queryPages(ctx, in)
}

// queryPages runs a query page by page and returns every item.
func (l *Ledger) queryPages(ctx context.Context, in *dynamodb.QueryInput) ([]item, error) {
	var out []item
	for {
		q, err := l.db.Query(ctx, in)
		if err != nil {
			return nil, fail("READ_FAILED", err)
		}
		out = append(out, q.Items...)
		if len(q.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = q.LastEvaluatedKey
	}
}

// emit writes one CloudWatch embedded-metric line: the metric and its code,
// never a requestId, key or store.
func (l *Ledger) emit(metric, code string) {
	l.emitMu.Lock()
	defer l.emitMu.Unlock()
	if l.metrics == nil {
		return
	}
	_, _ = l.metrics.Write(contract.CodeMetricLine(l.now(), metric, code))
}

// Table is the ledger's table name.
func (l *Ledger) Table() string { return l.table }

// WithAPI returns a ledger like l (its table, secrets, vault, constants and
// clock) that calls DynamoDB through db: an instrumented or fault-injecting
// client.
func (l *Ledger) WithAPI(db API) *Ledger {
	return &Ledger{db: db, table: l.table, secret: l.secret, signer: l.signer, verifier: l.verifier, anchor: l.anchor, linger: l.linger, vault: l.vault, c: l.c, now: l.now, metrics: l.metrics}
}
