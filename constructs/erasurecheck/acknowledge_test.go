package erasurecheck

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract/problem"
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

// cdkOffersAcknowledgement is CDK's isSuppressibleViolation
// (@aws-cdk/cloud-assembly-api, validation/parsing.js): CDK's report offers
// "Acknowledge with '<plugin>::<rule>'" under every violation that is not
// fatal (a violation converted from an error annotation aside, which the
// check never reports).
func cdkOffersAcknowledgement(v Violation) bool { return !strings.EqualFold(v.Severity, "fatal") }

// TestCDKOffersOnlyWhatTheCheckHonours: for every rule of the catalogue, CDK
// offers an acknowledgement under its finding exactly when the check honours
// one (Rule.Acknowledgeable, which Acknowledge and CDK's own
// acknowledgement both obey), and an acknowledged finding is no longer
// offered one.
func TestCDKOffersOnlyWhatTheCheckHonours(t *testing.T) {
	for _, r := range Rules() {
		f := Finding{Rule: r, Problem: problemOf(r, problem.Root("S"), "detail")}
		if got := cdkOffersAcknowledgement(ViolationOf(f)); got != r.Acknowledgeable {
			t.Errorf("%s (%s, %s): CDK offers an acknowledgement %v, the check honours one %v", r.ID, r.Name, r.Severity, got, r.Acknowledgeable)
		}
		f.Acknowledged = &Acknowledgement{Rule: r.ID, Reason: "a reason long enough to pass"}
		if v := ViolationOf(f); v.Severity != "info" {
			t.Errorf("%s acknowledged: severity %s, want info", r.ID, v.Severity)
		}
	}
}

// TestAcknowledgingEC001: an acknowledgement that matches no finding is an
// EC001 warning; an acknowledgement of EC001 on its scope covers that
// warning (what CDK's report offers under it); one that covers no warning is
// stale itself, an EC001 warning nothing covers.
func TestAcknowledgingEC001(t *testing.T) {
	clean := filepath.Join("testdata", "store-clean.yaml")
	const stale = "  - {rule: EC323, logicalId: NoSuchRole, reason: kept for the staging variant of the app}\n"
	const keep = "  - {rule: EC001, logicalId: NoSuchRole, reason: the staging variant has this role and this one not}\n"
	for name, c := range map[string]struct {
		acks         string
		ec001, acked int
	}{
		"a stale acknowledgement":   {stale, 1, 0},
		"it, acknowledged by EC001": {stale + keep, 1, 1},
		"EC001 with nothing stale":  {keep, 1, 0},
		"EC001 on another resource": {stale + strings.Replace(keep, "NoSuchRole", "Other", 1), 2, 0},
	} {
		acks, err := ParseAcknowledgements([]byte("acknowledgements:\n"+c.acks), "acks.yaml")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := CheckPaths([]string{clean}, Config{TopicArns: []string{benchTopic}, Acknowledgements: acks})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ec001, acked := 0, 0
		for _, f := range res.Findings {
			if f.Rule != nil && f.Rule.ID == "EC001" {
				ec001++
				if f.Acknowledged != nil {
					acked++
				}
			}
		}
		if ec001 != c.ec001 || acked != c.acked {
			t.Errorf("%s: %d EC001 warnings, %d acknowledged; want %d, %d", name, ec001, acked, c.ec001, c.acked)
		}
	}
}
