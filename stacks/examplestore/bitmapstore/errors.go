package bitmapstore

import (
	"context"
	"errors"
	"net/http"
	"regexp"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// The store's error codes. A code never carries an id, a key or a name.
const (
	CodeInvalidOptions    = "INVALID_OPTIONS"    // New was given unusable options
	CodeInvalidName       = "INVALID_NAME"       // a namespace or segment name outside [a-z0-9._-]{1,64}
	CodeConflict          = "CONFLICT"           // a racing writer published first (412/409)
	CodeAmbiguous         = "AMBIGUOUS_WRITE"    // a conditional write's outcome could not be read back
	CodeGenerationMissing = "GENERATION_MISSING" // a row points at a generation that is not there
	CodeCorrupt           = "CORRUPT"            // a row or generation that does not decode
	CodeCanceled          = "CANCELED"           // the context was canceled
	CodeTimeout           = "TIMEOUT"            // the context's deadline passed
	CodeRequestFailed     = "S3_REQUEST_FAILED"  // an S3 call failed without a usable error code
	CodeListNoProgress    = "LIST_NO_PROGRESS"   // a truncated listing page that names no next page past this one
)

// Error is the store's error: an operation and a code, nothing else. The
// underlying error is kept for errors.Is/As but never printed.
type Error struct {
	Op   string
	Code string
	err  error
}

func (e *Error) Error() string { return "bitmapstore: " + e.Op + ": " + e.Code }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.err }

// CodeOf is err's code: an *Error's code, or one derived from an S3 error.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return codeOf(err)
}

var safeCode = regexp.MustCompile(`^[A-Za-z0-9._]{1,64}$`)

func codeOf(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && safeCode.MatchString(ae.ErrorCode()) {
		return ae.ErrorCode()
	}
	return CodeRequestFailed
}

func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	var nsk *types.NoSuchKey
	return errors.As(err, &nsk) || statusOf(err) == http.StatusNotFound
}

func isConflict(err error) bool {
	if err == nil {
		return false
	}
	st := statusOf(err)
	return st == http.StatusPreconditionFailed || st == http.StatusConflict
}
