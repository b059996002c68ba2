package erasurecheck

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomJSONValue is a value of the kinds a template decodes to, with
// strings that need every escape encoding/json knows.
func randomJSONValue(r *rand.Rand, depth int) any {
	pieces := []string{"a", "É", "\"", "\\", "\n", "\t", "\x01", "\x7f", "<>&", "\u2028", "\u2029", "\xff", "😀", "${aws:PrincipalAccount}", ""}
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	floats := []float64{0, -0.5, 1, 12345678, 1e21, 1e-7, 3.14159, -1e-9, 9007199254740993, 1e300, 5e-324}
	switch k := r.IntN(7); {
	case depth > 3 || k == 0:
		return str()
	case k == 1:
		return floats[r.IntN(len(floats))]
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randomJSONValue(r, depth+1))
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(4) {
			m[str()] = randomJSONValue(r, depth+1)
		}
		return m
	}
}

// TestJSONSizeAgreesWithEncodingJSON: over 20,000 seeded random values,
// jsonSize is the length encoding/json writes (HTML escaping off).
func TestJSONSizeAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 20000 {
		v := randomJSONValue(r, 0)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		want := b.Len() - 1 // Encode's newline
		got, ok := jsonSize(v)
		if !ok || got != want {
			t.Fatalf("value %d: jsonSize %d (ok %v), encoding/json %d: %s", i, got, ok, want, b.String())
		}
	}
	if _, ok := jsonSize(struct{}{}); ok {
		t.Error("jsonSize measured a value templates do not decode to")
	}
}
