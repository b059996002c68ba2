package contract

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// EncodeRequest writes r as its wire body and validates the result with the
// same rules ParseRequest applies. A request that would not pass is refused
// with a *ContractError (INVALID_MESSAGE or NOT_A_REQUEST); nothing invalid is
// ever returned for sending.
func EncodeRequest(r Request) ([]byte, error) {
	if !r.Type.IsRequest() {
		return nil, &ContractError{Code: CodeNotARequest, Field: "type"}
	}
	b := make([]byte, 0, 256)
	b = appendMember(b, "type", string(r.Type), true)
	b = appendMember(b, "requestId", r.RequestID, false)
	if r.Type.HasSendNo() {
		b = appendInt(b, "sendNo", r.SendNo)
	}
	b = appendMember(b, "expiresAt", FormatTime(r.ExpiresAt), false)
	b = appendMember(b, "keyKind", string(r.KeyKind), false)
	if r.Type == TypeRefile {
		b = appendMember(b, "from", r.From, false)
		b = appendMember(b, "to", r.To, false)
		b = appendMember(b, "accountId", r.AccountID, false)
	} else {
		b = appendMember(b, "key", r.Key, false)
	}
	b = append(b, '}')
	if _, err := ParseRequest(b); err != nil {
		return nil, asInvalid(err)
	}
	return b, nil
}

// EncodeResponse writes r as its wire body and validates the result with the
// same rules ParseResponse applies: the check every sender makes before it
// sends. It returns a *ContractError (INVALID_MESSAGE or NOT_A_RESPONSE) for
// an answer that would not pass.
func EncodeResponse(r Response) ([]byte, error) {
	if !r.Type.IsResponse() {
		return nil, &ContractError{Code: CodeNotAResponse, Field: "type"}
	}
	b := make([]byte, 0, 192)
	b = appendMember(b, "type", string(r.Type), true)
	b = appendMember(b, "requestId", r.RequestID, false)
	if r.Type.HasSendNo() {
		b = appendInt(b, "sendNo", r.SendNo)
	}
	b = appendMember(b, "subscriber", r.Subscriber, false)
	if r.Type == TypeHoldings {
		b = appendMember(b, "keyKind", string(r.KeyKind), false)
		b = appendMember(b, "key", r.Key, false)
		b = appendMember(b, "answer", string(r.Answer), false)
	} else {
		b = appendMember(b, "outcome", string(r.Outcome), false)
	}
	b = append(b, '}')
	if _, err := ParseResponse(b); err != nil {
		return nil, asInvalid(err)
	}
	return b, nil
}

// FormatTime writes t as the contract's UTC timestamp: RFC 3339 in UTC, ending
// in Z, with only as many fraction digits as t needs.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
}

// asInvalid maps a failure of our own output to INVALID_MESSAGE: a Go string
// holding invalid UTF-8 makes the body NOT_JSON, but to a sender the problem
// is the message, not the syntax.
func asInvalid(err error) error {
	if ce, ok := err.(*ContractError); ok && ce.Code == CodeNotJSON {
		return &ContractError{Code: CodeInvalidMessage, Reason: "not-utf8"}
	}
	return err
}

func appendMember(b []byte, name, value string, first bool) []byte {
	if first {
		b = append(b, '{')
	} else {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

func appendInt(b []byte, name string, v int) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping only what JSON requires.
// Invalid UTF-8 is copied as is, so that validation refuses it.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		default:
			if c >= utf8.RuneSelf {
				_, n := utf8.DecodeRuneInString(s[i:])
				b = append(b, s[i:i+n]...)
				i += n
				continue
			}
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
