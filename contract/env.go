package contract

import (
	"strconv"
	"strings"
	"time"
)

// The environment variables of an erasure handler. ErasureSubscriber sets
// every one of them from the store's deployed configuration.
const (
	// EnvPassTwoDelaySeconds: the delay before the second pass, 0 to X.
	EnvPassTwoDelaySeconds = "ERASURE_PASS_TWO_DELAY_SECONDS"
	// EnvBatchTimeoutSeconds: the client-side limit on one destructive call,
	// 1 to b, and never past T.
	EnvBatchTimeoutSeconds = "ERASURE_BATCH_TIMEOUT_SECONDS"
	// EnvSubscriber: the store's ErasureSubscriber name, the subscriber of
	// every answer. Never taken from a message.
	EnvSubscriber = "ERASURE_SUBSCRIBER"
	// EnvResponseQueueURL: the channel's response queue.
	EnvResponseQueueURL = "ERASURE_RESPONSE_QUEUE_URL"
	// EnvQueueURL: the store's own erasure queue, where pass two is re-sent.
	EnvQueueURL = "ERASURE_QUEUE_URL"
	// EnvHandlerRoleID: the unique id (AROA…) of the handler's own execution
	// role, set at deploy time from the role's RoleId. SQS reports the
	// handler's own sends as "<role id>:<function name>": a pass-two marker
	// is accepted from exactly that sender and no other.
	EnvHandlerRoleID = "ERASURE_HANDLER_ROLE_ID"
)

// The environment a bitmap store's handler gets from BitmapStoreBucket.AttachTo:
// where its bucket is and its read TTL, the bound on how long any process
// keeps serving an erased id.
const (
	EnvBitmapBucket        = "ERASURE_BITMAP_BUCKET"
	EnvBitmapPrefix        = "ERASURE_BITMAP_PREFIX"
	EnvBitmapReadTTLMillis = "ERASURE_BITMAP_READ_TTL_MS"
)

// HandlerEnvironmentVariables lists every variable LoadHandlerEnvironment reads.
var HandlerEnvironmentVariables = []string{
	EnvPassTwoDelaySeconds, EnvBatchTimeoutSeconds, EnvSubscriber, EnvResponseQueueURL, EnvQueueURL, EnvHandlerRoleID,
}

// HandlerEnvironment is a store handler's configuration, read from its
// environment and checked against the channel's caps.
type HandlerEnvironment struct {
	PassTwoDelay     time.Duration
	BatchTimeout     time.Duration
	Subscriber       string
	ResponseQueueURL string
	QueueURL         string
	// RoleID is the handler role's unique id (EnvHandlerRoleID).
	RoleID string
}

// EnvProblem is one variable that is missing or out of bounds. It names the
// variable and the rule, never the value.
type EnvProblem struct {
	Variable string
	Problem  string // "missing", "not a whole number of seconds", "above the cap of 300 s", …
}

// EnvError lists every problem LoadHandlerEnvironment found.
type EnvError struct{ Problems []EnvProblem }

func (e *EnvError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Variable + ": " + p.Problem
	}
	return "contract: handler environment: " + strings.Join(parts, "; ")
}

// Has reports whether variable has a problem.
func (e *EnvError) Has(variable string) bool {
	for _, p := range e.Problems {
		if p.Variable == variable {
			return true
		}
	}
	return false
}

// LoadHandlerEnvironment reads the handler environment through lookup
// (os.LookupEnv in a Lambda) and checks it against c. Every problem is
// reported together in an *EnvError.
func LoadHandlerEnvironment(lookup func(string) (string, bool), c Constants) (HandlerEnvironment, error) {
	var env HandlerEnvironment
	var problems []EnvProblem
	for _, name := range HandlerEnvironmentVariables {
		raw, ok := lookup(name)
		if !ok || raw == "" {
			problems = append(problems, EnvProblem{Variable: name, Problem: "missing"})
			continue
		}
		if p := HandlerVariableProblem(name, raw, c); p != "" {
			problems = append(problems, EnvProblem{Variable: name, Problem: p})
			continue
		}
		switch name {
		case EnvPassTwoDelaySeconds:
			n, _ := plainSeconds(raw)
			env.PassTwoDelay = sec(n)
		case EnvBatchTimeoutSeconds:
			n, _ := plainSeconds(raw)
			env.BatchTimeout = sec(n)
		case EnvSubscriber:
			env.Subscriber = raw
		case EnvResponseQueueURL:
			env.ResponseQueueURL = raw
		case EnvQueueURL:
			env.QueueURL = raw
		case EnvHandlerRoleID:
			env.RoleID = raw
		}
	}
	if len(problems) > 0 {
		return HandlerEnvironment{}, &EnvError{Problems: problems}
	}
	return env, nil
}

