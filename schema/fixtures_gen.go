//go:build ignore

// fixtures_gen writes schema/fixtures: one raw-byte file per case and
// manifest.json with each case's expected verdicts and the reason. The files,
// not this program, are the fixture set every twin reads; the program exists so
// that a case can be added or reviewed in one table. Run: go generate ./schema
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// kv is one member: its name as written (raw JSON string text, quotes
// included) and its raw value text.
type kv struct{ name, value string }

func q(s string) string { return `"` + s + `"` }

func obj(members ...kv) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.name)
		b.WriteByte(':')
		b.WriteString(m.value)
	}
	b.WriteByte('}')
	return b.String()
}

func m(name, value string) kv { return kv{q(name), value} }

const future = "2099-01-01T00:00:00Z"

// base messages, as ordered members.
func erase(kind, key string) []kv {
	return []kv{m("type", q("erasure/ERASE")), m("requestId", q("req-0001")), m("sendNo", "1"),
		m("expiresAt", q(future)), m("keyKind", q(kind)), m("key", q(key))}
}

func refile() []kv {
	return []kv{m("type", q("erasure/REFILE")), m("requestId", q("req-0002")), m("sendNo", "1"),
		m("expiresAt", q(future)), m("keyKind", q("ADDRESS")), m("from", q("old@example.com")),
		m("to", q("quarantine+hold-7@erasure.invalid")), m("accountId", q("acct-42"))}
}

func lookup(typ, kind, key string) []kv {
	return []kv{m("type", q(typ)), m("requestId", q("req-0003")), m("expiresAt", q(future)),
		m("keyKind", q(kind)), m("key", q(key))}
}

func ack(typ, outcome string) []kv {
	return []kv{m("type", q(typ)), m("requestId", q("req-0001")), m("sendNo", "1"),
		m("subscriber", q("space")), m("outcome", q(outcome))}
}

func holdings(answer string) []kv {
	return []kv{m("type", q("erasure/HOLDINGS")), m("requestId", q("req-0003")), m("subscriber", q("space")),
		m("keyKind", q("ADDRESS")), m("key", q("jane@example.com")), m("answer", q(answer))}
}

// set replaces (or appends) a member by plain name.
func set(ms []kv, name, value string) []kv {
	out := append([]kv(nil), ms...)
	for i := range out {
		if out[i].name == q(name) {
			out[i].value = value
			return out
		}
	}
	return append(out, m(name, value))
}

func del(ms []kv, name string) []kv {
	var out []kv
	for _, x := range ms {
		if x.name != q(name) {
			out = append(out, x)
		}
	}
	return out
}

func rename(ms []kv, from, toRaw string) []kv {
	out := append([]kv(nil), ms...)
	for i := range out {
		if out[i].name == q(from) {
			out[i].name = toRaw
		}
	}
	return out
}

func add(ms []kv, extra ...kv) []kv { return append(append([]kv(nil), ms...), extra...) }

type fixture struct {
	File         string `json:"file"`
	ParseRequest string `json:"parseRequest"` // OK, NOT_JSON, INVALID_MESSAGE or NOT_A_REQUEST
	Validate     string `json:"validate"`     // VALID, NOT_JSON or INVALID_MESSAGE
	Why          string `json:"why"`
	body         []byte
}

var cases []fixture

func valid(name, body, why string) {
	cases = append(cases, fixture{File: "valid/" + name + ".json", ParseRequest: "OK", Validate: "VALID", Why: why, body: []byte(body)})
}

func response(name, body, why string) {
	cases = append(cases, fixture{File: "response/" + name + ".json", ParseRequest: "NOT_A_REQUEST", Validate: "VALID", Why: why, body: []byte(body)})
}

func notJSON(name string, body []byte, why string) {
	cases = append(cases, fixture{File: "not-json/" + name + ".bin", ParseRequest: "NOT_JSON", Validate: "NOT_JSON", Why: why, body: body})
}

func bad(name, body, why string) {
	cases = append(cases, fixture{File: "invalid/" + name + ".json", ParseRequest: "INVALID_MESSAGE", Validate: "INVALID_MESSAGE", Why: why, body: []byte(body)})
}

