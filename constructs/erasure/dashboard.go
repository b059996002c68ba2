package erasure

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// ErasureDashboardProps configures the operator's dashboard.
type ErasureDashboardProps struct {
	// Channel is the erasure channel: its response queue's depth and age.
	Channel *ErasureChannel
	// DashboardName is an optional physical name.
	DashboardName string
}

// ErasureDashboard is the operator's view of the channel: the response queue's
// depth and age, the channel's and the ledger's alarms, and every store's
// answers by outcome, NOT_APPLICABLE count and dead-letter queue depth,
// found by CloudWatch search expressions. Its widgets are the same for one
// store or ten thousand (CloudWatch accepts 500 a dashboard): a store that
// joins changes no widget. Each search ranks the stores and shows the top
// dashboardTopStores; CloudWatch reads at most 500 series a search, so past
// 500 stores a ranking covers the first 500 it finds, and each store's own
// dead-letter alarm (ErasureSubscriber.DeadLetterAlarm) stays the safeguard.
type ErasureDashboard struct {
	constructs.Construct
	Dashboard awscloudwatch.Dashboard
}

// storeQueueSearchToken is the token of contract.QueueNamePrefix a search
// matches a store queue's name by (a quoted value would match only whole names).
var storeQueueSearchToken = strings.Split(strings.Trim(contract.QueueNamePrefix, "-"), "-")[1]

// dashboardTopStores is how many stores each ranking widget shows.
const dashboardTopStores = 10

// NewErasureDashboard builds the dashboard. Put it in a stack of its own, in
// the channel's account: it refers to the channel only, and finds the stores
// of that account and region by search.
func NewErasureDashboard(scope constructs.Construct, id *string, props *ErasureDashboardProps) *ErasureDashboard {
	this := constructs.NewConstruct(scope, id)
	d := &ErasureDashboard{Construct: this}
	d.Dashboard = awscloudwatch.NewDashboard(this, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: optional(props.DashboardName),
	})
	period := awscdk.Duration_Minutes(jsii.Number(5))
	if ch := props.Channel; ch != nil {
		d.Dashboard.AddWidgets(
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Response queue: depth"), Width: jsii.Number(12),
				Left: &[]awscloudwatch.IMetric{
					ch.ResponseQueue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum"), Label: jsii.String("waiting")}),
					ch.ResponseDeadLetterQueue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum"), Label: jsii.String("dead-lettered")}),
				},
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Response queue: age of the oldest answer (s)"), Width: jsii.Number(12),
				Left: &[]awscloudwatch.IMetric{ch.ResponseQueue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")})},
			}),
			awscloudwatch.NewAlarmWidget(&awscloudwatch.AlarmWidgetProps{
				Title: jsii.String("Answers refused: sender is not the store's handler"), Width: jsii.Number(12),
				Alarm: ch.RefusedAnswersAlarm,
			}),
			awscloudwatch.NewAlarmWidget(&awscloudwatch.AlarmWidgetProps{
				Title: jsii.String("Answers contradicting the store's earlier answer"), Width: jsii.Number(12),
				Alarm: ch.ConflictingAnswersAlarm,
			}),
			awscloudwatch.NewAlarmWidget(&awscloudwatch.AlarmWidgetProps{
				Title: jsii.String("Ledger: answers refused (unknown request or round, wrong type or key, off the roster)"), Width: jsii.Number(12),
				Alarm: ch.LedgerRefusedAnswersAlarm,
			}),
			awscloudwatch.NewAlarmWidget(&awscloudwatch.AlarmWidgetProps{
				Title: jsii.String("Ledger: re-broadcasts exhausted"), Width: jsii.Number(12),
				Alarm: ch.ExhaustedRebroadcastsAlarm,
			}),
			awscloudwatch.NewAlarmWidget(&awscloudwatch.AlarmWidgetProps{
				Title: jsii.String("Ledger: erasures near their one-month deadline"), Width: jsii.Number(12),
				Alarm: ch.OverdueRequestsAlarm,
			}),
		)
	}
	search := func(expr, label string) awscloudwatch.IMetric {
		return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression: jsii.String(fmt.Sprintf("SORT(%s, MAX, DESC, %d)", expr, dashboardTopStores)),
			Label:      jsii.String(label), Period: period, UsingMetrics: &map[string]awscloudwatch.IMetric{},
		})
	}
	d.Dashboard.AddWidgets(
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(fmt.Sprintf("Stores: answers by store and outcome (top %d)", dashboardTopStores)), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{search(fmt.Sprintf(`SEARCH('{%s,%s,%s} MetricName="%s"', 'Sum', 300)`,
				contract.MetricNamespace, contract.MetricDimensionOutcome, contract.MetricDimensionSubscriber, contract.MetricAnswers), "")},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(fmt.Sprintf("Stores: NOT_APPLICABLE answers (top %d)", dashboardTopStores)), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{search(fmt.Sprintf(`SEARCH('{%s,%s} MetricName="%s"', 'Sum', 300)`,
				contract.MetricNamespace, contract.MetricDimensionSubscriber, contract.MetricNotApplicable), "")},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(fmt.Sprintf("Stores: dead-letter queues, messages waiting (top %d)", dashboardTopStores)), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{search(`SEARCH('{AWS/SQS,QueueName} MetricName="ApproximateNumberOfMessagesVisible" DeadLetterQueue', 'Maximum', 300)`, "")},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(fmt.Sprintf("Stores: erasure queues, age of the oldest request in s (top %d)", dashboardTopStores)), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{search(fmt.Sprintf(`SEARCH('{AWS/SQS,QueueName} MetricName="ApproximateAgeOfOldestMessage" QueueName=%s', 'Maximum', 300)`,
				storeQueueSearchToken), "")},
		}),
	)
	return d
}
