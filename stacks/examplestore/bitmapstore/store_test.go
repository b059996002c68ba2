package bitmapstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/s3fault"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

const (
	bucket  = "bitmaps"
	subject = uint32(4242)
	ns      = "events"
)

// newS3 starts the embedded S3 with a versioned bucket.
func newS3(t testing.TB) *emulator.S3 {
	t.Helper()
	srv, err := emulator.StartS3("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	if err := srv.CreateVersionedBucket(context.Background(), bucket); err != nil {
		t.Fatal(err)
	}
	return srv
}

func newStore(t testing.TB, client bitmapstore.S3, mutate ...func(*bitmapstore.Options)) *bitmapstore.Store {
	t.Helper()
	opts := bitmapstore.Options{Bucket: bucket, ReadTTL: 2 * time.Second, Keep: 2}
	for _, m := range mutate {
		m(&opts)
	}
	st, err := bitmapstore.New(client, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func load(t testing.TB, st *bitmapstore.Store, seg string, ids ...uint32) {
	t.Helper()
	if _, err := st.Load(context.Background(), ns, seg, ids); err != nil {
		t.Fatalf("load %s: %v", seg, err)
	}
}

// generations reads every current generation object of every segment of ns
// and says which hold id: the physical check, independent of the store.
func holders(t testing.TB, srv *emulator.S3, id uint32) []string {
	t.Helper()
	rep, err := bitmapstore.Audit(context.Background(), srv.Client(), bucket, bitmapstore.DefaultPrefix, id)
	if err != nil {
		t.Fatal(err)
	}
	return rep.CurrentHolders
}

func TestEraseSubjectIsPhysicalOnReturn(t *testing.T) {
	srv := newS3(t)
	st := newStore(t, srv.Client())
	ctx := context.Background()
	// a: current holds the id, and so do its two retained generations.
	load(t, st, "a", 1, subject)
	load(t, st, "a", 2, subject)
	load(t, st, "a", 3, subject)
	// b: only a retained (older) generation holds it: an ex-member.
	load(t, st, "b", 5, subject)
	load(t, st, "b", 6)
	// c: never held it.
	load(t, st, "c", 7, 8)
	if got := holders(t, srv, subject); len(got) != 4 {
		t.Fatalf("before: %d generations hold the id, want 4 (%v)", len(got), got)
	}

	res, err := st.EraseSubject(ctx, subject, ns)
	if err != nil {
		t.Fatal(err)
	}
	if res.ScannedSegments != 3 || len(res.ErasedFrom) != 2 || !res.Complete() {
		t.Fatalf("ledger = %+v", res)
	}
	for _, e := range res.ErasedFrom {
		if !e.Erased || e.Note != "" || e.Generation == 0 {
			t.Errorf("entry %+v", e)
		}
	}
	if a := res.ErasedFrom[0]; a.Segment != "a" || a.Generation <= a.FromGeneration {
		t.Errorf("segment a was not rewritten above its generation: %+v", a)
	}
	if b := res.ErasedFrom[1]; b.Segment != "b" || b.Generation != b.FromGeneration {
		t.Errorf("segment b's clean current generation was rewritten: %+v", b)
	}
	if got := holders(t, srv, subject); len(got) != 0 {
		t.Fatalf("after erased: current objects still hold the id: %v", got)
	}
	for _, seg := range []string{"a", "b", "c"} {
		if in, err := st.Contains(ctx, ns, seg, subject); err != nil || in {
			t.Errorf("%s: Contains = %v, %v", seg, in, err)
		}
	}
	if n, _ := st.Count(ctx, ns, "a"); n != 1 {
		t.Errorf("a's count after erasure = %d, want 1", n)
	}
	if in, _ := st.Contains(ctx, ns, "a", 3); !in {
		t.Error("the erasure removed another id")
	}
	// Idempotent: a re-run finds nothing to erase.
	again, err := st.EraseSubject(ctx, subject, ns)
	if err != nil || len(again.ErasedFrom) != 0 || again.ScannedSegments != 3 {
		t.Errorf("re-run = %+v, %v", again, err)
	}
}

// raceClient runs a racing Load through the raw client just before the
// first write whose key starts with keyPrefix: after the writer read the row,
// before its own write. The racing load takes the same generation number and
// publishes first.
type raceClient struct {
	bitmapstore.S3
	keyPrefix string
	once      sync.Once
	race      func()
}

func (c *raceClient) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if strings.HasPrefix(*in.Key, c.keyPrefix) {
		c.once.Do(c.race)
	}
	return c.S3.PutObject(ctx, in, opts...)
}

// segmentGenerations is the key prefix of one segment's generations.
func segmentGenerations(seg string) string {
	return bitmapstore.DefaultPrefix + ns + "/segments/" + seg + "."
}

func TestRacingLoadSupersedesThenRerunErases(t *testing.T) {
	srv := newS3(t)
	raw := srv.Client()
	loader := newStore(t, raw)
	load(t, loader, "a", 1, subject)
	load(t, loader, "z", 9, subject)
	rc := &raceClient{S3: raw, keyPrefix: segmentGenerations("a")}
	rc.race = func() { load(t, loader, "a", 1, 2, subject) } // the load re-adds the id
	eraser := newStore(t, rc)

	res, err := eraser.EraseSubject(context.Background(), subject, ns)
	if err != nil {
		t.Fatal(err)
	}
	byseg := map[string]bitmapstore.Entry{}
	for _, e := range res.ErasedFrom {
		byseg[e.Segment] = e
	}
	if a := byseg["a"]; a.Erased || !a.Superseded() {
		t.Fatalf("raced segment: %+v, want superseded and not erased", a)
	}
	if z := byseg["z"]; !z.Erased {
		t.Fatalf("other segment: %+v", z)
	}
	if res.Complete() {
		t.Fatal("a superseded ledger reports complete")
	}
	// The racing load's generation (current) and the one it retained hold the id.
	if got := holders(t, srv, subject); len(got) != 2 {
		t.Fatalf("holders after the race: %v", got)
	}
	// The raced erasure left no generation of its own behind.
	again, err := eraser.EraseSubject(context.Background(), subject, ns)
	if err != nil || !again.Complete() || len(again.ErasedFrom) != 1 {
		t.Fatalf("re-run = %+v, %v", again, err)
	}
	if got := holders(t, srv, subject); len(got) != 0 {
		t.Fatalf("after the re-run: %v", got)
	}
}

func TestFaultIsAnErrorEntryNeverErased(t *testing.T) {
	srv := newS3(t)
	load(t, newStore(t, srv.Client()), "a", subject)
	load(t, newStore(t, srv.Client()), "b", subject)
	st := newStore(t, &s3fault.FailReads{S3: srv.Client(), KeyPart: s3fault.SegmentGenerations("b"), Code: 500})
	res, err := st.EraseSubject(context.Background(), subject, ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ErasedFrom) != 2 || res.Complete() {
		t.Fatalf("ledger %+v", res)
	}
	b := res.ErasedFrom[1]
	if b.Erased || b.ErrorCode() == "" || b.Superseded() {
		t.Fatalf("faulted entry %+v", b)
	}
	if strings.Contains(b.Note, "injected") || strings.Contains(b.Note, "4242") {
		t.Fatalf("the note carries data: %q", b.Note)
	}
	if _, s, f := res.Counts(); s != 0 || f != 1 {
		t.Fatalf("counts: superseded %d faulted %d", s, f)
	}
}

func TestSecondReaderStopsServingWithinReadTTL(t *testing.T) {
	srv := newS3(t)
	ttl := 2 * time.Second
	var mu sync.Mutex
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	eraser := newStore(t, srv.Client())
	reader := newStore(t, srv.Client(), func(o *bitmapstore.Options) { o.ReadTTL, o.Now = ttl, clock })
	ctx := context.Background()
	load(t, eraser, "a", 1, subject)
	if in, _ := reader.Contains(ctx, ns, "a", subject); !in {
		t.Fatal("reader does not see the id before the erasure")
	}
	if res, err := eraser.EraseSubject(ctx, subject, ns); err != nil || !res.Complete() {
		t.Fatal(res, err)
	}
	advance(ttl - time.Millisecond)
	if in, _ := reader.Contains(ctx, ns, "a", subject); !in {
		t.Fatal("the reader refreshed before its TTL: the test no longer shows the bound")
	}
	advance(time.Millisecond)
	if in, err := reader.Contains(ctx, ns, "a", subject); err != nil || in {
		t.Fatalf("the reader still serves the id at its TTL: %v, %v", in, err)
	}
}

func TestConcurrentLoadsOneWinsNoOrphan(t *testing.T) {
	srv := newS3(t)
	raw := srv.Client()
	st := newStore(t, raw, func(o *bitmapstore.Options) { o.Keep = 5 })
	load(t, st, "a", 1)
	other := newStore(t, raw, func(o *bitmapstore.Options) { o.Keep = 5 })
	rc := &raceClient{S3: raw, keyPrefix: segmentGenerations("a")}
	rc.race = func() { load(t, other, "a", 3) }
	racer := newStore(t, rc, func(o *bitmapstore.Options) { o.Keep = 5 })
	_, err := racer.Load(context.Background(), ns, "a", []uint32{2})
	if bitmapstore.CodeOf(err) != bitmapstore.CodeConflict {
		t.Fatalf("the overtaken load returned %v, want CONFLICT", err)
	}
	rep, err := bitmapstore.Audit(context.Background(), raw, bucket, bitmapstore.DefaultPrefix, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CurrentGenerations != 2 || len(rep.CurrentHolders) != 0 {
		t.Fatalf("audit %+v: the loser left its generation behind", rep)
	}
	if in, _ := st.Contains(context.Background(), ns, "a", 3); !in {
		t.Fatal("the winner's generation is not current")
	}
}

func TestOptionsAndNamesRefused(t *testing.T) {
	srv := newS3(t)
	for _, o := range []bitmapstore.Options{
		{Bucket: bucket},                   // no read TTL: no bound
		{Bucket: "", ReadTTL: time.Second}, // no bucket
		{Bucket: bucket, ReadTTL: time.Second, Keep: -1},
		{Bucket: bucket, ReadTTL: time.Second, Prefix: "no-slash"},
	} {
		if _, err := bitmapstore.New(srv.Client(), o); bitmapstore.CodeOf(err) != bitmapstore.CodeInvalidOptions {
			t.Errorf("%v: %v", o, err)
		}
	}
	st := newStore(t, srv.Client())
	for _, name := range []string{"", "Upper", "registry", "a/b", strings.Repeat("x", 65)} {
		if _, err := st.EraseSubject(context.Background(), 1, name); bitmapstore.CodeOf(err) != bitmapstore.CodeInvalidName {
			t.Errorf("namespace %q: %v", name, err)
		}
	}
}
