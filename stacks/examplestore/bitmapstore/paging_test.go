package bitmapstore_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

// listFault fails the n-th ListObjectVersions call (counting from 1) with a
// 503-like error, or, with stripMarkers, answers every page truncated without
// its next markers (the emulator's old bug).
type listFault struct {
	bitmapstore.S3
	mu           sync.Mutex
	calls        int
	failAt       int
	stripMarkers bool
}

var errUnavailable = errors.New("503 Service Unavailable")

func (c *listFault) ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, o ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error) {
	c.mu.Lock()
	c.calls++
	n := c.calls
	c.mu.Unlock()
	if n == c.failAt {
		return nil, errUnavailable
	}
	out, err := c.S3.ListObjectVersions(ctx, in, o...)
	if err == nil && c.stripMarkers {
		out.IsTruncated, out.NextKeyMarker, out.NextVersionIdMarker = aws.Bool(true), nil, nil
	}
	return out, err
}

// TestEraseListsMoreThanAThousandVersionsInPages: a segment with 1,102
// versions lists in pages (S3's 1,000 at most); a 503 in the middle of the
// listing is a fault entry, never erased; the re-run erases, and every
// version is read back through the S3 API without the id.
func TestEraseListsMoreThanAThousandVersionsInPages(t *testing.T) {
	srv := newS3(t)
	raw := srv.Client()
	ctx := context.Background()
	const namespace = "paging"
	seeder, err := bitmapstore.New(raw, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mustLoad(t, seeder, namespace, "p", []uint32{1, subject}) // generation 1 holds the id
	mustLoad(t, seeder, namespace, "p", []uint32{1, 2})       // generation 2, the pointer, does not
	// 1,100 more versions of the pointer's key, none holding the id.
	var body bytes.Buffer
	if _, err := roaring.BitmapOf(1, 2).WriteTo(&body); err != nil {
		t.Fatal(err)
	}
	key := bitmapstore.DefaultPrefix + namespace + "/segments/p.2.crbm"
	for i := 0; i < 1100; i++ {
		if _, err := raw.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body.Bytes())}); err != nil {
			t.Fatal(err)
		}
	}
	if n := countVersions(t, raw, namespace); n < 1002 {
		t.Fatalf("%d versions: the segment needs more than a page", n)
	}
	faulty := &listFault{S3: raw, failAt: 2}
	eraser, err := bitmapstore.New(faulty, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eraser.EraseSubject(ctx, subject, namespace)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ErasedFrom) != 1 || res.ErasedFrom[0].Erased || res.ErasedFrom[0].ErrorCode() == "" {
		t.Fatalf("a 503 mid-listing: %+v, want an error entry, not erased", res.ErasedFrom)
	}
	again, err := eraser.EraseSubject(ctx, subject, namespace)
	if err != nil || !again.Complete() || len(again.ErasedFrom) != 1 || !again.ErasedFrom[0].Erased {
		t.Fatalf("the re-run: %+v, %v", again, err)
	}
	if faulty.calls < 3 {
		t.Errorf("%d listing calls: the re-run listed one page", faulty.calls)
	}
	if held := versionsHolding(t, raw, bucket, namespace, subject); len(held) != 0 {
		t.Errorf("after the erasure %d versions hold the id", len(held))
	}
}

// TestAListingThatMakesNoProgressFails: a truncated page without its next
// markers is an error entry (LIST_NO_PROGRESS), never a loop.
func TestAListingThatMakesNoProgressFails(t *testing.T) {
	srv := newS3(t)
	raw := srv.Client()
	seeder, _ := bitmapstore.New(raw, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
	mustLoad(t, seeder, "stuck", "p", []uint32{subject})
	eraser, _ := bitmapstore.New(&listFault{S3: raw, stripMarkers: true}, bitmapstore.Options{Bucket: bucket, Keep: 2, ReadTTL: time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := eraser.EraseSubject(ctx, subject, "stuck")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ErasedFrom) != 1 || res.ErasedFrom[0].ErrorCode() != bitmapstore.CodeListNoProgress {
		t.Fatalf("%+v: want one entry with %s", res.ErasedFrom, bitmapstore.CodeListNoProgress)
	}
}

func countVersions(t *testing.T, c *s3.Client, namespace string) int {
	t.Helper()
	n := 0
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(bitmapstore.DefaultPrefix + namespace + "/segments/")}
	for pages := 0; ; pages++ {
		page, err := c.ListObjectVersions(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Versions) + len(page.DeleteMarkers)
		if len(page.Versions)+len(page.DeleteMarkers) > 1000 {
			t.Fatalf("a page of %d versions: S3 returns at most 1,000", len(page.Versions))
		}
		if !aws.ToBool(page.IsTruncated) {
			return n
		}
		if pages > 10 {
			t.Fatal("the emulator's listing does not end")
		}
		in.KeyMarker, in.VersionIdMarker = page.NextKeyMarker, page.NextVersionIdMarker
	}
}
