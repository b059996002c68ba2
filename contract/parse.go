package contract

import (
	"time"
	"unicode/utf8"
)

// The limits below mirror erasure-contract.schema.json; the fixture set, the
// schema-agreement test and the fuzz target keep the two in step.
const (
	requestIDMaxLen = 128        // $defs/requestId maxLength
	sendNoMax       = 2147483647 // $defs/sendNo maximum
	accountIDMaxLen = 128        // $defs/accountId maxLength
	addressMinLen   = 3          // $defs/address minLength
	addressMaxLen   = 320        // $defs/address maxLength, $defs/key maxLength
	subscriberMax   = 64         // $defs/subscriber pattern
)

// allowed is the exact member set of each type (closed objects).
var allowed = map[MessageType]fieldSet{
	TypeErase:     fields(fType, fRequestID, fSendNo, fExpiresAt, fKeyKind, fKey),
	TypeRefile:    fields(fType, fRequestID, fSendNo, fExpiresAt, fKeyKind, fFrom, fTo, fAccountID),
	TypeClassify:  fields(fType, fRequestID, fExpiresAt, fKeyKind, fKey),
	TypeCheck:     fields(fType, fRequestID, fExpiresAt, fKeyKind, fKey),
	TypeAck:       fields(fType, fRequestID, fSendNo, fSubscriber, fOutcome),
	TypeRefileAck: fields(fType, fRequestID, fSendNo, fSubscriber, fOutcome),
	TypeHoldings:  fields(fType, fRequestID, fSubscriber, fKeyKind, fKey, fAnswer),
}

// message is one decoded, fully valid message: a request or a response.
type message struct {
	typ  MessageType
	req  Request
	resp Response
}

// ParseRequest parses and validates a request body (ERASE, REFILE, CLASSIFY or
// CHECK). It returns a *ContractError with code NOT_JSON, INVALID_MESSAGE or
// NOT_A_REQUEST on anything else. It does not judge expiry: see
// Request.Expired.
func ParseRequest(body []byte) (Request, error) {
	var m message
	if err := parseMessage(body, &m); err != nil {
		return Request{}, err
	}
	if !m.typ.IsRequest() {
		return Request{}, &ContractError{Code: CodeNotARequest, Field: "type"}
	}
	return m.req, nil
}

// ParseResponse parses and validates a response body (ACK, REFILE_ACK or
// HOLDINGS). It returns a *ContractError with code NOT_JSON, INVALID_MESSAGE
// or NOT_A_RESPONSE on anything else.
func ParseResponse(body []byte) (Response, error) {
	var m message
	if err := parseMessage(body, &m); err != nil {
		return Response{}, err
	}
	if !m.typ.IsResponse() {
		return Response{}, &ContractError{Code: CodeNotAResponse, Field: "type"}
	}
	return m.resp, nil
}

// Validate checks any contract message, request or response, and returns
// its type, or a *ContractError with code NOT_JSON or INVALID_MESSAGE.
func Validate(body []byte) (MessageType, error) {
	var m message
	if err := parseMessage(body, &m); err != nil {
		return "", err
	}
	return m.typ, nil
}

func parseMessage(body []byte, m *message) error {
	var w wireObject
	if err := scanWire(body, &w); err != nil {
		return err
	}
	if !w.present.has(fType) || !w.members[fType].isStr {
		return invalid("type", "missing-or-not-string")
	}
	t, ok := messageTypeOf(w.members[fType].str)
	if !ok {
		return invalid("type", "unknown-type")
	}
	want := allowed[t]
	if extra := w.present &^ want; extra != 0 {
		return invalid(firstField(extra), "not-allowed-for-type")
	}
	if missing := want &^ w.present; missing != 0 {
		return invalid(firstField(missing), "missing")
	}
	m.typ = t
	if t.IsRequest() {
		return decodeRequest(t, &w, &m.req)
	}
	return decodeResponse(t, &w, &m.resp)
}

func firstField(s fieldSet) string {
	for f := fieldID(0); f < numFields; f++ {
		if s.has(f) {
			return fieldNames[f]
		}
	}
	return ""
}

func messageTypeOf(b []byte) (MessageType, bool) {
	switch string(b) {
	case string(TypeErase):
		return TypeErase, true
	case string(TypeRefile):
		return TypeRefile, true
	case string(TypeClassify):
		return TypeClassify, true
	case string(TypeCheck):
		return TypeCheck, true
	case string(TypeAck):
		return TypeAck, true
	case string(TypeRefileAck):
		return TypeRefileAck, true
	case string(TypeHoldings):
		return TypeHoldings, true
	}
	return "", false
}

func decodeRequest(t MessageType, w *wireObject, r *Request) error {
	r.Type = t
	var err error
	if r.RequestID, err = requestIDField(w); err != nil {
		return err
	}
	if t.HasSendNo() {
		if r.SendNo, err = sendNoField(w); err != nil {
			return err
		}
	}
	ts := w.members[fExpiresAt]
	if !ts.isStr {
		return invalid("expiresAt", "not-string")
	}
	var ok bool
	if r.ExpiresAt, ok = parseUTCZ(ts.str); !ok {
		return invalid("expiresAt", "pattern")
	}
	if r.KeyKind, err = keyKindField(w); err != nil {
		return err
	}
	if t == TypeRefile {
		if r.KeyKind != KeyAddress {
			return invalid("keyKind", "refile-needs-address")
		}
		if r.From, err = stringField(w, fFrom, isAddress); err != nil {
			return err
		}
		if r.To, err = stringField(w, fTo, isAddress); err != nil {
			return err
		}
		r.AccountID, err = stringField(w, fAccountID, isAccountID)
		return err
	}
	r.Key, err = keyField(w, r.KeyKind)
	return err
}

