package contract

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/linn-cloud/erasure-channel/contract/jsonesc"
)

// The strict wire profile every twin applies before the schema:
//
//   - the body is valid UTF-8 with no byte order mark (else NOT_JSON);
//   - it is exactly one RFC 8259 JSON text with nothing after it (else NOT_JSON);
//   - that text is an object (else INVALID_MESSAGE);
//   - its member names are unique after unescaping, compared case-sensitively;
//   - no string holds a lone UTF-16 surrogate escape;
//   - every number is written as plain digits (no sign, fraction or exponent).
//
// A profile break is INVALID_MESSAGE. Syntax is always judged first: a body
// that breaks the profile and is also malformed is NOT_JSON, as JSON.parse
// would judge it.

// fieldID names one member the contract knows.
type fieldID uint8

const (
	fType fieldID = iota
	fRequestID
	fSendNo
	fExpiresAt
	fKeyKind
	fKey
	fFrom
	fTo
	fAccountID
	fSubscriber
	fOutcome
	fAnswer
	numFields
	fUnknown = numFields
)

var fieldNames = [numFields]string{
	fType:       "type",
	fRequestID:  "requestId",
	fSendNo:     "sendNo",
	fExpiresAt:  "expiresAt",
	fKeyKind:    "keyKind",
	fKey:        "key",
	fFrom:       "from",
	fTo:         "to",
	fAccountID:  "accountId",
	fSubscriber: "subscriber",
	fOutcome:    "outcome",
	fAnswer:     "answer",
}

func lookupField(name []byte) fieldID {
	switch string(name) {
	case "type":
		return fType
	case "requestId":
		return fRequestID
	case "sendNo":
		return fSendNo
	case "expiresAt":
		return fExpiresAt
	case "keyKind":
		return fKeyKind
	case "key":
		return fKey
	case "from":
		return fFrom
	case "to":
		return fTo
	case "accountId":
		return fAccountID
	case "subscriber":
		return fSubscriber
	case "outcome":
		return fOutcome
	case "answer":
		return fAnswer
	}
	return fUnknown
}

type fieldSet uint16

func (s fieldSet) has(f fieldID) bool { return s&(1<<f) != 0 }

