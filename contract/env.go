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
	add := func(v, p string) { problems = append(problems, EnvProblem{Variable: v, Problem: p}) }

	seconds := func(name string, min, max int, capName string) time.Duration {
		raw, ok := lookup(name)
		if !ok || raw == "" {
			add(name, "missing")
			return 0
		}
		n, ok := plainSeconds(raw)
		switch {
		case !ok:
			add(name, "not a whole number of seconds")
		case n < min:
			add(name, "below the minimum of "+strconv.Itoa(min)+" s")
		case n > max:
			add(name, "above the cap of "+strconv.Itoa(max)+" s ("+capName+")")
		default:
			return sec(n)
		}
		return 0
	}
	env.PassTwoDelay = seconds(EnvPassTwoDelaySeconds, 0, c.PassTwoDelayCapSeconds, "passTwoDelayCapSeconds")
	batchCap, capName := c.BatchTimeoutCapSeconds, "batchTimeoutCapSeconds"
	if c.HandlerTimeoutCapSeconds < batchCap {
		batchCap, capName = c.HandlerTimeoutCapSeconds, "handlerTimeoutCapSeconds"
	}
	env.BatchTimeout = seconds(EnvBatchTimeoutSeconds, 1, batchCap, capName)

	if v, ok := lookup(EnvSubscriber); !ok || v == "" {
		add(EnvSubscriber, "missing")
	} else if !IsSubscriberName(v) {
		add(EnvSubscriber, "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)")
	} else {
		env.Subscriber = v
	}
	for _, u := range []struct {
		name string
		dst  *string
	}{{EnvResponseQueueURL, &env.ResponseQueueURL}, {EnvQueueURL, &env.QueueURL}} {
		v, ok := lookup(u.name)
		switch {
		case !ok || v == "":
			add(u.name, "missing")
		case !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://"):
			add(u.name, "not an http(s) queue URL")
		default:
			*u.dst = v
		}
	}
	switch v, ok := lookup(EnvHandlerRoleID); {
	case !ok || v == "":
		add(EnvHandlerRoleID, "missing")
	case !IsRoleID(v):
		add(EnvHandlerRoleID, "not an IAM role's unique id (AROA followed by upper-case letters and digits)")
	default:
		env.RoleID = v
	}
	if len(problems) > 0 {
		return HandlerEnvironment{}, &EnvError{Problems: problems}
	}
	return env, nil
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
	EnvLedgerRoster    = "ERASURE_LEDGER_ROSTER"    // store=<handler role id>,…
	EnvLedgerLingering = "ERASURE_LEDGER_LINGERING" // store=<days>,…
	EnvLedgerTopicArn  = "ERASURE_TOPIC_ARN"
)
