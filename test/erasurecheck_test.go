package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
)

// TestKeyPoliciesAreScoped: every key policy statement of the example app
// that lets a service principal use a key is scoped to this channel's
// resources (aws:SourceArn) or accounts (aws:SourceAccount).
func TestKeyPoliciesAreScoped(t *testing.T) {
	checked := 0
	for stack, tpl := range defaultApp(t) {
		for id, key := range tpl.resources("AWS::KMS::Key") {
			doc := key["Properties"].(map[string]interface{})["KeyPolicy"].(map[string]interface{})
			for _, st := range doc["Statement"].([]interface{}) {
				stm := st.(map[string]interface{})
				p, _ := stm["Principal"].(map[string]interface{})
				if _, ok := p["Service"]; !ok {
					continue
				}
				checked++
				cond := fmt.Sprint(stm["Condition"])
				if !strings.Contains(cond, "aws:SourceArn") && !strings.Contains(cond, "aws:SourceAccount") {
					t.Errorf("%s/%s lets %v use the key without a source condition: %v", stack, id, p["Service"], stm)
				}
				if p["Service"] == "sns.amazonaws.com" && !strings.Contains(cond, "ErasureChannelTopic") && !strings.Contains(cond, "erasure-topic") {
					t.Errorf("%s/%s: SNS is not limited to the erasure topic: %s", stack, id, cond)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no service-principal key statement was found: the test checks nothing")
	}
}

// TestDashboard: the example app's operator dashboard shows the response
// queue's depth and age, and every store's answers by outcome, NOT_APPLICABLE
// count, dead-letter depth and oldest request through search expressions:
// it names no store, so a store that joins changes no widget.
func TestDashboard(t *testing.T) {
	tpl, ok := defaultApp(t)["ErasureOperations"]
	if !ok {
		t.Fatal("no ErasureOperations stack")
	}
	_, d := tpl.one(t, "AWS::CloudWatch::Dashboard")
	body := fmt.Sprint(d["DashboardBody"])
	for _, want := range []string{
		"SEARCH('{" + contract.MetricNamespace + "," + contract.MetricDimensionOutcome + "," + contract.MetricDimensionSubscriber + `} MetricName=\"` + contract.MetricAnswers,
		"SEARCH('{" + contract.MetricNamespace + "," + contract.MetricDimensionSubscriber + `} MetricName=\"` + contract.MetricNotApplicable,
		`ApproximateNumberOfMessagesVisible\" DeadLetterQueue`, "ApproximateAgeOfOldestMessage", "Response queue: depth", "Response queue: age",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard has no %q:\n%s", want, body)
		}
	}
	for _, store := range []string{"space", "bitmaps"} {
		if strings.Contains(body, store) {
			t.Errorf("the dashboard names store %s: it would grow with every store", store)
		}
	}
	if strings.Contains(body, "ledger") {
		t.Error("the store of another account is on the channel account's dashboard")
	}
}