func main() {
	E := erase("ACCOUNT", "acct-42")
	A := erase("ADDRESS", "jane@example.com")

	// Valid requests.
	valid("erase-account", obj(E...), "ERASE by account id")
	valid("erase-address", obj(A...), "ERASE by address")
	valid("erase-address-kelvin-raw", obj(set(A, "key", q("\u212aelvin@example.com"))...), "a Kelvin sign (U+212A, raw UTF-8) is not A to Z: addressKey leaves it, so the validator accepts it")
	valid("erase-address-kelvin-escaped", obj(set(A, "key", q(`\u212Aelvin@example.com`))...), "the same Kelvin sign written as a JSON escape")
	valid("erase-address-quarantine", obj(set(A, "key", q("quarantine+hold-1@erasure.invalid"))...), "a quarantine address is an ordinary address in every message")
	valid("erase-address-unicode", obj(set(A, "key", q("jörg+news@exämple.de"))...), "non-ASCII letters stay as typed; only A to Z is refused")
	valid("erase-fraction-3", obj(set(E, "expiresAt", q("2099-01-01T00:00:00.123Z"))...), "milliseconds, as JavaScript's toISOString writes")
	valid("erase-fraction-7", obj(set(E, "expiresAt", q("2099-01-01T00:00:00.1234567Z"))...), "seven fraction digits, as .NET's round-trip format writes")
	valid("erase-fraction-9", obj(set(E, "expiresAt", q("2099-12-31T23:59:59.999999999Z"))...), "nine fraction digits, the most allowed")
	valid("erase-leap-day-2096", obj(set(E, "expiresAt", q("2096-02-29T12:00:00Z"))...), "29 February of a leap year")
	valid("erase-leap-day-2000", obj(set(E, "expiresAt", q("2000-02-29T12:00:00Z"))...), "29 February 2000: divisible by 400, a leap year")
	valid("erase-expired", obj(set(E, "expiresAt", q("2001-01-01T00:00:00Z"))...), "parsing does not judge expiry; an expired message is valid")
	valid("erase-reordered", obj(E[5], E[3], E[1], E[0], E[4], E[2]), "member order is free")
	valid("erase-whitespace", "\n\t "+strings.ReplaceAll(obj(E...), ",", " ,\r\n ")+" \n", "insignificant JSON whitespace around and inside the object")
	valid("erase-type-escaped", obj(set(E, "type", q(`\u0065rasure\/ERASE`))...), "the type value written with escapes is the same string")
	valid("erase-name-escaped", obj(rename(E, "type", q(`\u0074ype`))...), "a member name written with escapes is the same name, and still unique")
	valid("erase-sendno-max", obj(set(E, "sendNo", "2147483647")...), "the largest sendNo")
	valid("erase-account-unicode", obj(set(E, "key", q("konto-ø-😀"))...), "account ids may hold any non-control character")
	valid("erase-account-surrogate-pair", obj(set(E, "key", q(`acct-\ud83d\ude00`))...), "a correctly paired surrogate escape is one code point")
	valid("erase-requestid-128", obj(set(E, "requestId", q(strings.Repeat("r", 128)))...), "the longest requestId")
	valid("erase-requestid-base64", obj(set(E, "requestId", q("q2V+/x9a0w=="))...), "the seed sets no format for requestId: any 1 to 128 non-control characters")
	valid("erase-requestid-unicode", obj(set(E, "requestId", q("anfrage-ü-1 2"))...), "non-ASCII and spaces are not control characters")
	valid("erase-requestid-uuid", obj(set(E, "requestId", q("0b7e1f8a-3c2d-4e5f-9a6b-7c8d9e0f1a2b"))...), "a UUID requestId")
	valid("erase-address-320", obj(set(A, "key", q(strings.Repeat("é", 310)+"@example.c"))...), "an address of exactly 320 code points (630 bytes)")
	valid("erase-address-at-in-local", obj(set(A, "key", q("a@b@c"))...), "more than one @ is left to the stores")
	valid("refile", obj(refile()...), "REFILE moves address-keyed rows from one address to another")
	valid("classify-account", obj(lookup("erasure/CLASSIFY", "ACCOUNT", "acct-42")...), "CLASSIFY by account id")
	valid("classify-address", obj(lookup("erasure/CLASSIFY", "ADDRESS", "jane@example.com")...), "CLASSIFY by address")
	valid("check-account", obj(lookup("erasure/CHECK", "ACCOUNT", "acct-42")...), "CHECK by account id")
	valid("check-address", obj(lookup("erasure/CHECK", "ADDRESS", "jane@example.com")...), "CHECK by address")

	// Valid responses: the request parser refuses them as NOT_A_REQUEST.
	response("ack-done", obj(ack("erasure/ACK", "DONE")...), "ACK DONE")
	response("ack-not-applicable", obj(ack("erasure/ACK", "NOT_APPLICABLE")...), "ACK NOT_APPLICABLE")
	for _, o := range []string{"MOVED", "NONE_OWNED", "NOT_MOVED", "NOT_APPLICABLE"} {
		response("refile-ack-"+strings.ToLower(strings.ReplaceAll(o, "_", "-")), obj(ack("erasure/REFILE_ACK", o)...), "REFILE_ACK "+o)
	}
	for _, a := range []string{"HOLDS_DATA", "HOLDS_NONE", "CANNOT_ANSWER", "NOT_APPLICABLE"} {
		response("holdings-"+strings.ToLower(strings.ReplaceAll(a, "_", "-")), obj(holdings(a)...), "HOLDINGS "+a)
	}
	response("holdings-account", obj(set(set(holdings("HOLDS_DATA"), "keyKind", q("ACCOUNT")), "key", q("acct-42"))...), "HOLDINGS by account id")
	response("ack-subscriber-64", obj(set(ack("erasure/ACK", "DONE"), "subscriber", q("s"+strings.Repeat("0", 63)))...), "the longest subscriber name")

	// Not JSON.
	e := []byte(obj(E...))
	notJSON("empty", nil, "an empty body")
	notJSON("whitespace-only", []byte(" \n\t"), "whitespace alone is no JSON text")
	notJSON("bom", append([]byte{0xEF, 0xBB, 0xBF}, e...), "a UTF-8 byte order mark before the object (JSON.parse refuses U+FEFF)")
	notJSON("utf16le", append([]byte{0xFF, 0xFE}, []byte("{\x00}\x00")...), "UTF-16 with a BOM is not UTF-8")
	notJSON("invalid-utf8", bytes.Replace(e, []byte("acct-42"), []byte("acct-\xff"), 1), "a byte that is never UTF-8 (Go's decoder would silently make it U+FFFD)")
	notJSON("overlong-utf8", bytes.Replace(e, []byte("acct-42"), []byte("acct-\xc0\xaf"), 1), "an overlong UTF-8 encoding of /")
	notJSON("utf8-surrogate", bytes.Replace(e, []byte("acct-42"), []byte("acct-\xed\xa0\x80"), 1), "a UTF-16 surrogate encoded directly in UTF-8 (CESU-8)")
	notJSON("truncated-utf8", bytes.Replace(e, []byte("acct-42"), []byte("acct-\xe2\x84"), 1), "a multi-byte sequence cut short")
	notJSON("trailing-data", append(append([]byte{}, e...), []byte(" x")...), "data after the object (Go's Decoder.Decode would ignore it)")
	notJSON("two-objects", append(append([]byte{}, e...), e...), "two objects, one after the other")
	notJSON("trailing-comma", []byte(strings.TrimSuffix(string(e), "}")+",}"), "a comma before the closing brace")
	notJSON("single-quotes", []byte(strings.ReplaceAll(string(e), `"`, `'`)), "single-quoted strings")
	notJSON("unquoted-name", []byte(strings.Replace(string(e), `"type"`, `type`, 1)), "an unquoted member name")
	notJSON("raw-tab-in-string", bytes.Replace(e, []byte("acct-42"), []byte("acct\t42"), 1), "a raw control character inside a string")
	notJSON("bad-escape", bytes.Replace(e, []byte("acct-42"), []byte(`acct\x42`), 1), "an escape JSON does not have")
	notJSON("short-unicode-escape", bytes.Replace(e, []byte("acct-42"), []byte(`acct\u00`), 1), "a \\u escape with too few hex digits")
	notJSON("truncated", e[:len(e)-5], "the body cut short")
	notJSON("leading-zero", []byte(obj(set(E, "sendNo", "01")...)), "a number with a leading zero")
	notJSON("nan", []byte(obj(set(E, "sendNo", "NaN")...)), "NaN is not JSON")
	notJSON("plus-sign", []byte(obj(set(E, "sendNo", "+1")...)), "a leading + is not JSON")
	notJSON("bare-fraction", []byte(obj(set(E, "sendNo", "1.")...)), "a fraction point without digits")
	notJSON("comment", []byte("/* erase */"+string(e)), "JSON has no comments")
	notJSON("not-json-text", []byte("ERASE acct-42"), "plain text")
	notJSON("duplicate-then-syntax-error", []byte(`{"key":"a","key":"b",}`), "a profile break (duplicate) and a syntax error: syntax is judged first")

	// Invalid messages: well-formed JSON that breaks the profile or the schema.
	bad("top-level-array", "["+obj(E...)+"]", "a message is one object, not an array")
	bad("top-level-string", `"erasure/ERASE"`, "a message is an object")
	bad("top-level-null", "null", "null is not a message")
	bad("empty-object", "{}", "no type, no fields")
	bad("sns-envelope", obj(m("Type", q("Notification")), m("MessageId", q("m-1")), m("TopicArn", q("arn:aws:sns:eu-west-1:111122223333:erasure")), m("Message", q(strings.ReplaceAll(obj(E...), `"`, `\"`)))), "an SNS envelope: the subscription must use raw message delivery")
	bad("extra-field", obj(add(E, m("reason", q("gdpr")))...), "no field beyond those listed")
	bad("message-attributes-in-body", obj(add(E, m("MessageAttributes", "{}"))...), "no field beyond those listed")
	bad("missing-type", obj(del(E, "type")...), "the type is in the body")
	bad("missing-requestid", obj(del(E, "requestId")...), "requestId is required")
	bad("missing-key", obj(del(E, "key")...), "key is required")
	bad("missing-expiresat", obj(del(E, "expiresAt")...), "expiresAt is required")
	bad("erase-missing-sendno", obj(del(E, "sendNo")...), "ERASE carries sendNo")
	bad("unknown-type", obj(set(E, "type", q("erasure/DELETE"))...), "not one of the seven types")
	bad("type-lowercase", obj(set(E, "type", q("erasure/erase"))...), "the type is case-sensitive")
	bad("type-unprefixed", obj(set(E, "type", q("ERASE"))...), "the type carries its erasure/ prefix")
	bad("type-number", obj(set(E, "type", "1")...), "the type is a string")
	bad("duplicate-same-value", obj(add(E, m("key", q("acct-42")))...), "duplicate member names, even with equal values")
	bad("duplicate-different-value", obj(add(E, m("sendNo", "2"))...), "duplicate sendNo: JSON.parse and Go keep the last, another parser the first")
	bad("duplicate-via-escape", obj(add(E, kv{q(`\u006bey`), q("acct-43")})...), "key and \\u006bey are the same name after unescaping")
	bad("duplicate-type", obj(add(E, m("type", q("erasure/CHECK")))...), "two type members")
	bad("case-variant-name", obj(rename(E, "key", q("Key"))...), "member names are case-sensitive: Key is not key (Go's encoding/json would fill key)")
	bad("case-variant-duplicate", obj(add(E, m("KEY", q("acct-43")))...), "KEY beside key: an unknown member, not a duplicate to fold")
	bad("kelvin-fold-name", obj(rename(E, "key", q(`\u212Aey`))...), "a Kelvin-sign name folds to key in Go's encoding/json; here it is an unknown member")
	bad("long-s-fold-name", obj(rename(E, "sendNo", q(`\u017FendNo`))...), "U+017F folds to s in Go's encoding/json; here it is an unknown member")
	bad("snake-case-name", obj(rename(E, "requestId", q("request_id"))...), "fields are camelCase")
	bad("sendno-decimal", obj(set(E, "sendNo", "1.0")...), "1.0 is an integer to JSON Schema, but integers are written as plain digits")
	bad("sendno-exponent", obj(set(E, "sendNo", "1e0")...), "1e0: integers are written as plain digits")
	bad("sendno-exponent-upper", obj(set(E, "sendNo", "1E+0")...), "1E+0: integers are written as plain digits")
	bad("sendno-negative", obj(set(E, "sendNo", "-1")...), "sendNo is at least 1")
	bad("sendno-negative-zero", obj(set(E, "sendNo", "-0")...), "-0 is not plain digits")
	bad("sendno-zero", obj(set(E, "sendNo", "0")...), "sendNo is at least 1")
	bad("sendno-2pow31", obj(set(E, "sendNo", "2147483648")...), "above the largest sendNo")
	bad("sendno-2pow53-plus-1", obj(set(E, "sendNo", "9007199254740993")...), "JSON.parse would round it; it is above the largest sendNo for every twin")
	bad("sendno-huge", obj(set(E, "sendNo", "123456789012345678901234567890")...), "past any 64-bit integer")
	bad("sendno-string", obj(set(E, "sendNo", q("1"))...), "sendNo is a number, not a string")
	bad("sendno-null", obj(set(E, "sendNo", "null")...), "null is not absent: it is a wrong type")
	bad("sendno-true", obj(set(E, "sendNo", "true")...), "a boolean is not an integer")
	bad("expires-offset", obj(set(E, "expiresAt", q("2099-01-01T00:00:00+00:00"))...), "UTC is written Z, not +00:00")
	bad("expires-negative-zero-offset", obj(set(E, "expiresAt", q("2099-01-01T00:00:00-00:00"))...), "-00:00 (unknown offset) is not Z")
	bad("expires-lowercase-z", obj(set(E, "expiresAt", q("2099-01-01T00:00:00z"))...), "the Z is upper case")
	bad("expires-lowercase-t", obj(set(E, "expiresAt", q("2099-01-01t00:00:00Z"))...), "the T is upper case")
	bad("expires-space-separator", obj(set(E, "expiresAt", q("2099-01-01 00:00:00Z"))...), "a space instead of T")
	bad("expires-no-seconds", obj(set(E, "expiresAt", q("2099-01-01T00:00Z"))...), "seconds are required")
	bad("expires-no-zone", obj(set(E, "expiresAt", q("2099-01-01T00:00:00"))...), "a local time is not UTC")
	bad("expires-date-only", obj(set(E, "expiresAt", q("2099-01-01"))...), "a date is not a time")
	bad("expires-hour-24", obj(set(E, "expiresAt", q("2099-01-01T24:00:00Z"))...), "24:00 is not allowed")
	bad("expires-leap-second", obj(set(E, "expiresAt", q("2016-12-31T23:59:60Z"))...), "leap seconds are not allowed (validators differ on them)")
	bad("expires-feb-29-2100", obj(set(E, "expiresAt", q("2100-02-29T00:00:00Z"))...), "2100 is not a leap year")
	bad("expires-feb-29-2099", obj(set(E, "expiresAt", q("2099-02-29T00:00:00Z"))...), "2099 is not a leap year")
	bad("expires-feb-30", obj(set(E, "expiresAt", q("2096-02-30T00:00:00Z"))...), "no 30 February")
	bad("expires-april-31", obj(set(E, "expiresAt", q("2099-04-31T00:00:00Z"))...), "April has 30 days")
	bad("expires-month-13", obj(set(E, "expiresAt", q("2099-13-01T00:00:00Z"))...), "no month 13")
	bad("expires-10-fraction-digits", obj(set(E, "expiresAt", q("2099-01-01T00:00:00.1234567890Z"))...), "at most nine fraction digits")
	bad("expires-empty-fraction", obj(set(E, "expiresAt", q("2099-01-01T00:00:00.Z"))...), "a fraction point needs digits")
	bad("expires-comma-fraction", obj(set(E, "expiresAt", q("2099-01-01T00:00:00,5Z"))...), "ISO-8601 allows a comma; the contract does not")
	bad("expires-expanded-year", obj(set(E, "expiresAt", q("+02099-01-01T00:00:00Z"))...), "expanded years are not allowed")
	bad("expires-basic-format", obj(set(E, "expiresAt", q("20990101T000000Z"))...), "the basic ISO-8601 format is not allowed")
	bad("expires-arabic-indic-digits", obj(set(E, "expiresAt", q("٢٠٩٩-01-01T00:00:00Z"))...), "only ASCII digits (\\d may mean more in some engines)")
	bad("expires-epoch-number", obj(set(E, "expiresAt", "4070908800")...), "a number is not a timestamp")
	bad("expires-trailing-newline", obj(set(E, "expiresAt", q(`2099-01-01T00:00:00Z\n`))...), "a newline after Z ($ must not match before it)")
	bad("keykind-lowercase", obj(set(E, "keyKind", q("account"))...), "keyKind is ACCOUNT or ADDRESS, upper case")
	bad("keykind-email", obj(set(E, "keyKind", q("EMAIL"))...), "keyKind is ACCOUNT or ADDRESS")
	bad("address-uppercase", obj(set(A, "key", q("Jane@example.com"))...), "an ADDRESS key is already lowercased by addressKey: A to Z is refused")
	bad("address-uppercase-domain", obj(set(A, "key", q("jane@Example.com"))...), "A to Z anywhere in an address is refused")
	bad("address-uppercase-escaped", obj(set(A, "key", q(`\u004aane@example.com`))...), "an escaped J is still J")
	bad("address-no-at", obj(set(A, "key", q("jane.example.com"))...), "an address has an @")
	bad("address-nothing-before-at", obj(set(A, "key", q("@example.com"))...), "an address has something before its @")
	bad("address-nothing-after-at", obj(set(A, "key", q("jane@"))...), "an address has something after its @")
	bad("address-control-char", obj(set(A, "key", q(`jane\u0000@example.com`))...), "no control characters")
	bad("address-newline", obj(set(A, "key", q(`jane@example.com\n`))...), "no control characters, a trailing newline included")
	bad("address-321", obj(set(A, "key", q(strings.Repeat("é", 311)+"@example.c"))...), "more than 320 code points")
	bad("address-empty", obj(set(A, "key", q(""))...), "an empty address")
	bad("account-empty", obj(set(E, "key", q(""))...), "an empty account id")
	bad("account-129", obj(set(E, "key", q(strings.Repeat("a", 129)))...), "more than 128 code points")
	bad("account-control-char", obj(set(E, "key", q(`acct\u001f42`))...), "no control characters in an account id")
	bad("account-del-char", obj(set(E, "key", q(`acct\u007f42`))...), "DEL is a control character")
	bad("key-object", obj(set(E, "key", `{"id":"acct-42"}`)...), "key is a string")
	bad("key-array", obj(set(E, "key", `["acct-42"]`)...), "key is a string")
	bad("key-null", obj(set(E, "key", `null`)...), "null is not absent")
	bad("lone-high-surrogate", obj(set(E, "key", q(`acct-\ud800`))...), "a lone surrogate escape: JSON.parse keeps it, Go would make it U+FFFD")
	bad("lone-low-surrogate", obj(set(E, "key", q(`acct-\udc00`))...), "a lone low surrogate escape")
	bad("reversed-surrogates", obj(set(E, "key", q(`acct-\udc00\ud800`))...), "a low surrogate before a high one is two lone surrogates")
	bad("lone-surrogate-in-name", obj(add(E, kv{q(`x\ud800`), q("y")})...), "a lone surrogate in a member name")
	bad("requestid-empty", obj(set(E, "requestId", q(""))...), "requestId is not empty")
	bad("requestid-control-char", obj(set(E, "requestId", q(`req\u00011`))...), "no control characters in a requestId")
	bad("requestid-tab", obj(set(E, "requestId", q(`req\t1`))...), "a tab is a control character")
	bad("requestid-129", obj(set(E, "requestId", q(strings.Repeat("r", 129)))...), "requestId is at most 128 characters")
	bad("requestid-number", obj(set(E, "requestId", "1")...), "requestId is a string")
	bad("refile-account-kind", obj(set(refile(), "keyKind", q("ACCOUNT"))...), "REFILE only with ADDRESS")
	bad("refile-with-key", obj(add(refile(), m("key", q("old@example.com")))...), "REFILE has from and to, not key")
	bad("refile-from-uppercase", obj(set(refile(), "from", q("Old@example.com"))...), "from is an address: no A to Z")
	bad("refile-to-not-address", obj(set(refile(), "to", q("nobody"))...), "to is an address")
	bad("refile-missing-accountid", obj(del(refile(), "accountId")...), "REFILE carries accountId")
	bad("classify-with-sendno", obj(add(lookup("erasure/CLASSIFY", "ACCOUNT", "acct-42"), m("sendNo", "1"))...), "CLASSIFY carries no sendNo")
	bad("check-with-sendno", obj(add(lookup("erasure/CHECK", "ACCOUNT", "acct-42"), m("sendNo", "1"))...), "CHECK carries no sendNo")
	bad("check-address-uppercase", obj(lookup("erasure/CHECK", "ADDRESS", "JANE@EXAMPLE.COM")...), "CHECK by address: no A to Z")
	bad("ack-outcome-of-refile", obj(ack("erasure/ACK", "MOVED")...), "MOVED answers REFILE, not ERASE")
	bad("refile-ack-done", obj(ack("erasure/REFILE_ACK", "DONE")...), "DONE answers ERASE, not REFILE")
	bad("ack-outcome-lowercase", obj(ack("erasure/ACK", "done")...), "outcomes are upper case")
	bad("ack-missing-sendno", obj(del(ack("erasure/ACK", "DONE"), "sendNo")...), "an answer echoes sendNo")
	bad("ack-subscriber-uppercase", obj(set(ack("erasure/ACK", "DONE"), "subscriber", q("Space"))...), "a subscriber name is lower case")
	bad("ack-subscriber-empty", obj(set(ack("erasure/ACK", "DONE"), "subscriber", q(""))...), "a subscriber name is not empty")
	bad("ack-subscriber-65", obj(set(ack("erasure/ACK", "DONE"), "subscriber", q("s"+strings.Repeat("0", 64)))...), "a subscriber name is at most 64 characters")
	bad("ack-with-keykind", obj(add(ack("erasure/ACK", "DONE"), m("keyKind", q("ACCOUNT")))...), "ACK carries no keyKind")
	bad("holdings-with-outcome", obj(rename(holdings("HOLDS_DATA"), "answer", q("outcome"))...), "HOLDINGS answers with answer, not outcome")
	bad("holdings-answer-yes", obj(holdings("YES")...), "not one of the four answers")
	bad("holdings-with-sendno", obj(add(holdings("HOLDS_DATA"), m("sendNo", "1"))...), "HOLDINGS carries no sendNo")
	bad("holdings-address-uppercase", obj(set(holdings("HOLDS_DATA"), "key", q("Jane@example.com"))...), "HOLDINGS echoes an addressKey: no A to Z")
	bad("deep-nesting", obj(add(E, m("x", strings.Repeat("[", 5000)+strings.Repeat("]", 5000)))...), "deeply nested, well-formed JSON in an unknown member")

	dir := "fixtures"
	if err := os.RemoveAll(dir); err != nil {
		panic(err)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.File] {
			panic("duplicate fixture " + c.File)
		}
		seen[c.File] = true
		p := filepath.Join(dir, c.File)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, c.body, 0o644); err != nil {
			panic(err)
		}
	}
	man, err := json.MarshalIndent(struct {
		Comment string    `json:"$comment"`
		Cases   []fixture `json:"cases"`
	}{
		Comment: "Raw-byte message fixtures shared by every twin. parseRequest: what the request parser returns (OK or an error code). validate: what a validator of any message returns (VALID or an error code). Generated by schema/fixtures_gen.go; the files are the truth.",
		Cases:   cases,
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(man, '\n'), 0o644); err != nil {
		panic(err)
	}
	fmt.Println(len(cases), "fixtures")
}