func fields(fs ...fieldID) fieldSet {
	var s fieldSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// member is the value of one known top-level member.
type member struct {
	str   []byte // unescaped string value (aliases the body when it had no escapes)
	num   int64  // plain-digit number value, or -1 when it overflowed int64
	isStr bool
	isNum bool
}

// wireObject is what the scanner keeps of a body: the known members and the
// first profile break it met.
type wireObject struct {
	present fieldSet
	members [numFields]member
	broken  *ContractError // first profile break, reported only if the syntax holds
}

type scanner struct {
	b      []byte
	i      int
	obj    *wireObject
	escBuf []byte // scratch for unescaping; allocated only when a string has escapes
}

// scanWire applies the wire profile to body. It returns a NOT_JSON or
// INVALID_MESSAGE error, or nil with obj filled.
func scanWire(body []byte, obj *wireObject) *ContractError {
	if len(body) >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF {
		return &ContractError{Code: CodeNotJSON, Reason: "byte-order-mark"}
	}
	if !utf8.Valid(body) {
		return &ContractError{Code: CodeNotJSON, Reason: "invalid-utf8"}
	}
	s := scanner{b: body, obj: obj}
	s.ws()
	if s.i >= len(s.b) {
		return &ContractError{Code: CodeNotJSON, Reason: "empty"}
	}
	var ok bool
	if s.b[s.i] == '{' {
		ok = s.topObject()
	} else {
		s.brk(invalid("", "not-an-object"))
		ok = s.skipValue()
	}
	if ok {
		s.ws()
		if s.i != len(s.b) {
			return &ContractError{Code: CodeNotJSON, Reason: "trailing-data"}
		}
	}
	if !ok {
		return &ContractError{Code: CodeNotJSON, Reason: "syntax"}
	}
	return obj.broken
}

func (s *scanner) brk(e *ContractError) {
	if s.obj.broken == nil {
		s.obj.broken = e
	}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// topObject scans the top-level object, keeping known members.
func (s *scanner) topObject() bool {
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		name, ok := s.str()
		if !ok {
			return false
		}
		f := lookupField(name)
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch {
		case f == fUnknown:
			// An unknown name is a schema break (closed objects). Unknown
			// names cannot be checked for duplicates without keeping them,
			// and need not be: the body is already invalid.
			s.brk(invalid("", "unknown-member"))
			if !s.skipValue() {
				return false
			}
		case s.obj.present.has(f):
			s.brk(invalid(fieldNames[f], "duplicate-member"))
			if !s.skipValue() {
				return false
			}
		default:
			s.obj.present |= 1 << f
			if !s.memberValue(&s.obj.members[f], f) {
				return false
			}
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// memberValue reads the value of a known member. Strings and numbers are
// kept; any other value is a type break, skipped for syntax.
func (s *scanner) memberValue(m *member, f fieldID) bool {
	c := s.b[s.i]
	switch {
	case c == '"':
		v, ok := s.str()
		if !ok {
			return false
		}
		if len(s.escBuf) > 0 && len(v) > 0 && &v[0] == &s.escBuf[0] {
			// The unescaped value lives in the scratch buffer: copy it out.
			v = append([]byte(nil), v...)
		}
		m.str, m.isStr = v, true
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		n, plain, ok := s.number()
		if !ok {
			return false
		}
		if !plain {
			s.brk(invalid(fieldNames[f], "number-not-plain-digits"))
		}
		m.num, m.isNum = n, true
		return true
	default:
		return s.skipValue()
	}
}

// str reads a JSON string at s.i (which is '"') and returns its unescaped
// bytes. A lone surrogate escape is a profile break (decoded as U+FFFD).
func (s *scanner) str() ([]byte, bool) {
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			v := s.b[start:s.i]
			s.i++
			return v, true
		}
		if c == '\\' {
			return s.strEscaped(start)
		}
		if c < 0x20 {
			return nil, false
		}
		s.i++
	}
	return nil, false
}

func (s *scanner) strEscaped(start int) ([]byte, bool) {
	buf := append(s.escBuf[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			s.escBuf = buf
			return buf, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			buf = append(buf, c)
			s.i++
			continue
		}
		s.i++
		if s.i >= len(s.b) {
			return nil, false
		}
		e := s.b[s.i]
		s.i++
		if c, ok := jsonesc.Simple(e); ok {
			buf = append(buf, c)
			continue
		}
		switch e {
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					lo, ok := s.hex4()
					if !ok {
						return nil, false
					}
					if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
						buf = utf8.AppendRune(buf, pair)
						continue
					}
					s.i = save // the next escape stands on its own
				}
				s.brk(invalid("", "lone-surrogate"))
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (s *scanner) hex4() (rune, bool) {
	r, ok := jsonesc.Hex4(s.b[s.i:])
	if ok {
		s.i += 4
	}
	return r, ok
}

// number reads an RFC 8259 number. plain is true when it is written as
// digits alone; n is then its value, or -1 past int64.
func (s *scanner) number() (n int64, plain, ok bool) {
	start := s.i
	plain = true
	if s.b[s.i] == '-' {
		plain = false
		s.i++
	}
	if s.i >= len(s.b) {
		return 0, false, false
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
	default:
		return 0, false, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		plain = false
		s.i++
		d := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == d {
			return 0, false, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		plain = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		d := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == d {
			return 0, false, false
		}
	}
	if !plain {
		return 0, false, true
	}
	for _, c := range s.b[start:s.i] {
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return -1, true, true
		}
		n = n*10 + d
	}
	return n, true, true
}

// skipValue checks the syntax of any JSON value at s.i without keeping it.
// It is iterative, so nesting depth costs no stack. Strings inside are still
// checked for lone surrogates.
func (s *scanner) skipValue() bool {
	var stack []byte // open containers: '{' or '['
	for {
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		// One value.
		switch c := s.b[s.i]; {
		case c == '{':
			s.i++
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == '}' {
				s.i++
				break
			}
			stack = append(stack, '{')
			if !s.memberName() {
				return false
			}
			continue
		case c == '[':
			s.i++
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++
				break
			}
			stack = append(stack, '[')
			continue
		case c == '"':
			if _, ok := s.str(); !ok {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if _, _, ok := s.number(); !ok {
				return false
			}
		case c == 't':
			if !s.lit("true") {
				return false
			}
		case c == 'f':
			if !s.lit("false") {
				return false
			}
		case c == 'n':
			if !s.lit("null") {
				return false
			}
		default:
			return false
		}
		// After a value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return true
			}
			s.ws()
			if s.i >= len(s.b) {
				return false
			}
			top := stack[len(stack)-1]
			c := s.b[s.i]
			if c == ',' {
				s.i++
				if top == '{' {
					s.ws()
					if !s.memberName() {
						return false
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.i++
				stack = stack[:len(stack)-1]
				continue
			}
			return false
		}
	}
}

// memberName reads `"name" :` inside a skipped object.
func (s *scanner) memberName() bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	if _, ok := s.str(); !ok {
		return false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return false
	}
	s.i++
	return true
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
