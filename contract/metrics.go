package contract

// The ErasureNotApplicable metric: a store's handler publishes it (CloudWatch
// embedded metric format) each time it answers NOT_APPLICABLE, and the
// ErasureSubscriber construct alarms on it. Nothing else can verify a store's
// claim that it holds nothing of a kind.
const (
	MetricNamespace           = "ErasureChannel"
	MetricNotApplicable       = "ErasureNotApplicable"
	MetricDimensionSubscriber = "Subscriber"
	// MetricAnswers counts the answers a store sent, by Subscriber and Outcome
	// (an ACK's or REFILE_ACK's outcome, or a HOLDINGS answer).
	MetricAnswers          = "ErasureAnswers"
	MetricDimensionOutcome = "Outcome"
	// MetricAnswersRefused counts the answers the account service's response
	// reader refused to count, by Code (SENDER_NOT_ON_ROSTER: the sender is
	// not the handler of the store the answer names). ErasureChannel alarms on
	// it: a forged or misrouted answer is never silent.
	MetricAnswersRefused = "ErasureAnswersRefused"
	MetricDimensionCode  = "Code"
	// CodeSenderNotOnRoster is the log and metric code of such an answer.
	CodeSenderNotOnRoster = "SENDER_NOT_ON_ROSTER"
	// MetricAnswersConflicting counts the answers whose outcome contradicts
	// the store's earlier answer to the same round (DONE after
	// NOT_APPLICABLE, or the reverse), by Code (CONFLICTING_ANSWER): the
	// first answer stands, and ErasureChannel alarms on the contradiction.
	MetricAnswersConflicting = "ErasureAnswersConflicting"
	// CodeConflictingAnswer is the log and metric code of such an answer.
	CodeConflictingAnswer = "CONFLICTING_ANSWER"
)

// AnswerValues are every outcome and answer an answer can carry, once each:
// the values of MetricAnswers' Outcome dimension.
var AnswerValues = []string{
	string(OutcomeDone), string(OutcomeMoved), string(OutcomeNoneOwned), string(OutcomeNotMoved),
	string(AnswerHoldsData), string(AnswerHoldsNone), string(AnswerCannotAnswer), string(OutcomeNotApplicable),
}
