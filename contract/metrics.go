package contract

import (
	"encoding/json"
	"time"
)

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

// The ledger's metrics and codes (package ledger emits them; ErasureChannel
// alarms on them). A ledger refusal is counted in MetricAnswersRefused under
// one of the LedgerRefusalCodes.
const (
	// MetricRebroadcastsExhausted counts requests whose maxBroadcasts-th
	// broadcast expired without every roster store's answer (Code EXHAUSTED).
	MetricRebroadcastsExhausted = "ErasureRebroadcastsExhausted"
	CodeExhausted               = "EXHAUSTED"
	// MetricRequestsOverdue counts, each sweep, the incomplete requests within
	// erasureDeadlineWarningSeconds of their one-month deadline (Code OVERDUE).
	MetricRequestsOverdue = "ErasureRequestsOverdue"
	CodeOverdue           = "OVERDUE"
	// MetricRebroadcasts counts re-broadcasts (Code REBROADCAST).
	MetricRebroadcasts = "ErasureRebroadcasts"
	CodeRebroadcast    = "REBROADCAST"

	// MetricReceiptLogRefused counts the ledger's refusals to sign a record of
	// its receipt log that it did not write (Code LOG_FORGED): someone who can
	// write the table put a record at the log's next index.
	MetricReceiptLogRefused = "ErasureReceiptLogRefused"
	CodeLogForged           = "LOG_FORGED"
	// CodeLogRolledBack (of MetricReceiptLogRefused): the table's log does
	// not extend the head its anchor holds: it was restored or rewritten.
	CodeLogRolledBack = "LOG_ROLLED_BACK"

	CodeUnknownRequest = "UNKNOWN_REQUEST" // no request with this requestId was recorded
	CodeUnknownRound   = "UNKNOWN_ROUND"   // the request has no such broadcast (sendNo)
	CodeWrongType      = "WRONG_TYPE"      // the answer's type does not answer the request's
	CodeWrongKey       = "WRONG_KEY"       // a HOLDINGS answer about another key
	CodeNotOnRoster    = "NOT_ON_ROSTER"   // the store is not on the roster the request waits for
	CodeNotAnOutcome   = "NOT_AN_OUTCOME"  // an outcome that does not answer this type
)

// LedgerRefusalCodes are the codes the ledger refuses an authenticated answer
// with.
var LedgerRefusalCodes = []string{CodeUnknownRequest, CodeUnknownRound, CodeWrongType, CodeWrongKey, CodeNotOnRoster, CodeNotAnOutcome}

// AnswerValues are every outcome and answer an answer can carry, once each:
// the values of MetricAnswers' Outcome dimension.
var AnswerValues = []string{
	string(OutcomeDone), string(OutcomeMoved), string(OutcomeNoneOwned), string(OutcomeNotMoved),
	string(AnswerHoldsData), string(AnswerHoldsNone), string(AnswerCannotAnswer), string(OutcomeNotApplicable),
}

// CodeMetricLine is one CloudWatch embedded-metric line (with its newline)
// counting 1 of metric in MetricNamespace, by Code: the line carries the code
// only, never a requestId, key, store or sender.
func CodeMetricLine(at time.Time, metric, code string) []byte {
	line, _ := json.Marshal(map[string]any{
		"_aws": map[string]any{
			"Timestamp": at.UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  MetricNamespace,
				"Dimensions": [][]string{{MetricDimensionCode}},
				"Metrics":    []any{map[string]string{"Name": metric, "Unit": "Count"}},
			}},
		},
		MetricDimensionCode: code,
		metric:              1,
	})
	return append(line, '\n')
}
