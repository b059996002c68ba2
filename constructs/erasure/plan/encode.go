package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON writes the step with its operations encoded by appendData:
// encoding/json reflects over every map of every operation, and that was
// most of what the WebAssembly module spent on a store.
func (s SubscriberStep) MarshalJSON() ([]byte, error) {
	ops, err := appendData(nil, s.Ops)
	if err != nil {
		return nil, err
	}
	type plain SubscriberStep // without this method
	rest := plain(s)
	rest.Ops = nil
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	// Ops is the first field: {"ops":null,…} becomes {"ops":[…],…}.
	const empty = `{"ops":null`
	if len(b) < len(empty) || string(b[:len(empty)]) != empty {
		return nil, fmt.Errorf("plan: a step does not begin with its operations")
	}
	return append(append([]byte(`{"ops":`), ops...), b[len(empty):]...), nil
}

// appendData appends v, plain data as the operations hold it (maps with
// string keys, lists, strings, booleans, numbers, nil), as JSON: keys sorted,
// as encoding/json writes them.
func appendData(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("plan: %v is not a JSON number", x)
		}
		n, err := json.Marshal(x) // encoding/json's float format
		return append(b, n...), err
	case []any:
		return appendList(b, x)
	case []map[string]any:
		return appendList(b, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			if b, err = appendData(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	default:
		return nil, fmt.Errorf("plan: an operation holds a %T, which is not plain data", v)
	}
}

// appendList appends list as a JSON array.
func appendList[E any](b []byte, list []E) ([]byte, error) {
	var err error
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendData(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendString appends s as a JSON string; one that is not plain printable
// UTF-8 is left to encoding/json (its escapes and its U+FFFD for bad bytes).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
