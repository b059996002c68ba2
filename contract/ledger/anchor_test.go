package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

var (
	s3Once sync.Once
	s3Emu  *emulator.S3
	s3Err  error
	s3No   struct {
		sync.Mutex
		n int
	}
)

// anchorBucket is a fresh versioned bucket on an in-process S3 (gofakes3 has
// no Object Lock: the lock itself is asserted on the ErasureLedger template,
// and deployed on moto by make deploy-local).
func anchorBucket(t *testing.T) (*s3.Client, string) {
	t.Helper()
	s3Once.Do(func() { s3Emu, s3Err = emulator.StartS3("eu-west-1") })
	if s3Err != nil {
		t.Fatalf("the S3 emulator: %v", s3Err)
	}
	s3No.Lock()
	s3No.n++
	name := fmt.Sprintf("anchor-%d", s3No.n)
	s3No.Unlock()
	if err := s3Emu.CreateVersionedBucket(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return s3Emu.Client(), name
}

// flakyAnchor fails its next put when told to: an append that stops between
// the table's head and the anchor's.
type flakyAnchor struct {
	*s3.Client
	failPuts int
}

func (f *flakyAnchor) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if f.failPuts > 0 {
		f.failPuts--
		return nil, errors.New("the anchor is unreachable")
	}
	return f.Client.PutObject(ctx, in, o...)
}

type anchored struct {
	l        *ledger.Ledger
	db       *dynamodb.Client
	anchor   *ledger.Anchor
	api      *flakyAnchor
	verifier string
	signer   string
	metrics  *bytes.Buffer
	clk      *clock
}

