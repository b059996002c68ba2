package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/schema"
)

// kase is one conformance case.
type kase struct {
	name string
	run  func(ctx context.Context, b *bench, res *CaseResult) error
}

// The waits of the bench: for a message SNS fans out, and for pass two
// beyond its delay.
const (
	arrivalWait = 10 * time.Second
	passTwoWait = 10 * time.Second
)

// cases are every case, in the order they run. The logs case is last: it
// reads everything the handler printed.
func cases() []kase {
	var out []kase
	for _, p := range contract.ErasureCapabilityFixtures().Pairs {
		out = append(out, kase{"pair/" + string(p.Pair.Type) + "/" + string(p.Pair.KeyKind), func(ctx context.Context, b *bench, res *CaseResult) error {
			_, err := onePair(ctx, b, res, p, b.restamped(p), nil)
			return err
		}})
	}
	out = append(out,
		kase{"expired/destructive", func(ctx context.Context, b *bench, res *CaseResult) error {
			return expired(ctx, b, res, contract.TypeErase)
		}},
		kase{"expired/check", func(ctx context.Context, b *bench, res *CaseResult) error {
			return expired(ctx, b, res, contract.TypeCheck)
		}},
	)
	for _, code := range []string{"NOT_JSON", "INVALID_MESSAGE", "NOT_A_REQUEST"} {
		out = append(out, kase{"invalid-body/" + code, func(ctx context.Context, b *bench, res *CaseResult) error {
			return invalidBodies(ctx, b, res, code)
		}})
	}
	out = append(out,
		kase{"batch/partial-failure", mixedBatch},
		kase{"forged-marker/other-sender", forgedByOther},
		kase{"forged-marker/sns-attributes", forgedThroughSNS},
		kase{"forged-marker/bad-values-from-self", badMarkersFromSelf},
		kase{"forged-marker/before-expiry", forgedOnExpired},
		kase{"duplicate/delivery", duplicateDelivery},
		kase{"duplicate/send-number", laterSendNo},
		kase{"failure/answer-send", answerSendFails},
		kase{"failure/pass-two-enqueue", passTwoEnqueueFails},
		kase{"environment/missing-variable", func(ctx context.Context, b *bench, res *CaseResult) error {
			return badEnvironment(ctx, b, res, contract.EnvSubscriber, "")
		}},
		kase{"environment/out-of-bounds", func(ctx context.Context, b *bench, res *CaseResult) error {
			return badEnvironment(ctx, b, res, contract.EnvPassTwoDelaySeconds, strconv.Itoa(contract.Channel().PassTwoDelayCapSeconds+1))
		}},
		kase{"logs/nothing-personal", noSecretsLogged},
	)
	return out
}

func (r *CaseResult) fail(format string, args ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
}

// restamped is the pair's fixture request, due to expire R from now.
func (b *bench) restamped(p contract.CapabilityPair) contract.Request {
	return p.Restamped(time.Now(), contract.Channel())
}

func pairOf(t contract.MessageType, k contract.KeyKind) contract.CapabilityPair {
	for _, p := range contract.ErasureCapabilityFixtures().Pairs {
		if p.Pair.Type == t && p.Pair.KeyKind == k {
			return p
		}
	}
	panic("conform: no capability fixture for " + string(t) + " " + string(k))
}

// deliverOne delivers the one message the last step put on the store's
// queue and reports a missing one as a bench error.
func (b *bench) deliverOne(ctx context.Context) (*delivery, error) {
	d, err := b.deliver(ctx, 1, arrivalWait)
	if err == nil && d == nil {
		err = fmt.Errorf("the store's queue got nothing within %s", arrivalWait)
	}
	return d, err
}

