package plan

import "github.com/linn-cloud/erasure-channel/contract"

// notApplicablePeriodMinutes is the period of the ErasureNotApplicable
// metric and its alarm: five minutes, CloudWatch's standard resolution.
const notApplicablePeriodMinutes = 5

// NotApplicableMetric is the props of the ErasureNotApplicable metric the
// handler of subscriber name publishes: a 5-minute sum of its
// NOT_APPLICABLE answers.
func NotApplicableMetric(name string) map[string]any {
	return map[string]any{
		"namespace":     contract.MetricNamespace,
		"metricName":    contract.MetricNotApplicable,
		"dimensionsMap": map[string]any{contract.MetricDimensionSubscriber: name},
		"statistic":     "Sum",
		"period":        Minutes(notApplicablePeriodMinutes),
	}
}

// NotApplicableAlarm is the operations of an alarm (named id, under the
// applier's "this") that fires when subscriber name answers NOT_APPLICABLE
// at least threshold times in one 5-minute period: the hook for a team that
// expects its store to hold data of every kind it is asked about. The alarm
// is the result of the operation at the returned index.
func NotApplicableAlarm(name, id string, threshold float64) ([]map[string]any, int) {
	var b Batch
	metric := b.Add(map[string]any{"op": "metric", "props": NotApplicableMetric(name)})
	at := b.MetricAlarm(Named(NameThis), id, "Subscriber "+name+" answered NOT_APPLICABLE: check the claim that it holds nothing of that kind.",
		b.Result(metric), threshold, GreaterThanOrEqual)
	b.Add(AlarmActionsSuppression(b.Result(at)))
	return b.Ops, at
}
