package contract

// The ErasureNotApplicable metric: a store's handler publishes it (CloudWatch
// embedded metric format) each time it answers NOT_APPLICABLE, and the
// ErasureSubscriber construct alarms on it. Nothing else can verify a store's
// claim that it holds nothing of a kind.
const (
	MetricNamespace           = "ErasureChannel"
	MetricNotApplicable       = "ErasureNotApplicable"
	MetricDimensionSubscriber = "Subscriber"
)
