package bitmapstore_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/internal/s3fault"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

var (
	stressIterations = flag.Int("stress.iterations", 150, "randomized interleavings of erasures, loads and reads")
	stressSeed       = flag.Int64("stress.seed", 1, "seed of the interleavings and the faults")
	stressFaultRate  = flag.Float64("stress.faults", 0.08, "share of S3 requests that fail (refused, throttled, timed out, applied with the answer lost, a read answered 404)")
	stressPermanent  = flag.Float64("stress.permanent", 0.25, "share of operations one kind of whose requests (GET, PUT, DELETE, LIST) fails every time")
	stressNotFound   = flag.Float64("stress.notfound", 0.1, "share of reads of a listed version by id answered 404 besides -stress.faults")
	stressVerbose    = flag.Bool("stress.report", false, "print the ledger of the run")
)

// The stress test's namespace is one per iteration; its segments and ids.
var (
	stressSegments = []string{"s0", "s1", "s2"}
	stressSubjects = []uint32{3, 7} // the ids erasures erase
)

// stressIterationsPerBucket is how many iterations share a bucket.
const stressIterationsPerBucket = 100

// tagBase + n is load n's tag: an id no erasure erases, so every generation
// (and every rewrite of it) names the load it came from.
const tagBase = 1_000_000

type loadRecord struct {
	op  *s3fault.Op
	ids *roaring.Bitmap
	err error
}

type eraseRecord struct {
	op      *s3fault.Op
	subject uint32
	res     bitmapstore.Result
	err     error
}

// stressLedger is what the run did and found.
type stressLedger struct {
	iterations, loads, loadsRefused, erasures, reads    int
	erased, superseded, faulted, faultedWithoutAnyFault int
	convergenceRuns                                     int
	violations                                          []string
}

func (l *stressLedger) violate(format string, args ...any) {
	if len(l.violations) < 50 {
		l.violations = append(l.violations, fmt.Sprintf(format, args...))
	}
}

