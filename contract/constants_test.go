package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/schema"
)

// TestChannelConstantsArithmetic is the seed's rule: the package's tests fail
// if R falls below 2·(N−1)·V + 2·T + X or above the retention, or if a derived
// value disagrees with its formula.
func TestChannelConstantsArithmetic(t *testing.T) {
	c := Channel()
	if got, want := c.VisibilityTimeoutCapSeconds, c.VisibilityTimeoutMultiplier*c.HandlerTimeoutCapSeconds; got != want {
		t.Errorf("V = %d, want multiplier x T = %d", got, want)
	}
	bound := 2*(c.MaxReceiveCount-1)*c.VisibilityTimeoutCapSeconds + 2*c.HandlerTimeoutCapSeconds + c.PassTwoDelayCapSeconds
	if c.ExpiryPeriodSeconds < bound {
		t.Errorf("R = %d below 2(N-1)V + 2T + X = %d", c.ExpiryPeriodSeconds, bound)
	}
	if c.ExpiryPeriodSeconds > c.QueueRetentionSeconds {
		t.Errorf("R = %d above the retention %d", c.ExpiryPeriodSeconds, c.QueueRetentionSeconds)
	}
	if got, want := c.DuplicateAfterCompletionWindowSeconds, c.ExpiryPeriodSeconds+c.ClockSkewAllowanceSeconds+c.HandlerTimeoutCapSeconds+c.BatchTimeoutCapSeconds; got != want {
		t.Errorf("duplicate window = %d, want R + S + T + b = %d", got, want)
	}
	if c.BatchTimeoutCapSeconds > c.HandlerTimeoutCapSeconds {
		t.Errorf("b = %d above T = %d", c.BatchTimeoutCapSeconds, c.HandlerTimeoutCapSeconds)
	}
	if c.PassTwoDelayCapSeconds > c.AWS.SQSDelayMaxSeconds {
		t.Errorf("X = %d above SQS's delay limit %d", c.PassTwoDelayCapSeconds, c.AWS.SQSDelayMaxSeconds)
	}
	if c.RoundPublishBoundSeconds <= c.PublisherTickSeconds {
		t.Errorf("P = %d not above the publisher tick %d", c.RoundPublishBoundSeconds, c.PublisherTickSeconds)
	}
	if c.HandlerTimeoutCapSeconds > c.AWS.LambdaTimeoutMaxSeconds {
		t.Errorf("T above the Lambda limit")
	}
}

// TestChannelConstantsSeedValues pins the seed's table: a change to a value
// is a change to the contract every twin must make together.
func TestChannelConstantsSeedValues(t *testing.T) {
	c := Channel()
	for name, want := range map[string][2]int{
		"T": {c.HandlerTimeoutCapSeconds, 60}, "multiplier": {c.VisibilityTimeoutMultiplier, 6},
		"V": {c.VisibilityTimeoutCapSeconds, 360}, "N": {c.MaxReceiveCount, 5}, "X": {c.PassTwoDelayCapSeconds, 300},
		"b": {c.BatchTimeoutCapSeconds, 60}, "S": {c.ClockSkewAllowanceSeconds, 60}, "R": {c.ExpiryPeriodSeconds, 3300},
		"P": {c.RoundPublishBoundSeconds, 600}, "retention": {c.QueueRetentionSeconds, 86400},
		"duplicate window": {c.DuplicateAfterCompletionWindowSeconds, 3480},
	} {
		if want[0] != want[1] {
			t.Errorf("%s = %d, the seed says %d", name, want[0], want[1])
		}
	}
	if c.RedeliveryBoundSeconds() != c.ExpiryPeriodSeconds {
		t.Errorf("at the caps 2(N-1)V + 2T + X = %d, the seed says it equals R = %d", c.RedeliveryBoundSeconds(), c.ExpiryPeriodSeconds)
	}
}

// mutate loads the embedded constants file with one entry's value replaced.
func mutate(t *testing.T, section, name string, value any) ([]byte, error) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(schema.ChannelConstantsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	entries := doc[section].(map[string]any)
	if value == nil {
		delete(entries, name)
	} else if e, ok := entries[name].(map[string]any); ok {
		e["value"] = value
	} else {
		entries[name] = map[string]any{"value": value, "meaning": "x"}
	}
	b, _ := json.Marshal(doc)
	_, err := LoadConstants(b)
	return b, err
}

// TestLoadConstantsRefusesBrokenArithmetic: a constant cannot change without
// the arithmetic holding.
func TestLoadConstantsRefusesBrokenArithmetic(t *testing.T) {
	for _, tc := range []struct {
		name, section, entry string
		value                any
		wantProblem          string
	}{
		{"R below the redeliveries", "constants", "expiryPeriodSeconds", 3299, "expiryPeriodSeconds must be at least"},
		{"R above retention", "constants", "queueRetentionSeconds", 3000, "expiryPeriodSeconds must not exceed"},
		{"V not 6T", "constants", "visibilityTimeoutCapSeconds", 300, "visibilityTimeoutCapSeconds must equal"},
		{"T raised alone", "constants", "handlerTimeoutCapSeconds", 70, "visibilityTimeoutCapSeconds must equal"},
		{"N raised alone", "constants", "maxReceiveCount", 6, "expiryPeriodSeconds must be at least"},
		{"X raised alone", "constants", "passTwoDelayCapSeconds", 301, "expiryPeriodSeconds must be at least"},
		{"X past SQS delay", "constants", "passTwoDelayCapSeconds", 901, "passTwoDelayCapSeconds must be inside"},
		{"duplicate window wrong", "constants", "duplicateAfterCompletionWindowSeconds", 3479, "duplicateAfterCompletionWindowSeconds must equal"},
		{"b above T", "constants", "batchTimeoutCapSeconds", 61, "batchTimeoutCapSeconds must not exceed"},
		{"P not above tick", "constants", "roundPublishBoundSeconds", 300, "roundPublishBoundSeconds must exceed"},
		{"zero", "constants", "clockSkewAllowanceSeconds", 0, "clockSkewAllowanceSeconds must be positive"},
		{"missing", "constants", "maxReceiveCount", nil, "maxReceiveCount is missing"},
		{"unknown", "constants", "surpriseSeconds", 1, "unknown constant"},
		{"retention past SQS", "constants", "queueRetentionSeconds", 1209601, "queueRetentionSeconds must be inside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mutate(t, tc.section, tc.entry, tc.value)
			var ce *ConstantsError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadConstants = %v, want *ConstantsError", err)
			}
			if !strings.Contains(err.Error(), tc.wantProblem) {
				t.Fatalf("error %q does not report %q", err, tc.wantProblem)
			}
		})
	}
}

func TestLoadConstantsRefusesNonDocuments(t *testing.T) {
	for _, b := range []string{"", "[]", `{"constants":{}}x`, `{"constants":{"a":{"value":"1"}}}`, `{"other":1}`} {
		if _, err := LoadConstants([]byte(b)); err == nil {
			t.Errorf("LoadConstants(%q) accepted", b)
		}
	}
}

func TestEmbeddedConstantsLoadAndHaveMeanings(t *testing.T) {
	if _, err := LoadConstants(schema.ChannelConstantsJSON); err != nil {
		t.Fatal(err)
	}
	for name, e := range ConstantEntries() {
		if e.Meaning == "" {
			t.Errorf("%s has no meaning", name)
		}
	}
}
