package contract

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var future = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)

func TestParseRequestFields(t *testing.T) {
	body := []byte(`{"type":"erasure/REFILE","requestId":"r-1","sendNo":7,"expiresAt":"2099-01-01T00:00:00.5Z","keyKind":"ADDRESS","from":"a@b","to":"c@d","accountId":"acct-1"}`)
	r, err := ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Type: TypeRefile, RequestID: "r-1", SendNo: 7, ExpiresAt: future.Add(500 * time.Millisecond), KeyKind: KeyAddress, From: "a@b", To: "c@d", AccountID: "acct-1"}
	if r != want {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
}

func TestParseRequestDoesNotAliasTheBody(t *testing.T) {
	body := []byte(`{"type":"erasure/ERASE","requestId":"r-1","sendNo":1,"expiresAt":"2099-01-01T00:00:00Z","keyKind":"ACCOUNT","key":"acct-1"}`)
	r, err := ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = 'x'
	}
	if r.Key != "acct-1" || r.RequestID != "r-1" {
		t.Fatal("the request shares memory with the body")
	}
}

func TestExpiry(t *testing.T) {
	r := Request{ExpiresAt: future}
	for _, tc := range []struct {
		now  time.Time
		want bool
	}{
		{future.Add(-time.Nanosecond), false},
		{future, true}, // a request expires at expiresAt
		{future.Add(time.Second), true},
		{future.In(time.FixedZone("x", 3600)).Add(-time.Second), false}, // the caller's zone does not matter
	} {
		if got := r.Expired(tc.now); got != tc.want {
			t.Errorf("Expired(%v) = %v, want %v", tc.now, got, tc.want)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	reqs := []Request{
		{Type: TypeErase, RequestID: "r1", SendNo: 3, ExpiresAt: future, KeyKind: KeyAccount, Key: `a"b\c` + "\u00e9"},
		{Type: TypeRefile, RequestID: "r2", SendNo: 1, ExpiresAt: future.Add(123 * time.Millisecond), KeyKind: KeyAddress, From: "a@b", To: "c@d", AccountID: "x"},
		{Type: TypeClassify, RequestID: "r3", ExpiresAt: future, KeyKind: KeyAddress, Key: "\u212Aelvin@x"},
		{Type: TypeCheck, RequestID: "r4", ExpiresAt: future, KeyKind: KeyAccount, Key: "acct"},
	}
	for _, r := range reqs {
		b, err := EncodeRequest(r)
		if err != nil {
			t.Fatalf("%s: %v", r.Type, err)
		}
		got, err := ParseRequest(b)
		if err != nil || got != r {
			t.Fatalf("%s: round trip %+v, %v", r.Type, got, err)
		}
	}
	for _, req := range reqs {
		for _, o := range []string{"DONE", "MOVED", "HOLDS_DATA", "NOT_APPLICABLE"} {
			resp := AnswerFor(req, "space", o)
			b, err := EncodeResponse(resp)
			valid := o == "NOT_APPLICABLE" ||
				(o == "DONE" && req.Type == TypeErase) || (o == "MOVED" && req.Type == TypeRefile) ||
				(o == "HOLDS_DATA" && (req.Type == TypeCheck || req.Type == TypeClassify))
			if (err == nil) != valid {
				t.Fatalf("%s answered %s: err %v, want valid=%v", req.Type, o, err, valid)
			}
			if err == nil {
				got, err := ParseResponse(b)
				if err != nil || got != resp {
					t.Fatalf("response round trip %+v, %v", got, err)
				}
			}
		}
	}
}

func TestEncodeRefusesInvalidMessages(t *testing.T) {
	for name, r := range map[string]Request{
		"uppercase address": {Type: TypeErase, RequestID: "r1", SendNo: 1, ExpiresAt: future, KeyKind: KeyAddress, Key: "A@b"},
		"no sendNo":         {Type: TypeErase, RequestID: "r1", ExpiresAt: future, KeyKind: KeyAccount, Key: "k"},
		"refile by account": {Type: TypeRefile, RequestID: "r1", SendNo: 1, ExpiresAt: future, KeyKind: KeyAccount, From: "a@b", To: "c@d", AccountID: "x"},
		"year 10000":        {Type: TypeCheck, RequestID: "r1", ExpiresAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), KeyKind: KeyAccount, Key: "k"},
		"invalid utf8 key":  {Type: TypeCheck, RequestID: "r1", ExpiresAt: future, KeyKind: KeyAccount, Key: "k\xff"},
		"not a request":     {Type: TypeAck, RequestID: "r1", SendNo: 1},
	} {
		_, err := EncodeRequest(r)
		var ce *ContractError
		if !errors.As(err, &ce) || ce.Code == CodeNotJSON {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// A subscriber name that is not a name is refused before it is sent.
	_, err := EncodeResponse(Response{Type: TypeAck, RequestID: "r1", SendNo: 1, Subscriber: "Space", Outcome: OutcomeDone})
	if !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("bad subscriber: %v", err)
	}
}

func TestParseResponseRefusesRequests(t *testing.T) {
	b, _ := EncodeRequest(Request{Type: TypeCheck, RequestID: "r1", ExpiresAt: future, KeyKind: KeyAccount, Key: "k"})
	if _, err := ParseResponse(b); !errors.Is(err, ErrNotAResponse) {
		t.Fatalf("err = %v", err)
	}
}

// TestErrorsNeverCarryInput: for every fixture that fails, the error string
// is the code alone, and its Field is one of the contract's own names.
func TestErrorsNeverCarryInput(t *testing.T) {
	known := map[string]bool{"": true}
	for _, n := range fieldNames {
		known[n] = true
	}
	for _, c := range loadFixtures(t) {
		for _, fn := range []func([]byte) error{
			func(b []byte) error { _, err := ParseRequest(b); return err },
			func(b []byte) error { _, err := ParseResponse(b); return err },
			func(b []byte) error { _, err := Validate(b); return err },
			func(b []byte) error { _, err := ValidateWithSchema(b); return err },
		} {
			err := fn(c.body)
			if err == nil {
				continue
			}
			var ce *ContractError
			if !errors.As(err, &ce) {
				t.Fatalf("%s: untyped error", c.File)
			}
			if err.Error() != string(ce.Code) {
				t.Fatalf("%s: Error() = %q, want the code alone", c.File, err.Error())
			}
			if !known[ce.Field] {
				t.Fatalf("%s: Field %q is not a contract field name", c.File, ce.Field)
			}
			if strings.ContainsAny(ce.Reason, `"@`) {
				t.Fatalf("%s: Reason %q looks like input", c.File, ce.Reason)
			}
		}
	}
}

// TestCodeOrder pins how the codes rank when a body has more than one fault.
func TestCodeOrder(t *testing.T) {
	for _, tc := range []struct {
		body string
		want ErrorCode
	}{
		{`{"type":"erasure/ACK"}`, CodeInvalidMessage},              // an invalid response is invalid before it is a response
		{`{"type":"erasure/ACK","type":"erasure/ACK"`, CodeNotJSON}, // syntax first
		{`{"key":"\ud800"} `, CodeInvalidMessage},
	} {
		_, err := ParseRequest([]byte(tc.body))
		if !errors.Is(err, &ContractError{Code: tc.want}) {
			t.Errorf("%s: %v, want %s", tc.body, err, tc.want)
		}
	}
}