// onePair publishes req (the pair's request, perhaps changed) and follows
// it through both passes. It returns the answer's outcome ("" when none).
func onePair(ctx context.Context, b *bench, res *CaseResult, p contract.CapabilityPair, req contract.Request, d *delivery) (string, error) {
	var err error
	if d == nil {
		if d, err = b.publishAndDeliver(ctx, req, nil); err != nil {
			return "", err
		}
	}
	if !judgeRecord(res, d, 0, "the request") {
		return "", nil
	}
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return "", err
	}
	passOne := ""
	output := d.output
	if p.Pair.Type.IsDestructive() && !(len(answers) == 1 && isNotApplicable(answers[0])) {
		if len(answers) > 0 {
			res.fail("answered %s before its second pass", p.Pair.Type)
			return "", nil
		}
		var d2 *delivery
		passOne, d2, err = passTwo(ctx, b, res, d.records[0].Body, p)
		if err != nil || d2 == nil {
			return "", err
		}
		output += d2.output
		if !judgeRecord(res, d2, 0, "its own pass two") {
			return "", nil
		}
		if answers, err = b.answers(ctx, 0); err != nil {
			return "", err
		}
	}
	if len(answers) != 1 {
		res.fail("%d answers on the response queue, want 1", len(answers))
		return "", nil
	}
	return judgeAnswer(b, res, p, req, answers[0], passOne, output), nil
}

// passTwo receives and judges the pass-two message pass one re-sent, and
// delivers it.
func passTwo(ctx context.Context, b *bench, res *CaseResult, body string, p contract.CapabilityPair) (string, *delivery, error) {
	t0 := time.Now()
	d, err := b.deliver(ctx, 1, b.opts.passTwoDelay()+passTwoWait)
	if err != nil {
		return "", nil, err
	}
	if d == nil {
		res.fail("pass one neither answered nor re-sent the request to its own queue")
		return "", nil, nil
	}
	if early := time.Since(t0) - d.result.Duration; early < b.opts.passTwoDelay()*8/10 {
		res.fail("pass two arrived before %s (DelaySeconds is not %s)", b.opts.passTwoDelay(), contract.EnvPassTwoDelaySeconds)
	}
	rec := d.records[0]
	if rec.Body != body {
		res.fail("pass two's body is not the request's body unchanged")
	}
	if rec.Attributes["SenderId"] != b.self {
		res.fail("pass two was not sent by the handler itself")
	}
	pass, ok := rec.MessageAttributes[contract.AttrPass]
	if !ok || pass.DataType != "Number" || aws.ToString(pass.StringValue) != "2" {
		res.fail("pass two does not carry the message attribute %s (Number) = 2", contract.AttrPass)
	}
	o, ok := rec.MessageAttributes[contract.AttrPassOneOutcome]
	passOne := aws.ToString(o.StringValue)
	if !ok || o.DataType != "String" || !slices.Contains(p.ImplementedOutcomes, passOne) {
		res.fail("pass two does not carry pass one's outcome in %s (String), one of %v", contract.AttrPassOneOutcome, p.ImplementedOutcomes)
	}
	return passOne, d, nil
}

// judgeRecord checks that the handler took record i without failing it.
func judgeRecord(res *CaseResult, d *delivery, i int, what string) bool {
	switch {
	case d.result.InitError:
		res.fail("the handler failed its init (%s)", d.result.FunctionError)
	case d.result.TimedOut:
		res.fail("the handler timed out on %s", what)
	case d.failedWhole():
		res.fail("the handler failed the whole batch (%s) on %s, not its records", orUnknown(d.result.FunctionError, "a response that is not an SQS batch response"), what)
	case d.recordFailed(i):
		res.fail("the handler reported %s as a batch item failure", what)
	default:
		return true
	}
	return false
}

