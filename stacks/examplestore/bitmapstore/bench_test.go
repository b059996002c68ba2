package bitmapstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

// Benchmark shape (issue 9): 100 segments of 100,000 ids each on the
// embedded S3; every segment also holds the subjects the iterations erase.
const (
	benchSegments = 100
	benchIDs      = 100_000
	benchSubjects = 64 // one fresh subject per iteration: run with -benchtime Nx, N <= 64
)

// countingClient counts S3 requests by operation.
type countingClient struct {
	bitmapstore.S3
	get, put, del, list atomic.Int64
}

func (c *countingClient) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	c.get.Add(1)
	return c.S3.GetObject(ctx, in, o...)
}
func (c *countingClient) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	c.put.Add(1)
	return c.S3.PutObject(ctx, in, o...)
}
func (c *countingClient) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	c.del.Add(1)
	return c.S3.DeleteObject(ctx, in, o...)
}
func (c *countingClient) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, o ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	c.list.Add(1)
	return c.S3.ListObjectsV2(ctx, in, o...)
}
func (c *countingClient) total() int64 {
	return c.get.Load() + c.put.Load() + c.del.Load() + c.list.Load()
}

// segmentIDs is one segment's ids: every subject plus random others.
func segmentIDs(seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, 42))
	ids := make([]uint32, 0, benchIDs)
	for s := uint32(1); s <= benchSubjects; s++ {
		ids = append(ids, s)
	}
	for len(ids) < benchIDs {
		ids = append(ids, benchSubjects+1+r.Uint32N(1<<30))
	}
	return ids
}

// peakHeap samples the heap in use until stop is called and returns its peak.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

func loadAll(b *testing.B, st *bitmapstore.Store) {
	for i := 0; i < benchSegments; i++ {
		if _, err := st.Load(context.Background(), ns, fmt.Sprintf("seg-%03d", i), segmentIDs(uint64(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad100x100k: loading the benchmark's 100 segments of 100,000 ids.
func BenchmarkLoad100x100k(b *testing.B) {
	srv := newS3(b)
	st := newStore(b, srv.Client())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loadAll(b, st)
	}
}

// BenchmarkEraseSubject100x100k: erasing one subject from 100 segments of
// 100,000 ids each, every one of which holds it. Reports S3 requests per
// segment and the peak heap in use during the erasures.
func BenchmarkEraseSubject100x100k(b *testing.B) {
	if b.N > benchSubjects {
		b.Skipf("at most %d iterations (one fresh subject each): use -benchtime %dx", benchSubjects, benchSubjects)
	}
	srv := newS3(b)
	cc := &countingClient{S3: srv.Client()}
	st := newStore(b, cc, func(o *bitmapstore.Options) { o.Keep = 0 })
	loadAll(b, st)
	runtime.GC()
	before := cc.total()
	stop := peakHeap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := st.EraseSubject(context.Background(), uint32(i+1), ns)
		if err != nil || !res.Complete() || len(res.ErasedFrom) != benchSegments {
			b.Fatalf("erasure %d: %d entries, complete %v, %v", i, len(res.ErasedFrom), res.Complete(), err)
		}
	}
	b.StopTimer()
	peak := stop()
	b.ReportMetric(float64(cc.total()-before)/float64(b.N*benchSegments), "S3-requests/segment")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