// TestStressEraseLoadRace runs seeded, randomized interleavings of
// EraseSubject, Load (with collection) and Contains, from separate Store
// instances, against the embedded S3 through a transport that refuses,
// throttles, times out, applies requests whose answers it then loses,
// answers an erasure's read of a listed version 404, and dooms a quarter of
// the operations to one request kind failing for good.
// After every iteration an oracle that reads every row and every object
// version through the S3 API (never the store's Audit) checks:
//
//  1. no row names a missing generation;
//  2. a segment an erasure called erased holds the id in no object version
//     written before that erasure began, and its current generation holds it
//     only if it came from a load that began after the erasure did;
//  3. an erasure none of whose requests failed has no error entry (a racing
//     writer is superseded, never an error);
//  4. the generations a segment's rows name never go back, and a new pointer
//     is never below the next number of the row it replaces (numbers come only
//     from the row's next): a number once passed is never published again (a
//     writer whose row went stale may
//     write an object under a collected number, since S3's If-None-Match
//     does not see through a delete marker; it is refused and deletes that
//     version itself);
//  5. once writers stop, re-running each erasure converges to a complete
//     ledger in one run, after which no object version holds the id.
//
// make test runs a short run; make stress-bitmap runs 10,000 iterations.
func TestStressEraseLoadRace(t *testing.T) {
	srv := newS3(t)
	tr := s3fault.NewTransport(*stressSeed, *stressFaultRate)
	tr.RecordBodiesOf = "/registry/"
	tr.PermanentRate = *stressPermanent
	tr.NotFoundRate = *stressNotFound
	faulty := srv.ClientWith(tr, 3)
	raw := srv.Client()
	rng := rand.New(rand.NewSource(*stressSeed))
	led := &stressLedger{}
	var (
		stores []*bitmapstore.Store
		quiet  *bitmapstore.Store
		bkt    string
	)
	loadSeq := 0
	for it := 0; it < *stressIterations; it++ {
		if it%stressIterationsPerBucket == 0 {
			// A fresh bucket now and then: the emulator lists by scanning the
			// whole bucket, so a long run in one bucket would slow down.
			bkt = fmt.Sprintf("stress-%d", it/stressIterationsPerBucket)
			if err := srv.CreateVersionedBucket(context.Background(), bkt); err != nil {
				t.Fatal(err)
			}
			stores = stores[:0]
			for i := 0; i < 4; i++ {
				st, err := bitmapstore.New(faulty, bitmapstore.Options{Bucket: bkt, ReadTTL: time.Millisecond, Keep: 1, Concurrency: 2})
				if err != nil {
					t.Fatal(err)
				}
				stores = append(stores, st)
			}
			var err error
			if quiet, err = bitmapstore.New(raw, bitmapstore.Options{Bucket: bkt, ReadTTL: time.Millisecond, Keep: 1}); err != nil {
				t.Fatal(err)
			}
		}
		led.iterations++
		nsName := "it-" + strconv.Itoa(it)
		ctx := context.Background()
		// Seed the namespace without faults: each segment, some holding a subject.
		for _, seg := range stressSegments {
			loadSeq++
			ids := randomIDs(rng, loadSeq)
			if _, err := quiet.LoadBitmap(ctx, nsName, seg, ids); err != nil {
				t.Fatalf("seeding: %v", err)
			}
		}
		// The interleaving.
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			loads  = map[int]*loadRecord{}
			erases []*eraseRecord
		)
		n := 3 + rng.Intn(4)
		for k := 0; k < n; k++ {
			st := stores[rng.Intn(len(stores))]
			delay := time.Duration(rng.Intn(1500)) * time.Microsecond
			switch r := rng.Intn(10); {
			case r < 4:
				rec := &eraseRecord{op: &s3fault.Op{ListedReads404: true}, subject: stressSubjects[rng.Intn(len(stressSubjects))]}
				erases = append(erases, rec)
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(delay)
					rec.res, rec.err = st.EraseSubject(s3fault.WithOp(ctx, rec.op), rec.subject, nsName)
				}()
			case r < 8:
				loadSeq++
				seq, seg := loadSeq, stressSegments[rng.Intn(len(stressSegments))]
				rec := &loadRecord{op: &s3fault.Op{}, ids: randomIDs(rng, seq)}
				loads[seq] = rec
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(delay)
					_, err := st.LoadBitmap(s3fault.WithOp(ctx, rec.op), nsName, seg, rec.ids)
					mu.Lock()
					rec.err = err
					mu.Unlock()
				}()
			default:
				seg := stressSegments[rng.Intn(len(stressSegments))]
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(delay)
					_, _ = st.Contains(ctx, nsName, seg, stressSubjects[0])
				}()
				led.reads++
			}
		}
		wg.Wait()
		for _, l := range loads {
			led.loads++
			if l.err != nil {
				led.loadsRefused++
			}
		}
		tr.SetEnabled(false)
		checkIteration(t, raw, tr, bkt, nsName, erases, led)
		// Convergence: writers stopped, no faults.
		for _, x := range stressSubjects {
			complete := false
			for run := 0; run < 1 && !complete; run++ {
				led.convergenceRuns++
				res, err := quiet.EraseSubject(ctx, x, nsName)
				complete = err == nil && res.Complete()
				if !complete && *stressVerbose {
					t.Logf("convergence run %d of %d: %+v %v", run, x, res, err)
				}
			}
			if !complete {
				led.violate("iteration %d: erasing %d did not converge in one run once writers stopped", it, x)
			}
			for _, h := range versionsHolding(t, raw, bkt, nsName, x) {
				led.violate("iteration %d: after convergence, %s still holds %d", it, h.key, x)
			}
		}
		checkRowsNameGenerations(t, raw, bkt, nsName, it, led)
		tr.SetEnabled(true)
	}
	counts, requests := tr.Counts()
	t.Logf("stress: seed %d, %d iterations, %d S3 requests, faults %v", *stressSeed, led.iterations, requests, counts)
	t.Logf("stress: %d loads (%d refused or failed), %d reads, %d erasures: entries erased %d, superseded %d, error %d; %d convergence runs",
		led.loads, led.loadsRefused, led.reads, led.erasures, led.erased, led.superseded, led.faulted, led.convergenceRuns)
	if *stressVerbose {
		fmt.Printf("iterations: %d\nS3 requests: %d\nfaults injected: %v\nloads: %d (refused or failed: %d)\nreads: %d\nerasures: %d\nentries: erased %d, superseded %d, error %d\nconvergence runs: %d\nviolations: %d\n",
			led.iterations, requests, counts, led.loads, led.loadsRefused, led.reads, led.erasures, led.erased, led.superseded, led.faulted, led.convergenceRuns, len(led.violations))
	}
	for _, v := range led.violations {
		t.Error(v)
	}
}