// HandlerVariableProblem is what LoadHandlerEnvironment finds wrong with one
// variable's (present, non-empty) value, or "" when nothing: the handler's own
// rule, for a checker that sees the value before the handler does (the
// app-wide check judges a synthesized function's environment with it). It
// names the rule, never the value.
func HandlerVariableProblem(name, value string, c Constants) string {
	seconds := func(min, max int, capName string) string {
		n, ok := plainSeconds(value)
		switch {
		case !ok:
			return "not a whole number of seconds"
		case n < min:
			return "below the minimum of " + strconv.Itoa(min) + " s"
		case n > max:
			return "above the cap of " + strconv.Itoa(max) + " s (" + capName + ")"
		}
		return ""
	}
	switch name {
	case EnvPassTwoDelaySeconds:
		return seconds(0, c.PassTwoDelayCapSeconds, "passTwoDelayCapSeconds")
	case EnvBatchTimeoutSeconds:
		batchCap, capName := c.BatchTimeoutCapSeconds, "batchTimeoutCapSeconds"
		if c.HandlerTimeoutCapSeconds < batchCap {
			batchCap, capName = c.HandlerTimeoutCapSeconds, "handlerTimeoutCapSeconds"
		}
		return seconds(1, batchCap, capName)
	case EnvSubscriber:
		if !IsSubscriberName(value) {
			return "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"
		}
	case EnvResponseQueueURL, EnvQueueURL:
		if !strings.HasPrefix(value, "https://") && !strings.HasPrefix(value, "http://") {
			return "not an http(s) queue URL"
		}
	case EnvHandlerRoleID:
		if !IsRoleID(value) {
			return "not an IAM role's unique id (AROA followed by upper-case letters and digits)"
		}
	}
	return ""
}

// plainSeconds parses 1 to 6 decimal digits and nothing else.
func plainSeconds(s string) (int, bool) {
	if len(s) == 0 || len(s) > 6 {
		return 0, false
	}
	n, ok := digits([]byte(s))
	return n, ok
}

// IsRoleID says whether s is an IAM role's unique id: "AROA" followed by
// upper-case letters and digits (IAM's unique ids are 16 to 128 characters).
func IsRoleID(s string) bool {
	if len(s) < 16 || len(s) > 128 || s[:4] != "AROA" {
		return false
	}
	for i := 4; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// HandlerSenderID is the SenderId SQS reports for a message a Lambda
// handler sends with its execution role: "<role id>:<function name>", the
// role session Lambda names after the function.
func HandlerSenderID(roleID, functionName string) string { return roleID + ":" + functionName }

// The ledger function's environment: the ErasureLedger construct sets it and
// cmd/erasure-ledger reads it.
const (
	EnvLedgerMode      = "ERASURE_LEDGER_MODE" // reader or sweeper
	EnvLedgerTable     = "ERASURE_LEDGER_TABLE"
	EnvLedgerSecretArn = "ERASURE_LEDGER_SECRET_ARN"
	// EnvLedgerRosterPath is the SSM parameter path of the ledger's roster
	// pages (LedgerRosterPage): the roster lives in parameters, never in the
	// environment, whose 4 KB it would outgrow.
	EnvLedgerRosterPath = "ERASURE_LEDGER_ROSTER_PATH"
	EnvLedgerTopicArn   = "ERASURE_TOPIC_ARN"
	// EnvLedgerAnchorBucket is the sweeper's anchor bucket: every signed
	// tree head of the receipt log is written there (ledger.Anchor).
	EnvLedgerAnchorBucket = "ERASURE_LEDGER_ANCHOR_BUCKET"
	// LedgerAnchorPrefix is where the anchor bucket holds the heads, one
	// object per tree size.
	LedgerAnchorPrefix = "tree-heads/"
)
