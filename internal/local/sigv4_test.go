package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// TestSigV4AgreesWithTheSDKSigner holds the gate's verifier to the AWS SDK's
// own signer, an independent implementation: a request it signed verifies
// whether or not content-length is among the signed headers (the Go SDK
// signs it, boto3 and the JavaScript SDK do not), and a changed signed
// header, path, query, body or secret does not.
func TestSigV4AgreesWithTheSDKSigner(t *testing.T) {
	const secret = "c2VjcmV0IGtleSBmb3IgdGhlIHRlc3Q"
	body := []byte(`{"QueueUrl":"http://127.0.0.1:1/000000000000/q","MessageBody":"{}"}`)
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	at := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	sign := func(signLength bool) *http.Request {
		r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:4566/000000000000/q?a=b%20c&a=a", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
		if !signLength {
			r.ContentLength = -1
		}
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "LOCALKEY", SecretAccessKey: secret}, r, payload, "sqs", "eu-west-1", at); err != nil {
			t.Fatal(err)
		}
		return r
	}
	verify := func(r *http.Request, payload, secret string) bool {
		auth := strings.TrimPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
		parts := map[string]string{}
		for _, p := range strings.Split(auth, ", ") {
			k, v, _ := strings.Cut(p, "=")
			parts[k] = v
		}
		scope := strings.Split(parts["Credential"], "/")
		return sigV4(r, len(body), parts["SignedHeaders"], payload, scope, r.Header.Get("X-Amz-Date"), secret) == parts["Signature"]
	}
	for _, signLength := range []bool{true, false} {
		r := sign(signLength)
		if got := strings.Contains(r.Header.Get("Authorization"), "content-length"); got != signLength {
			t.Fatalf("the SDK signed content-length: %v, want %v", got, signLength)
		}
		if !verify(r, payload, secret) {
			t.Errorf("a request the SDK signed (content-length signed: %v) does not verify", signLength)
		}
		for name, tamper := range map[string]func(*http.Request){
			"a signed header": func(r *http.Request) { r.Header.Set("X-Amz-Target", "AmazonSQS.DeleteQueue") },
			"the path":        func(r *http.Request) { r.URL.Path = "/000000000000/other" },
			"the query":       func(r *http.Request) { r.URL.RawQuery = "a=b" },
			"the host":        func(r *http.Request) { r.Host = "127.0.0.1:4567" },
		} {
			r := sign(signLength)
			tamper(r)
			if verify(r, payload, secret) {
				t.Errorf("a request with %s changed after signing verifies", name)
			}
		}
		if verify(sign(signLength), strings.Repeat("0", 64), secret) {
			t.Error("another payload verifies")
		}
		if verify(sign(signLength), payload, secret+"x") {
			t.Error("another secret verifies")
		}
	}
}
