package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/linn-cloud/erasure-channel/schema"
)

// Constants are the channel constants of schema/erasure-channel-constants.json,
// in seconds (or plain counts). A store may configure less than a cap, never
// more. Go code reads every limit from here and never retypes one.
type Constants struct {
	HandlerTimeoutCapSeconds              int // T
	VisibilityTimeoutMultiplier           int
	VisibilityTimeoutCapSeconds           int // V = multiplier x T
	MaxReceiveCount                       int // N
	PassTwoDelayCapSeconds                int // X
	BatchTimeoutCapSeconds                int // b <= T
	ClockSkewAllowanceSeconds             int // S
	ExpiryPeriodSeconds                   int // R
	RoundPublishBoundSeconds              int // P
	PublisherTickSeconds                  int
	QueueRetentionSeconds                 int
	DuplicateAfterCompletionWindowSeconds int // R + S + T + b
	// NoncurrentVersionExpiryCapDays caps how long a versioned store bucket
	// keeps noncurrent versions, where erased ids linger.
	NoncurrentVersionExpiryCapDays int
	// MaxBroadcasts bounds the ledger's re-broadcasts of one destructive
	// request (sendNo 1 to MaxBroadcasts).
	MaxBroadcasts int
	// ErasureDeadlineWarningSeconds: an incomplete request this close to its
	// one-month deadline raises the overdue alarm.
	ErasureDeadlineWarningSeconds int
	// LedgerAnswerRetentionDays: the ledger keeps a request's answers and
	// rounds this long after its receipt, then a DynamoDB TTL removes them.
	LedgerAnswerRetentionDays int
	// LedgerAnchorRetentionDays: the ledger's anchor bucket locks each
	// signed tree head this long (Object Lock, compliance mode).
	LedgerAnchorRetentionDays int

	AWS AWSLimits
}

// AWSLimits are AWS service limits the caps must stay inside.
type AWSLimits struct {
	LambdaTimeoutMaxSeconds           int
	SQSDelayMaxSeconds                int
	SQSVisibilityTimeoutMaxSeconds    int
	SQSRetentionMinSeconds            int
	SQSRetentionMaxSeconds            int
	SQSMaxReceiveCountMax             int
	LambdaSQSBatchSizeMax             int
	LambdaSQSBatchingWindowMaxSeconds int
}

func sec(n int) time.Duration { return time.Duration(n) * time.Second }

// HandlerTimeoutCap is T.
func (c Constants) HandlerTimeoutCap() time.Duration { return sec(c.HandlerTimeoutCapSeconds) }

// VisibilityTimeoutCap is V.
func (c Constants) VisibilityTimeoutCap() time.Duration { return sec(c.VisibilityTimeoutCapSeconds) }

// PassTwoDelayCap is X.
func (c Constants) PassTwoDelayCap() time.Duration { return sec(c.PassTwoDelayCapSeconds) }

// BatchTimeoutCap is b.
func (c Constants) BatchTimeoutCap() time.Duration { return sec(c.BatchTimeoutCapSeconds) }

// ClockSkewAllowance is S.
func (c Constants) ClockSkewAllowance() time.Duration { return sec(c.ClockSkewAllowanceSeconds) }

// ExpiryPeriod is R.
func (c Constants) ExpiryPeriod() time.Duration { return sec(c.ExpiryPeriodSeconds) }

// RoundPublishBound is P.
func (c Constants) RoundPublishBound() time.Duration { return sec(c.RoundPublishBoundSeconds) }

// QueueRetention is the retention of every queue and dead-letter queue.
func (c Constants) QueueRetention() time.Duration { return sec(c.QueueRetentionSeconds) }

// LedgerAnswerRetention is LedgerAnswerRetentionDays.
func (c Constants) LedgerAnswerRetention() time.Duration {
	return time.Duration(c.LedgerAnswerRetentionDays) * 24 * time.Hour
}