// randomIDs is a random subset of 0..15 (the subjects among them half the
// time) and the load's tag.
func randomIDs(rng *rand.Rand, seq int) *roaring.Bitmap {
	bm := roaring.New()
	for i := uint32(0); i < 16; i++ {
		if rng.Intn(2) == 0 {
			bm.Add(i)
		}
	}
	bm.Add(uint32(tagBase + seq))
	return bm
}

// tagOf is the load a generation's content came from.
func tagOf(bm *roaring.Bitmap) int {
	it := bm.Iterator()
	for it.HasNext() {
		if v := it.Next(); v >= tagBase {
			return int(v - tagBase)
		}
	}
	return 0
}

type heldVersion struct {
	key, version string
	current      bool
	tag          int
}

// versionsHolding reads every version of every generation key of namespace
// through the S3 API and returns those that hold id.
func versionsHolding(t *testing.T, c *s3.Client, bucket, namespace string, id uint32) []heldVersion {
	t.Helper()
	ctx := context.Background()
	prefix := bitmapstore.DefaultPrefix + namespace + "/segments/"
	var out []heldVersion
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)}
	for {
		page, err := c.ListObjectVersions(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Versions {
			o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				t.Fatal(err)
			}
			bm := roaring.New()
			_, err = bm.ReadFrom(o.Body)
			o.Body.Close()
			if err != nil {
				t.Fatalf("a generation version does not decode: %v", err)
			}
			if bm.Contains(id) {
				out = append(out, heldVersion{key: aws.ToString(v.Key), version: aws.ToString(v.VersionId), current: aws.ToBool(v.IsLatest), tag: tagOf(bm)})
			}
		}
		if !aws.ToBool(page.IsTruncated) {
			return out
		}
		in.KeyMarker, in.VersionIdMarker = page.NextKeyMarker, page.NextVersionIdMarker
	}
}

// checkIteration is the oracle's view of one interleaving, at quiescence.
func checkIteration(t *testing.T, c *s3.Client, tr *s3fault.Transport, bucket, namespace string, erases []*eraseRecord, led *stressLedger) {
	t.Helper()
	writtenAt := map[string]time.Time{}
	chains := map[string][]rowWrite{} // segment -> its row's writes, in the order they replaced each other
	bySeg := map[string][]s3fault.Write{}
	for _, w := range tr.TakeWrites() {
		writtenAt[w.VersionID] = w.At
		if strings.Contains(w.Key, "/registry/"+namespace+"/") {
			seg := strings.TrimSuffix(w.Key[strings.LastIndex(w.Key, "/")+1:], ".reg")
			bySeg[seg] = append(bySeg[seg], w)
		}
	}
	for seg, ws := range bySeg {
		chain, ok := rowChain(ws)
		if !ok {
			led.violate("%s/%s: the row's conditional writes do not form one chain", namespace, seg)
			continue
		}
		chains[seg] = chain
		for i := 1; i < len(chain); i++ {
			if chain[i].gen < chain[i-1].gen {
				led.violate("%s/%s: a row naming generation %d replaced one naming %d: a number was published again", namespace, seg, chain[i].gen, chain[i-1].gen)
			}
			// Numbers come only from the row's next one: a new pointer is at
			// least the next of the row it replaces (a fence may keep the
			// pointer it had).
			if chain[i].gen != chain[i-1].gen && chain[i].gen < chain[i-1].next {
				led.violate("%s/%s: a row naming generation %d replaced one whose next number was %d: a number below the row's next was published", namespace, seg, chain[i].gen, chain[i-1].next)
			}
		}
	}
	pointers := checkRowsNameGenerations(t, c, bucket, namespace, -1, led)
	for _, e := range erases {
		led.erasures++
		if e.err != nil {
			continue // the namespace could not be listed: no claim made
		}
		began := e.op.FirstSent()
		erasedSegs := map[string]bool{}
		for _, en := range e.res.ErasedFrom {
			switch {
			case en.Erased:
				led.erased++
				erasedSegs[en.Segment] = true
			case en.Superseded():
				led.superseded++
			default:
				led.faulted++
				if e.op.Faults.Load() == 0 {
					led.faultedWithoutAnyFault++
					led.violate("%s: erasure of %d: %s is an error entry (%s) though none of its requests failed", namespace, e.subject, en.Segment, en.Note)
				}
			}
		}
		if e.res.Complete() {
			for _, seg := range stressSegments {
				erasedSegs[seg] = true
			}
		}
		for _, h := range versionsHolding(t, c, bucket, namespace, e.subject) {
			seg := segmentOfKey(h.key)
			if !erasedSegs[seg] {
				continue
			}
			if at, ok := writtenAt[h.version]; !ok || at.Before(began) {
				led.violate("%s: segment %s erased of %d, yet %s (version written before the erasure began) holds it", namespace, seg, e.subject, h.key)
			}
			if h.current && h.key == pointers[seg] && !fencedBefore(chains[seg], e.op, h.key) {
				led.violate("%s: segment %s erased of %d, yet the generation its row names, %s, holds it and was not published on top of that erasure's fence", namespace, seg, e.subject, h.key)
			}
		}
	}
}

