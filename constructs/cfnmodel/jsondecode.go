package cfnmodel

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/linn-cloud/erasure-channel/contract/jsonesc"
)

// errJSON is the decoder's one error: the template is not JSON. Like
// encoding/json's, it never carries the input.
var errJSON = errors.New("cfnmodel: not JSON")

// maxJSONDepth is encoding/json's nesting limit, kept so that the two accept
// the same documents.
const maxJSONDepth = 10000

// decodeJSON decodes one JSON document into the values json.Unmarshal gives
// an any (map[string]any, []any, string, float64, bool, nil), and accepts
// and refuses exactly what json.Unmarshal does (FuzzDecodeJSONAgreesWithEncodingJSON):
// the last of duplicate keys wins, invalid UTF-8 and lone surrogates become
// U+FFFD, a number out of float64's range is refused. It is one pass with no
// reflection: the templates of a cloud assembly are most of what the check
// reads, and encoding/json's two passes over them were a third of its time
// in WebAssembly.
func decodeJSON(b []byte) (any, error) {
	d := jsonDecoder{b: b}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.b) {
		return nil, errJSON
	}
	return v, nil
}

type jsonDecoder struct {
	b []byte
	i int
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if d.i >= len(d.b) {
		return nil, errJSON
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		for _, lit := range [...]struct {
			word string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(d.b)-d.i >= len(lit.word) && string(d.b[d.i:d.i+len(lit.word)]) == lit.word {
				d.i += len(lit.word)
				return lit.v, nil
			}
		}
		return nil, errJSON
	}
}

func (d *jsonDecoder) object(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errJSON
	}
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errJSON
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errJSON
		}
		d.i++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, errJSON
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, errJSON
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errJSON
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, errJSON
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, errJSON
		}
	}
}

// number reads JSON's number grammar, then converts it as encoding/json
// does (strconv.ParseFloat; out of range is an error).
func (d *jsonDecoder) number() (any, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case digits() == 0:
		return nil, errJSON
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, errJSON
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, errJSON
		}
	}
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		return nil, errJSON
	}
	return f, nil
}

// string reads a JSON string at d.i (its opening quote).
func (d *jsonDecoder) string() (string, error) {
	d.i++ // "
	start := d.i
	// The common case: no escape, valid UTF-8, no control character.
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			return string(s), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	out := make([]byte, d.i-start, d.i-start+16)
	copy(out, d.b[start:d.i])
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", errJSON
		case c == '\\':
			d.i++
			if d.i >= len(d.b) {
				return "", errJSON
			}
			e := d.b[d.i]
			d.i++
			if c, ok := jsonesc.Simple(e); ok {
				out = append(out, c)
				continue
			}
			switch e {
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", errJSON
				}
				if utf16.IsSurrogate(r) {
					// A pair is two escapes; a lone half is U+FFFD, as encoding/json has it.
					r2 := rune(utf8.RuneError)
					save := d.i
					if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
						d.i += 2
						if next, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, next); dec != utf8.RuneError {
								r2 = dec
							} else {
								d.i = save
							}
						} else {
							return "", errJSON
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", errJSON
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			d.i += size
			out = utf8.AppendRune(out, r) // an invalid byte is one U+FFFD
		}
	}
	return "", errJSON
}

// hex4 reads the four hex digits of a \u escape.
func (d *jsonDecoder) hex4() (rune, bool) {
	r, ok := jsonesc.Hex4(d.b[d.i:])
	if ok {
		d.i += 4
	}
	return r, ok
}
