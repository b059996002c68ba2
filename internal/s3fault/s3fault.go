// Package s3fault wraps an S3 client to fail chosen reads with an HTTP
// status, as a faulting S3 would, for tests of stores on the embedded S3.
package s3fault

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

// Status is an S3 response error with the given HTTP status.
func Status(code int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}}, Err: errors.New("injected S3 fault")}}
}

// FailReads fails every GetObject whose key contains KeyPart with Code,
// counting the reads it refused.
type FailReads struct {
	bitmapstore.S3
	KeyPart string
	Code    int
	Refused atomic.Int32
}

// GetObject implements bitmapstore.S3.
func (f *FailReads) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if strings.Contains(*in.Key, f.KeyPart) {
		f.Refused.Add(1)
		return nil, Status(f.Code)
	}
	return f.S3.GetObject(ctx, in, opts...)
}

// SegmentGenerations is the key part of every generation of one segment.
func SegmentGenerations(segment string) string { return "/segments/" + segment + "." }
