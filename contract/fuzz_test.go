package contract

import (
	"errors"
	"testing"
)

// FuzzFastParserAgreesWithSchema feeds random and mutated bodies to the fast
// parser and to the JSON Schema validator and fails on any difference of
// verdict (valid with the same type, NOT_JSON, or INVALID_MESSAGE). Its corpus
// is seeded with every shared fixture. Run: make fuzz (or go test -fuzz).
func FuzzFastParserAgreesWithSchema(f *testing.F) {
	for _, c := range loadFixtures(f) {
		f.Add(c.body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fastType, fastErr := Validate(body)
		refType, refErr := ValidateWithSchema(body)
		if verdict(fastErr, string(fastType)) != verdict(refErr, string(refType)) {
			t.Fatalf("fast parser says %s, schema says %s", verdict(fastErr, string(fastType)), verdict(refErr, string(refType)))
		}
		req, reqErr := ParseRequest(body)
		switch {
		case fastErr != nil:
			if !errors.Is(reqErr, fastErr) {
				t.Fatalf("ParseRequest %v, Validate %v", reqErr, fastErr)
			}
		case fastType.IsRequest():
			// A valid request re-encodes to a body that parses to the same request.
			b, err := EncodeRequest(req)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			again, err := ParseRequest(b)
			if err != nil || again != req {
				t.Fatalf("re-encoded request differs")
			}
		default:
			if !errors.Is(reqErr, ErrNotARequest) {
				t.Fatalf("a valid response: ParseRequest %v", reqErr)
			}
			resp, err := ParseResponse(body)
			if err != nil {
				t.Fatalf("ParseResponse %v", err)
			}
			if _, err := EncodeResponse(resp); err != nil {
				t.Fatalf("re-encode response: %v", err)
			}
		}
	})
}