// ErasureDeadlineWarning is how long before its deadline an incomplete
// request raises the overdue alarm.
func (c Constants) ErasureDeadlineWarning() time.Duration {
	return sec(c.ErasureDeadlineWarningSeconds)
}

// DuplicateAfterCompletionWindow is R + S + T + b.
func (c Constants) DuplicateAfterCompletionWindow() time.Duration {
	return sec(c.DuplicateAfterCompletionWindowSeconds)
}

// RedeliveryBoundSeconds is 2·(N−1)·V + 2·T + X: the longest both passes'
// redeliveries can take at the caps (WorstCaseSeconds with no batching
// window and no queue delay). R must not fall below it.
func (c Constants) RedeliveryBoundSeconds() int {
	return WorstCaseSeconds(c.MaxReceiveCount, c.VisibilityTimeoutCapSeconds, c.HandlerTimeoutCapSeconds, 0, c.PassTwoDelayCapSeconds, 0)
}

// WorstCaseSeconds is the longest a request can take from publication to
// the end of its last handler run on a store whose queue redrives after
// maxReceives receives, hides a received message for visibility seconds,
// and whose handler runs at most handler seconds: each pass can use every
// receive (N−1 visibility timeouts, then a handler run of T), each receive
// can wait a batching window of window seconds, pass two waits its delay,
// and the first delivery waits the queue's delay. It is the one place the
// channel's worst case is computed: the caps' bound on R
// (RedeliveryBoundSeconds) and each store's (timing.SubscriberSettings).
func WorstCaseSeconds(maxReceives, visibility, handler, window, passTwoDelay, queueDelay int) int {
	pass := (maxReceives-1)*visibility + handler + maxReceives*window
	return queueDelay + 2*pass + passTwoDelay
}

// ConstantsError lists every way a constants file breaks the channel's
// arithmetic or shape. Each problem names a constant, never a file excerpt.
type ConstantsError struct{ Problems []string }

func (e *ConstantsError) Error() string {
	return "contract: channel constants: " + strings.Join(e.Problems, "; ")
}

// Check verifies every derivation and bound of the constants and returns a
// *ConstantsError listing all that fail, or nil.
func (c Constants) Check() error {
	var p []string
	bad := func(ok bool, format string, args ...any) {
		if !ok {
			p = append(p, fmt.Sprintf(format, args...))
		}
	}
	for name, v := range c.named() {
		bad(v > 0, "%s must be positive", name)
	}
	bad(c.VisibilityTimeoutCapSeconds == c.VisibilityTimeoutMultiplier*c.HandlerTimeoutCapSeconds,
		"visibilityTimeoutCapSeconds must equal visibilityTimeoutMultiplier x handlerTimeoutCapSeconds (%d)", c.VisibilityTimeoutMultiplier*c.HandlerTimeoutCapSeconds)
	bad(c.ExpiryPeriodSeconds >= c.RedeliveryBoundSeconds(),
		"expiryPeriodSeconds must be at least 2(N-1)V + 2T + X (%d)", c.RedeliveryBoundSeconds())
	bad(c.ExpiryPeriodSeconds <= c.QueueRetentionSeconds, "expiryPeriodSeconds must not exceed queueRetentionSeconds")
	want := c.ExpiryPeriodSeconds + c.ClockSkewAllowanceSeconds + c.HandlerTimeoutCapSeconds + c.BatchTimeoutCapSeconds
	bad(c.DuplicateAfterCompletionWindowSeconds == want,
		"duplicateAfterCompletionWindowSeconds must equal R + S + T + b (%d)", want)
	bad(c.BatchTimeoutCapSeconds <= c.HandlerTimeoutCapSeconds, "batchTimeoutCapSeconds must not exceed handlerTimeoutCapSeconds")
	bad(c.RoundPublishBoundSeconds > c.PublisherTickSeconds, "roundPublishBoundSeconds must exceed publisherTickSeconds")
	bad(c.MaxBroadcasts*c.ExpiryPeriodSeconds < c.ErasureDeadlineWarningSeconds,
		"maxBroadcasts x expiryPeriodSeconds must stay under erasureDeadlineWarningSeconds: every broadcast expires before the overdue alarm")
	bad(c.HandlerTimeoutCapSeconds <= c.AWS.LambdaTimeoutMaxSeconds, "handlerTimeoutCapSeconds must be inside lambdaTimeoutMaxSeconds")
	bad(c.PassTwoDelayCapSeconds <= c.AWS.SQSDelayMaxSeconds, "passTwoDelayCapSeconds must be inside sqsDelayMaxSeconds")
	bad(c.VisibilityTimeoutCapSeconds <= c.AWS.SQSVisibilityTimeoutMaxSeconds, "visibilityTimeoutCapSeconds must be inside sqsVisibilityTimeoutMaxSeconds")
	bad(c.MaxReceiveCount <= c.AWS.SQSMaxReceiveCountMax, "maxReceiveCount must be inside sqsMaxReceiveCountMax")
	bad(c.QueueRetentionSeconds >= c.AWS.SQSRetentionMinSeconds && c.QueueRetentionSeconds <= c.AWS.SQSRetentionMaxSeconds,
		"queueRetentionSeconds must be inside SQS's retention range")
	if len(p) == 0 {
		return nil
	}
	sort.Strings(p)
	return &ConstantsError{Problems: p}
}

