package bitmapstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
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
	get, put, del, list, listVersions atomic.Int64
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
func (c *countingClient) ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, o ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error) {
	c.listVersions.Add(1)
	return c.S3.ListObjectVersions(ctx, in, o...)
}
func (c *countingClient) total() int64 {
	return c.get.Load() + c.put.Load() + c.del.Load() + c.list.Load() + c.listVersions.Load()
}

// latencyTransport adds a fixed delay to every S3 request: a round trip to S3.
type latencyTransport struct{ delay time.Duration }

func (l latencyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(l.delay)
	return http.DefaultTransport.RoundTrip(req)
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
// 100,000 ids each, every one of which holds it, with 0 and 20 ms added to
// every S3 request, at the default concurrency (8), at 32 and at 64. Reports S3
// requests per segment, in all and by kind, and the peak heap in use.
func BenchmarkEraseSubject100x100k(b *testing.B) {
	for _, c := range []struct {
		latency     time.Duration
		concurrency int
	}{{0, 8}, {20 * time.Millisecond, 8}, {20 * time.Millisecond, 32}, {20 * time.Millisecond, 64}} {
		b.Run(fmt.Sprintf("latency=%dms/concurrency=%d", c.latency.Milliseconds(), c.concurrency), func(b *testing.B) {
			benchmarkErase(b, c.latency, c.concurrency)
		})
	}
}

func benchmarkErase(b *testing.B, latency time.Duration, concurrency int) {
	if b.N > benchSubjects {
		b.Skipf("at most %d iterations (one fresh subject each): use -benchtime %dx", benchSubjects, benchSubjects)
	}
	srv := newS3(b)
	loadAll(b, newStore(b, srv.Client()))
	cc := &countingClient{S3: srv.ClientWith(latencyTransport{latency}, 3)}
	st := newStore(b, cc, func(o *bitmapstore.Options) { o.Keep, o.Concurrency = 0, concurrency })
	runtime.GC()
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
	per := func(n int64) float64 { return float64(n) / float64(b.N*benchSegments) }
	b.ReportMetric(per(cc.total()), "S3-requests/segment")
	b.ReportMetric(per(cc.get.Load()), "GET/segment")
	b.ReportMetric(per(cc.put.Load()), "PUT/segment")
	b.ReportMetric(per(cc.del.Load()), "DELETE/segment")
	b.ReportMetric(per(cc.list.Load()+cc.listVersions.Load()), "LIST/segment")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
