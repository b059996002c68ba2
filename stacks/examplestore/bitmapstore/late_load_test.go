package bitmapstore_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

var lateLoadSeeds = flag.Int("lateload.seeds", 40, "seeded shapes of TestLateLoadsNeverLeaveAFalseErased, each tried at every step")

// stepClient runs late() once, just before the eraser's step-th request to
// S3: a load that starts, and publishes, between two steps of the erasure.
// (A load that starts after the erasure's last request started after the
// erasure: its confirming read is the moment "erased" speaks of.)
type stepClient struct {
	bitmapstore.S3
	mu    sync.Mutex
	n     int
	step  int
	late  func()
	fired bool
}

func (c *stepClient) before() {
	c.mu.Lock()
	c.n++
	fire := c.n == c.step && !c.fired
	c.fired = c.fired || fire
	c.mu.Unlock()
	if fire {
		c.late()
	}
}

func (c *stepClient) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	c.before()
	return c.S3.GetObject(ctx, in, o...)
}

func (c *stepClient) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	c.before()
	return c.S3.PutObject(ctx, in, o...)
}

func (c *stepClient) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	c.before()
	return c.S3.DeleteObject(ctx, in, o...)
}

func (c *stepClient) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, o ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	c.before()
	return c.S3.ListObjectsV2(ctx, in, o...)
}

func (c *stepClient) ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, o ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error) {
	c.before()
	return c.S3.ListObjectVersions(ctx, in, o...)
}

// TestLateLoadsNeverLeaveAFalseErased: a load carrying the id starts after
// each step of an erasure in turn (after its row read, its generation read,
// its fence, its listing, each delete, …) and publishes before the erasure
// returns. Whatever the step, the segment's entry never says erased while
// an object version of the segment holds the id, as read back through the S3
// API. Seeded shapes: the id in the current generation (the rewrite path),
// only in a retained older one (the clean path), or in both.
func TestLateLoadsNeverLeaveAFalseErased(t *testing.T) {
	srv := newS3(t)
	raw := srv.Client()
	ctx := context.Background()
	cases, superseded := 0, 0
	for seed := 0; seed < *lateLoadSeeds; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		shape := seed % 3
		for step := 1; ; step++ {
			namespace := fmt.Sprintf("late-%d-%d", seed, step)
			seeder, err := bitmapstore.New(raw, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			base := []uint32{uint32(100 + rng.Intn(50)), uint32(200 + rng.Intn(50))}
			switch shape {
			case 0: // rewrite path: the current generation holds it
				mustLoad(t, seeder, namespace, "s", append(base, subject))
			case 1: // clean path: only a retained generation holds it
				mustLoad(t, seeder, namespace, "s", append(base, subject))
				mustLoad(t, seeder, namespace, "s", base)
			default: // both
				mustLoad(t, seeder, namespace, "s", append(base, subject))
				mustLoad(t, seeder, namespace, "s", append(base, subject, 300))
			}
			loader, _ := bitmapstore.New(raw, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
			sc := &stepClient{S3: raw, step: step}
			sc.late = func() {
				// The late load: it reads whatever row is there now and
				// publishes a generation holding the id.
				_, _ = loader.Load(ctx, namespace, "s", append(append([]uint32{}, base...), subject, uint32(400+step)))
			}
			eraser, err := bitmapstore.New(sc, bitmapstore.Options{Bucket: bucket, Keep: 2, Concurrency: 1, ReadTTL: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			res, err := eraser.EraseSubject(ctx, subject, namespace)
			if err != nil {
				t.Fatal(err)
			}
			if !sc.fired {
				break // past the erasure's last request: every step was tried
			}
			cases++
			held := versionsHolding(t, raw, bucket, namespace, subject)
			for _, e := range res.ErasedFrom {
				if e.Superseded() {
					superseded++
				}
				if e.Erased && len(held) > 0 {
					t.Errorf("seed %d (shape %d), load before step %d: the entry says erased while %d versions hold the id (%+v)", seed, shape, step, len(held), e)
				}
			}
		}
	}
	t.Logf("%d erasures with a late load, %d superseded, 0 false erased", cases, superseded)
	if cases < *lateLoadSeeds*4 {
		t.Errorf("only %d interleavings: the erasure made fewer requests than expected", cases)
	}
}

func mustLoad(t *testing.T, st *bitmapstore.Store, namespace, seg string, ids []uint32) {
	t.Helper()
	if _, err := st.Load(context.Background(), namespace, seg, ids); err != nil {
		t.Fatal(err)
	}
}