// Named returns the value of the constant the constants file names name
// ("handlerTimeoutCapSeconds", "awsLimits.sqsDelayMaxSeconds").
func (c Constants) Named(name string) (int, bool) {
	v, ok := c.named()[name]
	return v, ok
}

// named maps every JSON name to its value; it is the one table the loader and
// Check share.
func (c *Constants) named() map[string]int {
	m := map[string]int{}
	for name, ptr := range c.fields() {
		m[name] = *ptr
	}
	return m
}

func (c *Constants) fields() map[string]*int {
	return map[string]*int{
		"handlerTimeoutCapSeconds":                    &c.HandlerTimeoutCapSeconds,
		"visibilityTimeoutMultiplier":                 &c.VisibilityTimeoutMultiplier,
		"visibilityTimeoutCapSeconds":                 &c.VisibilityTimeoutCapSeconds,
		"maxReceiveCount":                             &c.MaxReceiveCount,
		"passTwoDelayCapSeconds":                      &c.PassTwoDelayCapSeconds,
		"batchTimeoutCapSeconds":                      &c.BatchTimeoutCapSeconds,
		"clockSkewAllowanceSeconds":                   &c.ClockSkewAllowanceSeconds,
		"expiryPeriodSeconds":                         &c.ExpiryPeriodSeconds,
		"roundPublishBoundSeconds":                    &c.RoundPublishBoundSeconds,
		"publisherTickSeconds":                        &c.PublisherTickSeconds,
		"queueRetentionSeconds":                       &c.QueueRetentionSeconds,
		"duplicateAfterCompletionWindowSeconds":       &c.DuplicateAfterCompletionWindowSeconds,
		"noncurrentVersionExpiryCapDays":              &c.NoncurrentVersionExpiryCapDays,
		"maxBroadcasts":                               &c.MaxBroadcasts,
		"erasureDeadlineWarningSeconds":               &c.ErasureDeadlineWarningSeconds,
		"ledgerAnswerRetentionDays":                   &c.LedgerAnswerRetentionDays,
		"ledgerAnchorRetentionDays":                   &c.LedgerAnchorRetentionDays,
		"awsLimits.lambdaTimeoutMaxSeconds":           &c.AWS.LambdaTimeoutMaxSeconds,
		"awsLimits.sqsDelayMaxSeconds":                &c.AWS.SQSDelayMaxSeconds,
		"awsLimits.sqsVisibilityTimeoutMaxSeconds":    &c.AWS.SQSVisibilityTimeoutMaxSeconds,
		"awsLimits.sqsRetentionMinSeconds":            &c.AWS.SQSRetentionMinSeconds,
		"awsLimits.sqsRetentionMaxSeconds":            &c.AWS.SQSRetentionMaxSeconds,
		"awsLimits.sqsMaxReceiveCountMax":             &c.AWS.SQSMaxReceiveCountMax,
		"awsLimits.lambdaSqsBatchSizeMax":             &c.AWS.LambdaSQSBatchSizeMax,
		"awsLimits.lambdaSqsBatchingWindowMaxSeconds": &c.AWS.LambdaSQSBatchingWindowMaxSeconds,
	}
}

