package conform

import (
	"maps"
	"testing"
)

// TestBatchResponse reads a function's response as Lambda's SQS event
// source does with ReportBatchItemFailures (its documented success and
// failure shapes).
func TestBatchResponse(t *testing.T) {
	for _, c := range []struct {
		payload string
		failed  []string
		bad     bool
	}{
		{payload: ``},
		{payload: `null`},
		{payload: `{}`},
		{payload: `{"batchItemFailures":null}`},
		{payload: `{"batchItemFailures":[]}`},
		{payload: `{"batchItemFailures":[{"itemIdentifier":"m1"},{"itemIdentifier":"m3"}]}`, failed: []string{"m1", "m3"}},
		{payload: `{"batchItemFailures":[{"itemIdentifier":""}]}`, bad: true},
		{payload: `{"batchItemFailures":[{"itemIdentifier":null}]}`, bad: true},
		{payload: `{"batchItemFailures":[{}]}`, bad: true},
		{payload: `{"batchItemFailures":"m1"}`, bad: true},
		{payload: `not json`, bad: true},
	} {
		failed, bad := batchResponse([]byte(c.payload))
		want := map[string]bool{}
		for _, id := range c.failed {
			want[id] = true
		}
		if bad != c.bad || (!bad && !maps.Equal(failed, want)) {
			t.Errorf("%s: failed %v bad %v, want %v bad %v", c.payload, failed, bad, want, c.bad)
		}
	}
}

// TestCombines is the REFILE rule: NOT_MOVED in either pass wins, then MOVED.
func TestCombines(t *testing.T) {
	for _, c := range []struct {
		passOne, answer string
		ok              bool
	}{
		{"NOT_MOVED", "NOT_MOVED", true}, {"NOT_MOVED", "MOVED", false}, {"NOT_MOVED", "NONE_OWNED", false},
		{"MOVED", "MOVED", true}, {"MOVED", "NOT_MOVED", true}, {"MOVED", "NONE_OWNED", false},
		{"NONE_OWNED", "NONE_OWNED", true}, {"NONE_OWNED", "MOVED", true}, {"NONE_OWNED", "NOT_MOVED", true},
	} {
		if got := combines("erasure/REFILE", c.passOne, c.answer); got != c.ok {
			t.Errorf("REFILE %s then %s: %v, want %v", c.passOne, c.answer, got, c.ok)
		}
	}
}

// TestMetricLines finds embedded-metric lines with the exact dimensions,
// with or without a runtime's prefix.
func TestMetricLines(t *testing.T) {
	out := `{"level":"INFO","msg":"x"}
2026-12-05T00:00:00Z	abc	INFO	{"_aws":{"CloudWatchMetrics":[{"Namespace":"ErasureChannel","Dimensions":[["Subscriber","Outcome"]],"Metrics":[{"Name":"ErasureAnswers","Unit":"Count"}]}]},"Subscriber":"s","Outcome":"DONE","ErasureAnswers":1}
{"_aws":{"CloudWatchMetrics":[{"Namespace":"ErasureChannel","Dimensions":[["MessageType"]],"Metrics":[{"Name":"ErasureNotApplicable","Unit":"Count"}]}]},"Subscriber":"s","ErasureNotApplicable":1}`
	m := metricLines(out)
	if !m.has("ErasureAnswers", []string{"Subscriber", "Outcome"}, "s", "DONE") {
		t.Error("the prefixed answers line is not found")
	}
	if m.has("ErasureAnswers", []string{"Subscriber", "Outcome"}, "other", "DONE") || m.has("ErasureAnswers", []string{"Subscriber", "Outcome"}, "s", "MOVED") {
		t.Error("a line for another subscriber or outcome counts")
	}
	if m.has("ErasureNotApplicable", []string{"Subscriber"}, "s", "") {
		t.Error("a NOT_APPLICABLE line by MessageType counts as one by Subscriber")
	}
}
