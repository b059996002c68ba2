package emulator

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	faker := gofakes3.New(s3mem.New(), gofakes3.WithTimeSkewLimit(0), gofakes3.WithLogger(gofakes3.DiscardLog()))
	s := &S3{Endpoint: "http://" + ln.Addr().String(), Region: region,
		srv: &http.Server{Handler: faker.Server(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Client returns an S3 client for the endpoint (static test credentials,
// path-style addressing).
func (s *S3) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		// gofakes3 does not speak the SDK's default flexible checksums on every call.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
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