// newAnchoredLedger is a ledger on a fresh table whose heads are anchored in
// a fresh bucket; signer and verifier are given to share a key between two
// ledgers ("" for a new key).
func newAnchoredLedger(t *testing.T, signer, verifier string) *anchored {
	t.Helper()
	db := dynamo(t)
	plain, _ := newLedger(t, db, time.Now) // a fresh table
	cl, bucket := anchorBucket(t)
	if signer == "" {
		var err error
		if signer, verifier, err = ledger.GenerateLogKey("erasure-ledger-test"); err != nil {
			t.Fatal(err)
		}
	}
	vault, err := ledger.NewLocalVault(secret(32))
	if err != nil {
		t.Fatal(err)
	}
	a := &anchored{db: db, api: &flakyAnchor{Client: cl}, verifier: verifier, signer: signer, metrics: &bytes.Buffer{}, clk: newClock()}
	a.anchor = &ledger.Anchor{API: a.api, Bucket: bucket}
	a.l, err = ledger.New(db, ledger.Options{Table: plain.Table(), KeySecret: secret(32), Vault: vault, Signer: signer, Verifier: verifier,
		Anchor: a.anchor, Now: a.clk.Now, Metrics: a.metrics, Lingering: map[string]int{"bitmaps": 30}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *anchored) verify(ctx context.Context) (ledger.LogReport, error) {
	// As erasurectl verifies: without the ledger's secret, so without MACs.
	return a.l.VerifyWith(ctx, a.verifier, ledger.VerifyOptions{Anchor: a.anchor})
}

// snapshot is every item of the table (a backup, as point-in-time recovery
// restores it).
func snapshot(t *testing.T, db *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		page, err := db.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
		if page.LastEvaluatedKey == nil {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// restore makes the table hold exactly items, as a restore from a backup does.
func restore(t *testing.T, db *dynamodb.Client, table string, items []map[string]types.AttributeValue) {
	t.Helper()
	for _, it := range snapshot(t, db, table) {
		if _, err := db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
			Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range items {
		putItem(t, db, table, it)
	}
}

// logOnly is the items of the receipt log (PK LOG).
func logOnly(items []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	for _, it := range items {
		if it["PK"].(*types.AttributeValueMemberS).Value == "LOG" {
			out = append(out, it)
		}
	}
	return out
}

func codeOf(err error) string {
	if e := (*ledger.Error)(nil); errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestTheAnchorCatchesWhatTheTableHides: for each way someone who can write
// the ledger's table (and even read its signing key) could hide or rewrite
// receipts, the verifier with the anchor fails with a code, and the sweeper
// refuses to append to the rewritten log while it still publishes. Each case
// says whether the table alone (no anchor, no trusted head) catches it.
func TestTheAnchorCatchesWhatTheTableHides(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, a *anchored, older []map[string]types.AttributeValue)
		// tableAlone is the code Verify without the anchor fails with, ""
		// when the table alone cannot tell.
		tableAlone, withAnchor string
	}{
		{name: "the whole table restored from an older backup", tableAlone: "", withAnchor: contract.CodeLogRolledBack,
			tamper: func(t *testing.T, a *anchored, older []map[string]types.AttributeValue) {
				restore(t, a.db, a.l.Table(), older)
			}},
		{name: "the log truncated to an older head, the requests kept", tableAlone: contract.CodeLogRolledBack, withAnchor: contract.CodeLogRolledBack,
			tamper: func(t *testing.T, a *anchored, older []map[string]types.AttributeValue) {
				var keep []map[string]types.AttributeValue
				for _, it := range snapshot(t, a.db, a.l.Table()) {
					if it["PK"].(*types.AttributeValueMemberS).Value != "LOG" {
						keep = append(keep, it)
					}
				}
				restore(t, a.db, a.l.Table(), append(keep, logOnly(older)...))
			}},
		{name: "the log replaced by another ledger's under the same signing key", tableAlone: contract.CodeLogRolledBack, withAnchor: contract.CodeLogRolledBack,
			tamper: func(t *testing.T, a *anchored, _ []map[string]types.AttributeValue) {
				other := newAnchoredLedger(t, a.signer, a.verifier)
				completeSome(t, other.l, other.clk, 5)
				var keep []map[string]types.AttributeValue
				for _, it := range snapshot(t, a.db, a.l.Table()) {
					if it["PK"].(*types.AttributeValueMemberS).Value != "LOG" {
						keep = append(keep, it)
					}
				}
				// Its requests' receipt indexes still point into a log of
				// five, now holding other requests' records: the table
				// alone sees the ids differ.
				restore(t, a.db, a.l.Table(), append(keep, logOnly(snapshot(t, other.db, other.l.Table()))...))
			}},
		{name: "the log replaced by another ledger's with its requests", tableAlone: "", withAnchor: contract.CodeLogRolledBack,
			tamper: func(t *testing.T, a *anchored, _ []map[string]types.AttributeValue) {
				other := newAnchoredLedger(t, a.signer, a.verifier)
				completeSome(t, other.l, other.clk, 6)
				restore(t, a.db, a.l.Table(), snapshot(t, other.db, other.l.Table()))
			}},
		{name: "a head signed by another ledger's key", tableAlone: "HEAD_NOT_SIGNED", withAnchor: "HEAD_NOT_SIGNED",
			tamper: func(t *testing.T, a *anchored, _ []map[string]types.AttributeValue) {
				other := newAnchoredLedger(t, "", "")
				completeSome(t, other.l, other.clk, 5)
				putItem(t, a.db, a.l.Table(), logItem(t, other.db, other.l.Table(), "HEAD"))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			a := newAnchoredLedger(t, "", "")
			completeSome(t, a.l, a.clk, 3)
			older := snapshot(t, a.db, a.l.Table())
			completeSome(t, a.l, a.clk, 2)
			if rep, err := a.verify(ctx); err != nil || rep.Size != 5 || rep.Anchored != 5 {
				t.Fatalf("the untouched log against its anchor: %+v %v", rep, err)
			}
			c.tamper(t, a, older)
			_, err := a.l.Verify(ctx, a.verifier)
			if got := codeOf(err); got != c.tableAlone {
				t.Errorf("the table alone: %q (%v), want %q", got, err, c.tableAlone)
			}
			if _, err := a.verify(ctx); codeOf(err) != c.withAnchor {
				t.Fatalf("with the anchor: %v, want %s", err, c.withAnchor)
			}
			if c.withAnchor != contract.CodeLogRolledBack {
				return
			}
			// The sweeper appends nothing to the rewritten log, counts why,
			// and still publishes.
			ids := answerAll(t, a.l, a.clk, 1)
			unanswered := openOne(t, a.l, a.clk)
			a.clk.Advance(2 * time.Hour) // past the unanswered round's expiry
			size := headSize(t, a.db, a.l.Table())
			pub := &sent{}
			rep, err := a.l.Sweep(ctx, pub)
			if err != nil || rep.Receipts != 0 || codeOf(rep.LastError) != contract.CodeLogRolledBack || len(pub.of(unanswered)) != 1 {
				t.Fatalf("the sweep over a rewritten log: %+v %v", rep, err)
			}
			if got := headSize(t, a.db, a.l.Table()); got != size {
				t.Fatalf("the rewritten log grew from %s to %s", size, got)
			}
			if _, err := a.l.ReceiptOf(ctx, ids[0], a.verifier); err == nil {
				t.Fatal("a request got a receipt in the rewritten log")
			}
			if !strings.Contains(a.metrics.String(), contract.CodeLogRolledBack) {
				t.Fatal("the refusal was not counted")
			}
		})
	}
}

// TestTheAnchorKeepsUpAndIgnoresWhatItDidNotSign: a sweep whose anchor write
// failed is caught up by the next sweep; objects in the anchor
// that are not a head of this ledger (garbage, an older head under a newer
// key, a head of another key) are passed over and counted, never trusted; an
// anchor of another ledger holds no head of this one.
func TestTheAnchorKeepsUpAndIgnoresWhatItDidNotSign(t *testing.T) {
	ctx := context.Background()
	a := newAnchoredLedger(t, "", "")
	completeSome(t, a.l, a.clk, 2)
	answerAll(t, a.l, a.clk, 1)
	a.api.failPuts = 1 // the sweep's one anchor write
	if rep, err := a.l.Sweep(ctx, &sent{}); err != nil || codeOf(rep.LastError) != "ANCHOR_FAILED" {
		t.Fatalf("a sweep whose anchor write failed: %+v %v", rep, err)
	}
	if rep, err := a.verify(ctx); err != nil || rep.Size != 3 || rep.Anchored != 2 {
		t.Fatalf("a log one record past its anchor: %+v %v", rep, err)
	}
	if rep, err := a.l.Sweep(ctx, &sent{}); err != nil || rep.Errors != 0 {
		t.Fatalf("the next sweep: %+v %v", rep, err)
	}
	if rep, err := a.verify(ctx); err != nil || rep.Anchored != 3 || rep.Completed != 3 {
		t.Fatalf("the anchor was not caught up: %+v %v", rep, err)
	}

	// Objects someone else wrote into the anchor, at keys newer than its heads.
	twoHead := ""
	{
		out, err := a.api.Client.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(a.anchor.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out.Versions {
			got, err := a.api.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(a.anchor.Bucket), Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				t.Fatal(err)
			}
			b := new(bytes.Buffer)
			_, _ = b.ReadFrom(got.Body)
			if strings.Contains(b.String(), "\n2\n") {
				twoHead = b.String()
			}
		}
	}
	other := newAnchoredLedger(t, "", "")
	completeSome(t, other.l, other.clk, 9)
	otherHead := logHead(t, other)
	put := func(key, body string) {
		if _, err := a.api.Client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(a.anchor.Bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	put(ledger.AnchorKeyOf(7), "not a head")
	put(ledger.AnchorKeyOf(8), twoHead)   // an older head of this ledger's, under a newer size
	put(ledger.AnchorKeyOf(9), otherHead) // another ledger's head of nine
	rep, err := a.verify(ctx)
	if err != nil || rep.Anchored != 3 || rep.AnchorInvalid != 3 {
		t.Fatalf("an anchor holding three objects that are no heads of this ledger: %+v %v", rep, err)
	}
	if rep, err := a.l.Sweep(ctx, &sent{}); err != nil || rep.Errors != 0 {
		t.Fatalf("a sweep over an anchor holding planted objects: %+v %v", rep, err)
	}
	if _, err := a.l.VerifyWith(ctx, a.verifier, ledger.VerifyOptions{Anchor: other.anchor}); codeOf(err) != "ANCHOR_EMPTY" {
		t.Fatalf("verified against another ledger's anchor: %v", err)
	}
}

// logHead is a ledger's signed tree head as its table holds it.
func logHead(t *testing.T, a *anchored) string {
	t.Helper()
	return logItem(t, a.db, a.l.Table(), "HEAD")["Signed"].(*types.AttributeValueMemberS).Value
}

// openOne records and publishes one ERASE request that no store answers.
func openOne(t *testing.T, l *ledger.Ledger, clk *clock) string {
	t.Helper()
	pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic", publisher.WithClock(clk.Now))
	req := pub.NewErase(contract.KeyAccount, "acct-open")
	if _, err := l.Publish(context.Background(), &sent{}, req, []string{"bitmaps", "space"}); err != nil {
		t.Fatal(err)
	}
	return req.RequestID
}
