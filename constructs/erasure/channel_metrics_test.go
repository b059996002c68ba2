package erasure

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// TestChannelMetricsAsStoreTeamsGetThem: the channel's public metrics are
// the response reader's (its namespace, name and code), sums over 5 minutes
// unless the options say otherwise, and the ledger's refusals sum every
// ledger refusal code.
func TestChannelMetricsAsStoreTeamsGetThem(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("eu-west-1")}})
	ch := NewErasureChannel(stack, jsii.String("Channel"), &ErasureChannelProps{Publishers: []string{"arn:aws:iam::111111111111:role/account-service"}})

	m := ch.MetricAnswersRefused(nil)
	if *m.Namespace() != contract.MetricNamespace || *m.MetricName() != contract.MetricAnswersRefused || *m.Statistic() != "Sum" || *m.Period().ToSeconds(nil) != 300 {
		t.Errorf("MetricAnswersRefused: %s %s %s %v s", *m.Namespace(), *m.MetricName(), *m.Statistic(), *m.Period().ToSeconds(nil))
	}
	if got := (*m.Dimensions())[contract.MetricDimensionCode]; fmt.Sprint(got) != contract.CodeSenderNotOnRoster {
		t.Errorf("MetricAnswersRefused's code dimension is %v", got)
	}
	o := ch.MetricAnswersConflicting(&awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: awscdk.Duration_Minutes(jsii.Number(1)), Label: jsii.String("conflicts")})
	if *o.MetricName() != contract.MetricAnswersConflicting || *o.Statistic() != "Maximum" || *o.Period().ToSeconds(nil) != 60 || o.Label() == nil || *o.Label() != "conflicts" {
		t.Errorf("MetricAnswersConflicting with options: %s %s %v s %v", *o.MetricName(), *o.Statistic(), *o.Period().ToSeconds(nil), o.Label())
	}
	// Every MetricOptions field applies, an unset enum (Unit) included.
	c := ch.MetricAnswersRefused(&awscloudwatch.MetricOptions{Color: jsii.String("#ff0000"), Unit: awscloudwatch.Unit_COUNT, Account: jsii.String("222222222222")})
	if *c.Statistic() != "Sum" || c.Color() == nil || *c.Color() != "#ff0000" || c.Unit() != awscloudwatch.Unit_COUNT || c.Account() == nil || *c.Account() != "222222222222" {
		t.Errorf("MetricAnswersRefused with color, unit and account: %s %v %v %v", *c.Statistic(), c.Color(), c.Unit(), c.Account())
	}
	e := ch.MetricLedgerRefusals()
	terms := strings.Split(*e.Expression(), "+")
	if len(terms) != len(contract.LedgerRefusalCodes) || len(*e.UsingMetrics()) != len(terms) || *e.Period().ToSeconds(nil) != 300 {
		t.Errorf("MetricLedgerRefusals: %q over %d metrics, %v s", *e.Expression(), len(*e.UsingMetrics()), *e.Period().ToSeconds(nil))
	}
	for i, id := range terms {
		used, ok := (*e.UsingMetrics())[id].(awscloudwatch.Metric)
		if !ok || *used.MetricName() != contract.MetricAnswersRefused || fmt.Sprint((*used.Dimensions())[contract.MetricDimensionCode]) != contract.LedgerRefusalCodes[i] {
			t.Errorf("MetricLedgerRefusals' %s is not the refusals of %s", id, contract.LedgerRefusalCodes[i])
		}
	}
}
