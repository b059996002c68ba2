package erasure

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract"
)

// ErasureDashboardProps configures the operator's dashboard.
type ErasureDashboardProps struct {
	// Channel is the erasure channel: its response queue's depth and age.
	Channel *ErasureChannel
	// Subscribers are the stores shown, one row each. A store in another
	// account or region cannot be referenced across environments: give it its
	// own dashboard in its own account.
	Subscribers []*ErasureSubscriber
	// DashboardName is an optional physical name.
	DashboardName string
}

// ErasureDashboard is the operator's view of the channel: per subscriber,
// answers by outcome, the NOT_APPLICABLE count, dead-letter queue depth and the
// age of its oldest message; the response queue's depth and age, and the
// answers refused because their sender is not the store's handler (alarm).
type ErasureDashboard struct {
	constructs.Construct
	Dashboard awscloudwatch.Dashboard
}

// NewErasureDashboard builds the dashboard. Put it in a stack of its own (or
// the stores' stack): it refers to the channel and to every store.
func NewErasureDashboard(scope constructs.Construct, id *string, props *ErasureDashboardProps) *ErasureDashboard {
	this := constructs.NewConstruct(scope, id)
	d := &ErasureDashboard{Construct: this}
	d.Dashboard = awscloudwatch.NewDashboard(this, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: optional(props.DashboardName),
	})
	period := minutes(5)
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
	for _, s := range props.Subscribers {
		var answers []awscloudwatch.IMetric
		for _, o := range contract.AnswerValues {
			answers = append(answers, awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String(contract.MetricNamespace), MetricName: jsii.String(contract.MetricAnswers),
				DimensionsMap: &map[string]*string{contract.MetricDimensionSubscriber: jsii.String(s.Name), contract.MetricDimensionOutcome: jsii.String(o)},
				Statistic:     jsii.String("Sum"), Period: period, Label: jsii.String(o),
			}))
		}
		d.Dashboard.AddWidgets(
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String(s.Name + ": answers by outcome"), Width: jsii.Number(8), Stacked: jsii.Bool(true), Left: &answers,
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String(s.Name + ": NOT_APPLICABLE"), Width: jsii.Number(4),
				Left: &[]awscloudwatch.IMetric{s.MetricNotApplicable(nil)},
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String(s.Name + ": dead-letter queue"), Width: jsii.Number(12),
				Left:  &[]awscloudwatch.IMetric{s.DeadLetterQueue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum"), Label: jsii.String("depth")})},
				Right: &[]awscloudwatch.IMetric{s.DeadLetterQueue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum"), Label: jsii.String("oldest (s)")})},
			}),
		)
	}
	return d
}