func orUnknown(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func isNotApplicable(m sqstypes.Message) bool {
	r, err := contract.ParseResponse([]byte(aws.ToString(m.Body)))
	return err == nil && string(r.Outcome)+string(r.Answer) == string(contract.OutcomeNotApplicable)
}

// judgeAnswer checks one answer to req and the metric lines around it, and
// returns its outcome.
func judgeAnswer(b *bench, res *CaseResult, p contract.CapabilityPair, req contract.Request, m sqstypes.Message, passOne, output string) string {
	if len(m.MessageAttributes) != 0 {
		res.fail("the answer carries message attributes")
	}
	if m.Attributes["SenderId"] != "" && m.Attributes["SenderId"] != b.self {
		res.fail("the answer was not sent by the handler's own role")
	}
	ans, err := contract.ParseResponse([]byte(aws.ToString(m.Body)))
	if err != nil {
		res.fail("the answer is not a valid response (%s)", codeOf(err))
		return ""
	}
	outcome := string(ans.Outcome) + string(ans.Answer)
	switch {
	case ans.Type != p.ResponseType:
		res.fail("answered with %s, want %s", ans.Type, p.ResponseType)
	case ans.RequestID != req.RequestID || ans.SendNo != req.SendNo:
		res.fail("the answer does not echo the request's requestId and sendNo")
	case ans.Subscriber != b.opts.subscriber():
		res.fail("the answer's subscriber is not %s", contract.EnvSubscriber)
	case ans.Type == contract.TypeHoldings && (ans.Key != req.Key || ans.KeyKind != req.KeyKind):
		res.fail("HOLDINGS does not echo the key and keyKind")
	case !slices.Contains(p.ImplementedOutcomes, outcome) && outcome != p.NotImplementedOutcome:
		res.fail("answered %s; allowed: %v or %s", outcome, p.ImplementedOutcomes, p.NotImplementedOutcome)
	case passOne != "" && !combines(p.Pair.Type, passOne, outcome):
		res.fail("pass one said %s and the answer is %s: the two passes are not combined", passOne, outcome)
	}
	metrics := metricLines(output)
	if outcome == string(contract.OutcomeNotApplicable) && !metrics.has(contract.MetricNotApplicable, []string{contract.MetricDimensionSubscriber}, b.opts.subscriber(), "") {
		res.fail("NOT_APPLICABLE was not counted: no %s line (namespace %s, dimension %s) in the handler's output", contract.MetricNotApplicable, contract.MetricNamespace, contract.MetricDimensionSubscriber)
	}
	if outcome != "" && !metrics.has(contract.MetricAnswers, []string{contract.MetricDimensionSubscriber, contract.MetricDimensionOutcome}, b.opts.subscriber(), outcome) {
		res.fail("the answer was not counted: no %s line (dimensions %s, %s) in the handler's output", contract.MetricAnswers, contract.MetricDimensionSubscriber, contract.MetricDimensionOutcome)
	}
	return outcome
}

// combines says whether answer may follow a pass one of passOne: REFILE's
// NOT_MOVED wins, then MOVED; ERASE is DONE both times.
func combines(t contract.MessageType, passOne, answer string) bool {
	if t != contract.TypeRefile {
		return true
	}
	switch passOne {
	case string(contract.OutcomeNotMoved):
		return answer == passOne
	case string(contract.OutcomeMoved):
		return answer == passOne || answer == string(contract.OutcomeNotMoved)
	}
	return true
}

func codeOf(err error) string {
	var ce *contract.ContractError
	if asContractError(err, &ce) {
		return string(ce.Code)
	}
	return "invalid"
}

// expired publishes an expired request of type t and wants it consumed:
// not failed, not answered, not re-sent.
func expired(ctx context.Context, b *bench, res *CaseResult, t contract.MessageType) error {
	req := b.restamped(pairOf(t, contract.KeyAccount))
	req.ExpiresAt = time.Now().Add(-time.Second).UTC().Truncate(time.Millisecond)
	d, err := b.publishAndDeliver(ctx, req, nil)
	if err != nil {
		return err
	}
	judgeRecord(res, d, 0, "an expired request (it must be consumed without an answer)")
	return b.wantSilence(ctx, res, "an expired request")
}

// wantSilence checks that nothing was answered or re-sent after what.
func (b *bench) wantSilence(ctx context.Context, res *CaseResult, what string) error {
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return err
	}
	if len(answers) > 0 {
		res.fail("%s was answered", what)
	}
	again, err := b.deliver(ctx, 1, b.opts.passTwoDelay()+time.Second)
	if err != nil {
		return err
	}
	if again != nil {
		res.fail("%s was re-sent to the store's own queue", what)
	}
	return nil
}

// sqsCarries says whether SQS accepts body as a message body.
func sqsCarries(body []byte) bool {
	if !utf8.Valid(body) || len(body) == 0 {
		return false
	}
	for _, r := range string(body) {
		if !(r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000) {
			return false
		}
	}
	return true
}

