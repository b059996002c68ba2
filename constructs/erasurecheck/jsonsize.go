package erasurecheck

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonSize is the length of v as encoding/json writes it with HTML escaping
// off (a policy's size as AWS counts it), without writing it: the quota
// rules measure every resource policy of the assembly, and encoding it to
// count it was a fifth of the check's policy work. ok is false for a value
// that is not one a template decodes to; then the caller encodes it.
// TestJSONSizeAgreesWithEncodingJSON holds it to encoding/json.
func jsonSize(v any) (n int, ok bool) {
	switch x := v.(type) {
	case nil:
		return 4, true
	case bool:
		if x {
			return 4, true
		}
		return 5, true
	case string:
		return jsonStringSize(x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		return len(appendJSONFloat(nil, x)), true
	case []any:
		n = 2 + max(len(x)-1, 0)
		for _, e := range x {
			m, ok := jsonSize(e)
			if !ok {
				return 0, false
			}
			n += m
		}
		return n, true
	case map[string]any:
		n = 2 + max(len(x)-1, 0)
		for k, e := range x {
			m, ok := jsonSize(e)
			if !ok {
				return 0, false
			}
			n += jsonStringSize(k) + 1 + m
		}
		return n, true
	}
	return 0, false
}

// jsonStringSize is the length of s quoted as encoding/json quotes it with
// HTML escaping off.
func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// appendJSONFloat writes f as encoding/json's float64 encoder does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
