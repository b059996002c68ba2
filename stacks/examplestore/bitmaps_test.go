package examplestore

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/contracttest"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/s3fault"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

const testBucket = "bitmaps"

func newBitmaps(t *testing.T, wrap func(bitmapstore.S3) bitmapstore.S3) (*Bitmaps, *emulator.S3) {
	t.Helper()
	srv, err := emulator.StartS3("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	if err := srv.CreateVersionedBucket(context.Background(), testBucket); err != nil {
		t.Fatal(err)
	}
	var client bitmapstore.S3 = srv.Client()
	if wrap != nil {
		client = wrap(client)
	}
	b, err := NewBitmaps(client, bitmapstore.Options{Bucket: testBucket, ReadTTL: time.Second, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SeedSample(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b, srv
}

var (
	eraseAccount = contract.Pair{Type: contract.TypeErase, KeyKind: contract.KeyAccount}
	checkAccount = contract.Pair{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}
)

func sampleRequest(typ contract.MessageType) contract.Request {
	return contract.Request{Type: typ, KeyKind: contract.KeyAccount, Key: SampleAccount}
}

func TestBitmapsConformance(t *testing.T) {
	b, _ := newBitmaps(t, nil)
	contracttest.Run(t, contracttest.Store{Implementations: b.Implementations(), Subscriber: BitmapsName})
}

// TestBitmapsEraseBothPasses: pass one erases every segment and keeps the
// directory entry (pass two needs it); pass two erases again and removes the
// entry. CHECK answers HOLDS_DATA while the directory maps the account and
// HOLDS_NONE after, although noncurrent versions still hold the subject.
func TestBitmapsEraseBothPasses(t *testing.T) {
	b, srv := newBitmaps(t, nil)
	ctx := context.Background()
	impls := b.Implementations()
	check := func() string {
		got, err := impls[checkAccount](ctx, sampleRequest(contract.TypeCheck), 1)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := check(); got != string(contract.AnswerHoldsData) {
		t.Fatalf("CHECK before = %s", got)
	}
	if out, err := impls[eraseAccount](ctx, sampleRequest(contract.TypeErase), 1); err != nil || out != string(contract.OutcomeDone) {
		t.Fatalf("pass one = %q, %v", out, err)
	}
	if _, ok, _ := b.Lookup(ctx, SampleAccount); !ok {
		t.Fatal("pass one removed the directory entry: pass two could not find the subject")
	}
	if got := check(); got != string(contract.AnswerHoldsData) {
		t.Fatalf("CHECK between the passes = %s, want HOLDS_DATA (the directory still maps the account)", got)
	}
	if out, err := impls[eraseAccount](ctx, sampleRequest(contract.TypeErase), 2); err != nil || out != string(contract.OutcomeDone) {
		t.Fatalf("pass two = %q, %v", out, err)
	}
	if _, ok, _ := b.Lookup(ctx, SampleAccount); ok {
		t.Fatal("the directory entry survived the last pass")
	}
	rep, err := bitmapstore.Audit(ctx, srv.Client(), testBucket, bitmapstore.DefaultPrefix, SampleSubjectID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CurrentHolders) != 0 || rep.NoncurrentHolders != 0 {
		t.Fatalf("audit %+v: want no object version holding the subject, current or noncurrent", rep)
	}
	if got := check(); got != string(contract.AnswerHoldsNone) {
		t.Fatalf("CHECK after = %s, want HOLDS_NONE", got)
	}
	if held, err := b.HoldsSample(ctx); err != nil || held {
		t.Fatalf("HoldsSample = %v, %v", held, err)
	}
	// Other subjects are untouched.
	if in, _ := b.Store().Contains(ctx, BitmapNamespaces[0], "clicked-2026-11", 1500); !in {
		t.Fatal("the erasure removed another subject")
	}
}

// overtaker makes a racing load re-add the subject just before every
// erasure's rewrite of one segment, as often as told: the load takes the
// generation number first and publishes, and the erasure is overtaken.
type overtaker struct {
	bitmapstore.S3
	races atomic.Int32
	load  func()
}

func (o *overtaker) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if in.IfNoneMatch != nil && strings.Contains(*in.Key, "/segments/clicked-2026-11.") && o.races.Add(-1) >= 0 {
		o.load()
	}
	return o.S3.PutObject(ctx, in, opts...)
}

func TestBitmapsSupersededIsRerunThenFailsAtTheBatchTimeout(t *testing.T) {
	var ot *overtaker
	b, srv := newBitmaps(t, func(c bitmapstore.S3) bitmapstore.S3 { ot = &overtaker{S3: c}; return ot })
	loader, err := bitmapstore.New(srv.Client(), bitmapstore.Options{Bucket: testBucket, ReadTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ot.load = func() {
		if _, err := loader.Load(context.Background(), BitmapNamespaces[0], "clicked-2026-11", []uint32{1, SampleSubjectID}); err != nil {
			t.Error(err)
		}
	}
	erase := b.Implementations()[eraseAccount]

	ot.races.Store(2) // overtaken twice, then the re-run wins within the timeout
	if out, err := erase(context.Background(), sampleRequest(contract.TypeErase), 1); err != nil || out != string(contract.OutcomeDone) {
		t.Fatalf("after two races = %q, %v; want DONE from a re-run", out, err)
	}

	ot.load()               // the subject is back in the segment
	ot.races.Store(1 << 20) // and a racing load overtakes every erasure: the record must fail at the batch timeout
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	out, err := erase(ctx, sampleRequest(contract.TypeErase), 2)
	if !errors.Is(err, ErrErasureSuperseded) || out != "" {
		t.Fatalf("always overtaken = %q, %v; want ErrErasureSuperseded", out, err)
	}
	if _, ok, _ := b.Lookup(context.Background(), SampleAccount); !ok {
		t.Fatal("a failed last pass removed the directory entry: the retry could not find the subject")
	}
}

func TestBitmapsSegmentFaultFailsTheRecord(t *testing.T) {
	b, _ := newBitmaps(t, func(c bitmapstore.S3) bitmapstore.S3 {
		return &s3fault.FailReads{S3: c, KeyPart: s3fault.SegmentGenerations("bought-2026-11"), Code: 503}
	})
	out, err := b.Implementations()[eraseAccount](context.Background(), sampleRequest(contract.TypeErase), 1)
	if !errors.Is(err, ErrSegmentFault) || out != "" {
		t.Fatalf("= %q, %v; want ErrSegmentFault", out, err)
	}
	if strings.Contains(err.Error(), SampleAccount) {
		t.Fatal("the error carries the account id")
	}
}

func TestBitmapOptionsFromEnv(t *testing.T) {
	env := map[string]string{contract.EnvBitmapBucket: "b", contract.EnvBitmapPrefix: "cbm/", contract.EnvBitmapReadTTLMillis: "2000"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	o, err := BitmapOptionsFromEnv(lookup)
	if err != nil || o.Bucket != "b" || o.Prefix != "cbm/" || o.ReadTTL != 2*time.Second {
		t.Fatalf("%+v, %v", o, err)
	}
	for _, bad := range []string{"0", "-1", "x", ""} {
		env[contract.EnvBitmapReadTTLMillis] = bad
		if _, err := BitmapOptionsFromEnv(lookup); err == nil {
			t.Errorf("read TTL %q: %v", bad, err)
		}
	}
}