// rowWrite is one applied write of a row, with the generation it named.
type rowWrite struct {
	s3fault.Write
	gen, next uint64
}

// rowChain orders one row's applied writes by what each replaced (its
// If-Match is the ETag of the one before). Writes through the fault-free
// client are not logged, so the chain may start from an unlogged write.
func rowChain(ws []s3fault.Write) ([]rowWrite, bool) {
	byTag := map[string]rowWrite{}
	next := map[string]string{}
	for _, w := range ws {
		var r struct {
			Gen  uint64 `json:"gen"`
			Next uint64 `json:"next"`
		}
		if json.Unmarshal(w.Body, &r) != nil {
			return nil, false
		}
		byTag[w.ETag] = rowWrite{w, r.Gen, r.Next}
		if w.IfMatch != "" {
			if _, dup := next[w.IfMatch]; dup {
				return nil, false // two writes replaced the same row: a compare-and-swap failed to exclude
			}
			next[w.IfMatch] = w.ETag
		}
	}
	var roots []string
	for tag, w := range byTag {
		if _, ok := byTag[w.IfMatch]; !ok {
			roots = append(roots, tag)
		}
	}
	if len(roots) != 1 {
		return nil, len(ws) == 0
	}
	var out []rowWrite
	for tag := roots[0]; tag != ""; tag = next[tag] {
		w, ok := byTag[tag]
		if !ok {
			break
		}
		out = append(out, w)
	}
	return out, len(out) == len(ws)
}

// fencedBefore says whether op's write on the row comes at or before the
// write that first published the generation key names, in the row's chain:
// the generation was then published on top of op's fence, by a writer that
// read the row after it.
func fencedBefore(chain []rowWrite, op *s3fault.Op, key string) bool {
	base := strings.TrimSuffix(key, ".crbm")
	gen, _ := strconv.ParseUint(base[strings.LastIndex(base, ".")+1:], 10, 64)
	fence, published := -1, -1
	for i, w := range chain {
		if w.Op == op && fence < 0 {
			fence = i
		}
		if w.gen == gen && (i == 0 || chain[i-1].gen != gen) {
			published = i
		}
	}
	return fence >= 0 && published >= 0 && fence <= published
}

// segmentOfKey is the segment of a generation key .../segments/<seg>.<gen>.crbm.
func segmentOfKey(key string) string {
	_, rest, _ := strings.Cut(key, "/segments/")
	seg, _, _ := strings.Cut(rest, ".")
	return seg
}

// checkRowsNameGenerations: every row of the namespace names a generation
// that exists (read through the S3 API). It returns each segment's pointer:
// the key of the generation its row names.
func checkRowsNameGenerations(t *testing.T, c *s3.Client, bucket, namespace string, it int, led *stressLedger) map[string]string {
	t.Helper()
	ctx := context.Background()
	pointers := map[string]string{}
	for _, seg := range stressSegments {
		o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(bitmapstore.DefaultPrefix + "registry/" + namespace + "/" + seg + ".reg")})
		if err != nil {
			led.violate("%s/%s: the row cannot be read: %v", namespace, seg, err)
			continue
		}
		var r struct {
			Gen uint64 `json:"gen"`
		}
		err = json.NewDecoder(o.Body).Decode(&r)
		o.Body.Close()
		if err != nil {
			led.violate("%s/%s: the row does not decode", namespace, seg)
			continue
		}
		key := bitmapstore.DefaultPrefix + namespace + "/segments/" + seg + "." + strconv.FormatUint(r.Gen, 10) + ".crbm"
		pointers[seg] = key
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			led.violate("%s/%s (iteration %d): the row names generation %d, which is missing", namespace, seg, it, r.Gen)
			continue
		}
		g.Body.Close()
	}
	return pointers
}