type manifestCase struct {
	File         string `json:"file"`
	ParseRequest string `json:"parseRequest"`
}

// invalidBodies sends every shared fixture the request parser refuses with
// code, that SQS can carry, as batches, and wants each record failed and
// nothing answered.
func invalidBodies(ctx context.Context, b *bench, res *CaseResult, code string) error {
	raw, err := schema.Fixtures.ReadFile("fixtures/manifest.json")
	if err != nil {
		return err
	}
	var man struct{ Cases []manifestCase }
	if err := json.Unmarshal(raw, &man); err != nil {
		return err
	}
	var bodies []string
	for _, c := range man.Cases {
		if c.ParseRequest != code {
			continue
		}
		body, err := schema.Fixtures.ReadFile("fixtures/" + c.File)
		if err != nil {
			return err
		}
		if sqsCarries(body) {
			bodies = append(bodies, string(body))
		}
	}
	if len(bodies) == 0 {
		res.Skipped = "no fixture of this code can travel in an SQS message"
		return nil
	}
	const batch = 10
	for start := 0; start < len(bodies); start += batch {
		part := bodies[start:min(start+batch, len(bodies))]
		for _, body := range part {
			if strings.HasPrefix(strings.TrimSpace(body), "{") {
				b.remember("message body", body) // a bare string or number carries no record's value
			}
			if err := b.sendRaw(ctx, b.publish, body, nil); err != nil {
				return err
			}
		}
		for got := 0; got < len(part); {
			d, err := b.deliver(ctx, len(part)-got, arrivalWait)
			if err != nil {
				return err
			}
			if d == nil {
				return fmt.Errorf("the store's queue got %d of %d messages", got, len(part))
			}
			got += len(d.records)
			if d.failedWhole() {
				res.fail("the handler failed the whole batch (%s) for an invalid body, not its record", orUnknown(d.result.FunctionError, "a response that is not an SQS batch response"))
				continue
			}
			for i := range d.records {
				if !d.recordFailed(i) {
					res.fail("an invalid body (%s) was not reported as a batch item failure", code)
				}
			}
		}
	}
	res.Failures = slices.Compact(res.Failures)
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return err
	}
	if len(answers) > 0 {
		res.fail("an invalid body was answered (%d answers)", len(answers))
	}
	return nil
}

// mixedBatch sends a valid CHECK and an invalid body in one batch and wants
// only the invalid one reported failed, and the CHECK answered.
func mixedBatch(ctx context.Context, b *bench, res *CaseResult) error {
	p := pairOf(contract.TypeCheck, contract.KeyAddress)
	req := b.restamped(p)
	body, _ := contract.EncodeRequest(req)
	b.rememberRequest(req, body)
	bad := strings.Replace(string(body), `"type":"erasure/CHECK"`, `"type":"erasure/CHECK","extra":true`, 1)
	b.remember("message body", bad)
	for _, s := range []string{string(body), bad} {
		if err := b.sendRaw(ctx, b.publish, s, nil); err != nil {
			return err
		}
	}
	d, err := b.deliver(ctx, 2, arrivalWait)
	if err != nil {
		return err
	}
	if d == nil || len(d.records) != 2 {
		res.Skipped = "the emulator did not deliver both messages in one batch"
		return nil
	}
	if d.failedWhole() {
		res.fail("the handler failed the whole batch (%s) for one bad record", orUnknown(d.result.FunctionError, "a response that is not an SQS batch response"))
		return nil
	}
	for i, rec := range d.records {
		isBad := rec.Body == bad
		if d.recordFailed(i) != isBad {
			if isBad {
				res.fail("the invalid record was not reported as a batch item failure")
			} else {
				res.fail("the valid record was reported as a batch item failure beside an invalid one")
			}
		}
	}
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return err
	}
	if len(answers) != 1 {
		res.fail("%d answers on the response queue, want 1 (the valid record's)", len(answers))
		return nil
	}
	judgeAnswer(b, res, p, req, answers[0], "", d.output)
	return nil
}
