package design

import "github.com/linn-cloud/erasure-channel/contract"

// notApplicablePeriodMinutes is the period of the ErasureNotApplicable
// metric and its alarm: five minutes, CloudWatch's standard resolution.
const notApplicablePeriodMinutes = 5

// NotApplicableMetric is the ErasureNotApplicable metric the handler of
// subscriber name publishes: a 5-minute sum of its NOT_APPLICABLE answers.
func NotApplicableMetric(name string) Metric {
	return Metric{
		Namespace:     contract.MetricNamespace,
		MetricName:    contract.MetricNotApplicable,
		Dimensions:    map[string]string{contract.MetricDimensionSubscriber: name},
		Statistic:     "Sum",
		PeriodMinutes: notApplicablePeriodMinutes,
	}
}

// NotApplicableAlarm is the design of an alarm (named id, under the
// applier's NameThis; made as NameNotApplicableAlarm) that fires when
// subscriber name answers NOT_APPLICABLE at least threshold times in one
// 5-minute period: the hook for a team that expects its store to hold data
// of every kind it is asked about.
func NotApplicableAlarm(name, id string, threshold float64) Design {
	d := NewDesign()
	d.Metrics = []NamedMetric{{Metric: NotApplicableMetric(name), As: NameMetric}}
	d.Alarms = []Alarm{MetricAlarm(NameThis, id, "Subscriber "+name+" answered NOT_APPLICABLE: check the claim that it holds nothing of that kind.",
		NameMetric, 1, GreaterThanOrEqual, NameNotApplicableAlarm)}
	d.Alarms[0].Threshold = threshold
	d.Suppressions = []Suppression{AlarmActionsSuppression(NameNotApplicableAlarm)}
	return d
}

// DeadLetterAlarm is an alarm that fires when the queue dlq holds any message.
func DeadLetterAlarm(scope Name, id string, dlq Name, description string, as Name) Alarm {
	return queueAlarm(scope, id, description, dlq, MessagesVisible, 1, GreaterThanOrEqual, as)
}

// OldestMessageAlarm is an alarm that fires when q's oldest message is older
// than boundSeconds.
func OldestMessageAlarm(scope Name, id string, q Name, boundSeconds int, description string, as Name) Alarm {
	return queueAlarm(scope, id, description, q, AgeOfOldestMessage, float64(boundSeconds), GreaterThan, as)
}

// MetricAlarm is an alarm on the metric the applier holds as metric.
func MetricAlarm(scope Name, id, description string, metric Name, threshold float64, compare Comparison, as Name) Alarm {
	return Alarm{Scope: scope, ID: id, Description: description, Metric: metric, Threshold: threshold, Comparison: compare, As: as}
}

// Metrics is the design of one metric (the applier makes it as NameMetric),
// with the options the caller holds as NameOptions over it when withOptions.
func Metrics(m Metric, withOptions bool) Design {
	d := NewDesign()
	nm := NamedMetric{Metric: m, As: NameMetric}
	if withOptions {
		nm.Options = NameOptions
	}
	d.Metrics = []NamedMetric{nm}
	return d
}

// queueAlarm alarms on one of q's metrics over one minute, statistic Maximum.
func queueAlarm(scope Name, id, description string, q Name, metric QueueMetricName, threshold float64, compare Comparison, as Name) Alarm {
	return Alarm{Scope: scope, ID: id, Description: description,
		QueueMetric: &QueueMetric{Queue: q, Metric: metric, Statistic: QueueAlarmStatistic, PeriodMinutes: QueueAlarmMinutes},
		Threshold:   threshold, Comparison: compare, As: as}
}
