package emulator

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3 is an in-process S3 implementation (gofakes3 on its in-memory backend,
// which versions buckets and enforces If-None-Match and If-Match on
// PutObject) listening on 127.0.0.1.
type S3 struct {
	// Endpoint is the base URL an S3 client points at, with path-style addressing.
	Endpoint string
	// Region is the region clients sign for.
	Region string

	srv  *http.Server
	once sync.Once
}

// StartS3 starts an S3 endpoint on 127.0.0.1 on a free port. Nothing is
// installed: it runs inside this process until Stop.
func StartS3(region string) (*S3, error) {
	if region == "" {
		region = "eu-west-1"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	faker := gofakes3.New(promotingBackend{s3mem.New()}, gofakes3.WithTimeSkewLimit(0), gofakes3.WithLogger(gofakes3.DiscardLog()))
	s := &S3{Endpoint: "http://" + ln.Addr().String(), Region: region,
		srv: &http.Server{Handler: faker.Server(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Client returns an S3 client for the endpoint (static test credentials,
// path-style addressing).
func (s *S3) Client() *s3.Client { return s3.New(s.options()) }

func (s *S3) options() s3.Options {
	return s3.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		// gofakes3 does not speak the SDK's default flexible checksums on every call.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
}

// CreateVersionedBucket creates a bucket with versioning on, as the
// BitmapStoreBucket construct deploys it.
func (s *S3) CreateVersionedBucket(ctx context.Context, name string) error {
	cl := s.Client()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return err
	}
	_, err := cl.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
		VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}})
	return err
}

// Stop shuts the endpoint down.
func (s *S3) Stop() {
	s.once.Do(func() { _ = s.srv.Close() }) // in memory: nothing to flush, no reason to wait for idle clients
}

// ClientWith returns an S3 client for the endpoint whose requests go through
// transport (a fault injector) and whose retries, when the SDK makes them,
// wait a millisecond instead of backing off for seconds.
func (s *S3) ClientWith(transport http.RoundTripper, maxAttempts int) *s3.Client {
	o := s.options()
	o.HTTPClient = &http.Client{Transport: transport}
	o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
	})
	return s3.New(o)
}

// promotingBackend is s3mem with one fix. Deleting an object's current
// version by version id while older versions remain leaves s3mem's object
// with no current data, and its next listing, read or conditional write of
// the bucket panics (gofakes3 v1.2.0). S3 would make the next version
// current. Here a delete marker is put on top first, so the deleted version
// is noncurrent when it goes: the key then reads as deleted, which is what
// S3 shows whenever the version below is a delete marker (the only case the
// bitmap store meets: a writer whose number was collected deleting its own
// write), and never panics.
type promotingBackend struct {
	*s3mem.Backend
}

// DeleteObjectVersion implements gofakes3.VersionedBackend.
func (b promotingBackend) DeleteObjectVersion(bucket, key string, id gofakes3.VersionID) (gofakes3.ObjectDeleteResult, error) {
	if cur, err := b.HeadObject(bucket, key); err == nil && cur.VersionID == id && b.hasOlderVersions(bucket, key, id) {
		if _, err := b.DeleteObject(bucket, key); err != nil {
			return gofakes3.ObjectDeleteResult{}, err
		}
	}
	return b.Backend.DeleteObjectVersion(bucket, key, id)
}

// ListBucketVersions pages as S3 does: at most MaxKeys versions (1,000 by
// default and at most), IsTruncated with NextKeyMarker and
// NextVersionIdMarker naming the last one returned, and a request with
// those markers resuming after it. (gofakes3 v1.2.0 reports IsTruncated
// without markers, so a client asks for the first page forever.)
func (b promotingBackend) ListBucketVersions(bucket string, prefix *gofakes3.Prefix, page *gofakes3.ListBucketVersionsPage) (*gofakes3.ListBucketVersionsResult, error) {
	all, err := b.Backend.ListBucketVersions(bucket, prefix, &gofakes3.ListBucketVersionsPage{})
	if err != nil || page == nil {
		return all, err
	}
	limit := page.MaxKeys
	if limit <= 0 || limit > maxListKeys {
		limit = maxListKeys
	}
	start := 0
	if page.KeyMarker != "" {
		start = len(all.Versions)
		for i, v := range all.Versions {
			key, id := versionKey(v)
			if page.VersionIDMarker != "" && key == page.KeyMarker && id == page.VersionIDMarker {
				start = i + 1
				break
			}
			if page.VersionIDMarker == "" && key > page.KeyMarker {
				start = i
				break
			}
		}
	}
	rest := all.Versions[start:]
	out := *all
	out.MaxKeys, out.KeyMarker, out.VersionIDMarker = limit, page.KeyMarker, page.VersionIDMarker
	out.IsTruncated, out.NextKeyMarker, out.NextVersionIDMarker = false, "", ""
	if int64(len(rest)) > limit {
		rest = rest[:limit]
		out.IsTruncated = true
		out.NextKeyMarker, out.NextVersionIDMarker = versionKey(rest[len(rest)-1])
	}
	out.Versions = rest
	return &out, nil
}

// maxListKeys is S3's most keys (and versions) in one listing page.
const maxListKeys = 1000

func versionKey(v gofakes3.VersionItem) (string, gofakes3.VersionID) {
	switch x := v.(type) {
	case *gofakes3.Version:
		return x.Key, x.VersionID
	case *gofakes3.DeleteMarker:
		return x.Key, x.VersionID
	}
	return "", v.GetVersionID()
}

func (b promotingBackend) hasOlderVersions(bucket, key string, id gofakes3.VersionID) bool {
	prefix := gofakes3.NewPrefix(&key, nil)
	res, err := b.ListBucketVersions(bucket, &prefix, &gofakes3.ListBucketVersionsPage{})
	if err != nil {
		return false
	}
	for _, v := range res.Versions {
		switch x := v.(type) {
		case *gofakes3.Version:
			if x.Key == key && x.VersionID != id {
				return true
			}
		case *gofakes3.DeleteMarker:
			if x.Key == key && x.VersionID != id {
				return true
			}
		}
	}
	return false
}