// ConstantEntry is one entry of the constants file.
type ConstantEntry struct {
	Symbol     string `json:"symbol,omitempty"`
	Value      int    `json:"value"`
	Derivation string `json:"derivation,omitempty"`
	Bound      string `json:"bound,omitempty"`
	Meaning    string `json:"meaning"`
}

type constantsFile struct {
	Comment   string                   `json:"$comment"`
	Constants map[string]ConstantEntry `json:"constants"`
	AWSLimits map[string]ConstantEntry `json:"awsLimits"`
}

// LoadConstants reads a constants file: every known constant must be present
// exactly once, nothing unknown may appear, and Check must pass.
func LoadConstants(data []byte) (Constants, error) {
	f, err := decodeConstantsFile(data)
	if err != nil {
		return Constants{}, err
	}
	var c Constants
	var p []string
	seen := map[string]bool{}
	for name, ptr := range c.fields() {
		section, key := f.Constants, name
		if rest, ok := strings.CutPrefix(name, "awsLimits."); ok {
			section, key = f.AWSLimits, rest
		}
		e, ok := section[key]
		if !ok {
			p = append(p, name+" is missing")
			continue
		}
		seen[name] = true
		*ptr = e.Value
	}
	for key := range f.Constants {
		if _, ok := c.fields()[key]; !ok {
			p = append(p, "unknown constant "+quoteName(key))
		}
	}
	for key := range f.AWSLimits {
		if _, ok := c.fields()["awsLimits."+key]; !ok {
			p = append(p, "unknown AWS limit "+quoteName(key))
		}
	}
	if len(p) > 0 {
		sort.Strings(p)
		return Constants{}, &ConstantsError{Problems: p}
	}
	if err := c.Check(); err != nil {
		return Constants{}, err
	}
	return c, nil
}

// ConstantEntries returns every entry of the embedded constants file, keyed as
// in Constants' field table ("awsLimits.x" for AWS limits), for tools that
// print the table with meanings and derivations.
func ConstantEntries() map[string]ConstantEntry {
	f, err := decodeConstantsFile(schema.ChannelConstantsJSON)
	if err != nil {
		panic(err) // the embedded file is checked by the package's tests
	}
	out := map[string]ConstantEntry{}
	for k, v := range f.Constants {
		out[k] = v
	}
	for k, v := range f.AWSLimits {
		out["awsLimits."+k] = v
	}
	return out
}

func decodeConstantsFile(data []byte) (constantsFile, error) {
	var f constantsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, &ConstantsError{Problems: []string{"the file is not a constants document"}}
	}
	if dec.More() {
		return f, &ConstantsError{Problems: []string{"the file has data after its document"}}
	}
	return f, nil
}

// quoteName quotes a constant name from the file: names are the file's
// own keys, configuration rather than message data, and safe to report.
func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}

var (
	channelOnce sync.Once
	channel     Constants
)

// Channel returns the channel constants embedded from
// schema/erasure-channel-constants.json. The package's tests guarantee the
// embedded file loads; Channel panics if a build ever embeds one that does not.
func Channel() Constants {
	channelOnce.Do(func() {
		c, err := LoadConstants(schema.ChannelConstantsJSON)
		if err != nil {
			panic(err)
		}
		channel = c
	})
	return channel
}
