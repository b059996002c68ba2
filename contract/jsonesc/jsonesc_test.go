package jsonesc

import (
	"encoding/json"
	"testing"
)

// TestSimpleAgreesWithEncodingJSON: every byte after a backslash is a simple
// escape exactly when encoding/json reads `"\<byte>"` as one character, and
// stands for that character.
func TestSimpleAgreesWithEncodingJSON(t *testing.T) {
	for e := 0; e < 256; e++ {
		if e == 'u' {
			continue
		}
		var s string
		err := json.Unmarshal([]byte{'"', '\\', byte(e), '"'}, &s)
		got, ok := Simple(byte(e))
		if ok != (err == nil) || ok && string([]byte{got}) != s {
			t.Errorf("\\%q: Simple %q %v, encoding/json %q %v", byte(e), got, ok, s, err)
		}
	}
}

func TestHex4(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rune
		ok   bool
	}{{"00e9", 0xe9, true}, {"D83D", 0xd83d, true}, {"aBcD!", 0xabcd, true}, {"12", 0, false}, {"12g4", 0, false}, {"", 0, false}} {
		if r, ok := Hex4([]byte(c.in)); r != c.want || ok != c.ok {
			t.Errorf("Hex4(%q) = %#x, %v; want %#x, %v", c.in, r, ok, c.want, c.ok)
		}
	}
}