func decodeResponse(t MessageType, w *wireObject, r *Response) error {
	r.Type = t
	var err error
	if r.RequestID, err = requestIDField(w); err != nil {
		return err
	}
	if r.Subscriber, err = stringField(w, fSubscriber, isSubscriber); err != nil {
		return err
	}
	switch t {
	case TypeAck, TypeRefileAck:
		if r.SendNo, err = sendNoField(w); err != nil {
			return err
		}
		o := w.members[fOutcome]
		if !o.isStr {
			return invalid("outcome", "not-string")
		}
		var ok bool
		if r.Outcome, ok = outcomeOf(t, o.str); !ok {
			return invalid("outcome", "enum")
		}
		return nil
	default: // TypeHoldings
		if r.KeyKind, err = keyKindField(w); err != nil {
			return err
		}
		if r.Key, err = keyField(w, r.KeyKind); err != nil {
			return err
		}
		a := w.members[fAnswer]
		if !a.isStr {
			return invalid("answer", "not-string")
		}
		var ok bool
		if r.Answer, ok = answerOf(a.str); !ok {
			return invalid("answer", "enum")
		}
		return nil
	}
}

func requestIDField(w *wireObject) (string, error) {
	return stringField(w, fRequestID, isRequestID)
}

func stringField(w *wireObject, f fieldID, ok func([]byte) bool) (string, error) {
	m := w.members[f]
	if !m.isStr {
		return "", invalid(fieldNames[f], "not-string")
	}
	if !ok(m.str) {
		return "", invalid(fieldNames[f], "pattern")
	}
	return string(m.str), nil
}

func sendNoField(w *wireObject) (int, error) {
	m := w.members[fSendNo]
	if !m.isNum {
		return 0, invalid("sendNo", "not-integer")
	}
	if m.num < 1 || m.num > sendNoMax {
		return 0, invalid("sendNo", "range")
	}
	return int(m.num), nil
}

func keyKindField(w *wireObject) (KeyKind, error) {
	m := w.members[fKeyKind]
	if !m.isStr {
		return "", invalid("keyKind", "not-string")
	}
	switch string(m.str) {
	case string(KeyAccount):
		return KeyAccount, nil
	case string(KeyAddress):
		return KeyAddress, nil
	}
	return "", invalid("keyKind", "enum")
}

func keyField(w *wireObject, kind KeyKind) (string, error) {
	if kind == KeyAddress {
		return stringField(w, fKey, isAddress)
	}
	return stringField(w, fKey, isAccountID)
}

func outcomeOf(t MessageType, b []byte) (Outcome, bool) {
	switch string(b) {
	case string(OutcomeNotApplicable):
		return OutcomeNotApplicable, true
	case string(OutcomeDone):
		return OutcomeDone, t == TypeAck
	case string(OutcomeMoved):
		return OutcomeMoved, t == TypeRefileAck
	case string(OutcomeNoneOwned):
		return OutcomeNoneOwned, t == TypeRefileAck
	case string(OutcomeNotMoved):
		return OutcomeNotMoved, t == TypeRefileAck
	}
	return "", false
}

func answerOf(b []byte) (Answer, bool) {
	switch string(b) {
	case string(AnswerHoldsData):
		return AnswerHoldsData, true
	case string(AnswerHoldsNone):
		return AnswerHoldsNone, true
	case string(AnswerCannotAnswer):
		return AnswerCannotAnswer, true
	case string(AnswerNotApplicable):
		return AnswerNotApplicable, true
	}
	return "", false
}

// isRequestID mirrors $defs/requestId: 1 to 128 code points, none a control
// character.
func isRequestID(b []byte) bool {
	return isPrintable(b, requestIDMaxLen)
}

// isSubscriber mirrors $defs/subscriber: ^[a-z](?:[a-z0-9-]{0,62}[a-z0-9])?$.
func isSubscriber(b []byte) bool {
	return IsSubscriberName(string(b))
}

// IsSubscriberName reports whether name is a valid ErasureSubscriber name: 1 to
// 64 of a-z, 0-9 and -, starting with a letter and not ending with -.
func IsSubscriberName(name string) bool {
	n := len(name)
	if n == 0 || n > subscriberMax || name[0] < 'a' || name[0] > 'z' || name[n-1] == '-' {
		return false
	}
	for i := 1; i < n; i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}

func isControl(c byte) bool { return c < 0x20 || c == 0x7F }

// isAccountID mirrors $defs/accountId: 1 to 128 code points, none a control
// character (U+0000-U+001F, U+007F).
func isAccountID(b []byte) bool {
	return isPrintable(b, accountIDMaxLen)
}

// isPrintable: 1 to max code points, none a control character.
func isPrintable(b []byte, max int) bool {
	n := utf8.RuneCount(b)
	if n < 1 || n > max {
		return false
	}
	for _, c := range b {
		if isControl(c) {
			return false
		}
	}
	return true
}

// isAddress mirrors $defs/address: 3 to 320 code points, no A to Z, no control
// character, and an @ with at least one code point on each side.
func isAddress(b []byte) bool {
	n := utf8.RuneCount(b)
	if n < addressMinLen || n > addressMaxLen {
		return false
	}
	at := false
	for i, c := range b {
		if (c >= 'A' && c <= 'Z') || isControl(c) {
			return false
		}
		// '@' is ASCII, so byte positions 0 and len-1 are the first and last code points.
		if c == '@' && i > 0 && i < len(b)-1 {
			at = true
		}
	}
	return at
}

// parseUTCZ mirrors $defs/expiresAt: YYYY-MM-DDThh:mm:ss[.f{1,9}]Z with a real
// calendar date (leap years included), hours 00-23, no leap second.
func parseUTCZ(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nanos := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		f, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			f *= 10
		}
		nanos = f
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC), true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
