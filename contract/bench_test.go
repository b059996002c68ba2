package contract

import "testing"

// requestCorpus is the valid-request fixtures: the corpus tools/parity.mjs
// --bench times ajv on, so the two figures compare like with like.
func requestCorpus(b *testing.B) [][]byte {
	var out [][]byte
	for _, c := range loadFixtures(b) {
		if c.ParseRequest == "OK" {
			out = append(out, c.body)
		}
	}
	return out
}

// BenchmarkParseRequest reports ns and allocations per message over the corpus.
func BenchmarkParseRequest(b *testing.B) {
	corpus := requestCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseRequest(corpus[i%len(corpus)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateWithSchema is the reference path, for scale.
func BenchmarkValidateWithSchema(b *testing.B) {
	corpus := requestCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ValidateWithSchema(corpus[i%len(corpus)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeResponse(b *testing.B) {
	r := Response{Type: TypeAck, RequestID: "0b7e1f8a-3c2d-4e5f-9a6b-7c8d9e0f1a2b", SendNo: 1, Subscriber: "space", Outcome: OutcomeDone}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := EncodeResponse(r); err != nil {
			b.Fatal(err)
		}
	}
}
