package erasurecheck

import (
	"errors"
	"strings"
	"testing"
)

// TestParseAcknowledgements: the file's shape, from raw bytes: a good entry
// is read with its source; each bad one is refused with its typed reason,
// and no error repeats the reason's text or the file's bytes.
func TestParseAcknowledgements(t *testing.T) {
	good := "acknowledgements:\n  - rule: EC323\n    stack: Orders\n    logicalId: HandlerRole\n    reason: the landing zone boundary allows it\n"
	acks, err := ParseAcknowledgements([]byte(good), "acks.yaml")
	if err != nil || len(acks) != 1 || acks[0].Rule != "EC323" || acks[0].Stack != "Orders" || acks[0].LogicalID != "HandlerRole" || acks[0].Source != "acks.yaml" {
		t.Fatalf("%+v, %v", acks, err)
	}
	if _, err := ParseAcknowledgements([]byte(`{"acknowledgements":[{"rule":"EC102","constructPath":"App/Orders","reason":"checked by the orders app"}]}`), "acks.json"); err != nil {
		t.Errorf("JSON: %v", err)
	}
	for name, c := range map[string]struct {
		body string
		want error
	}{
		"a cap":          {"acknowledgements:\n  - {rule: EC202, logicalId: Q, reason: secret-reason-text}\n", ErrNotAcknowledgeable},
		"no such rule":   {"acknowledgements:\n  - {rule: EC999, logicalId: Q, reason: secret-reason-text}\n", ErrUnknownRule},
		"a short reason": {"acknowledgements:\n  - {rule: EC323, logicalId: Q, reason: '  short  '}\n", ErrShortReason},
		"nothing named":  {"acknowledgements:\n  - {rule: EC323, reason: secret-reason-text}\n", ErrNothingNamed},
	} {
		_, err := ParseAcknowledgements([]byte(c.body), "acks.yaml")
		var ae *AcknowledgementError
		if !errors.As(err, &ae) || !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want an AcknowledgementError of %v", name, err, c.want)
		} else if strings.Contains(err.Error(), "secret-reason-text") {
			t.Errorf("%s: the error repeats the reason: %v", name, err)
		}
	}
	for name, body := range map[string]string{"an unknown key": "acknowledgements:\n  - {rule: EC323, logicalid: Q, reason: secret-reason-text}\n", "not YAML": "secret-reason-text: [", "a list": "- secret-reason-text\n"} {
		if _, err := ParseAcknowledgements([]byte(body), "acks.yaml"); err == nil || strings.Contains(err.Error(), "secret-reason-text") {
			t.Errorf("%s: %v, want an error that does not echo the file", name, err)
		}
	}
}

// FuzzParseAcknowledgements: any bytes are read or refused, never a panic;
// whatever is read is valid.
func FuzzParseAcknowledgements(f *testing.F) {
	f.Add([]byte("acknowledgements:\n  - rule: EC323\n    logicalId: H\n    reason: the landing zone boundary allows it\n"))
	f.Add([]byte(`{"acknowledgements":[{"rule":"EC102","constructPath":"A/B","reason":"checked elsewhere ok"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		acks, err := ParseAcknowledgements(b, "f")
		if err != nil {
			return
		}
		for _, k := range acks {
			if ValidateAcknowledgement(k.Rule, k.Reason) != nil || k.ConstructPath == "" && k.LogicalID == "" && k.Stack == "" {
				t.Fatalf("read an invalid acknowledgement: %+v", k)
			}
		}
	})
}
