package conform

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

func asContractError(err error, target **contract.ContractError) bool { return errors.As(err, target) }

// marker is a pass-two marker's SQS message attributes.
func marker(pass, outcome string) map[string]sqstypes.MessageAttributeValue {
	return map[string]sqstypes.MessageAttributeValue{
		contract.AttrPass:           {DataType: aws.String("Number"), StringValue: aws.String(pass)},
		contract.AttrPassOneOutcome: {DataType: aws.String("String"), StringValue: aws.String(outcome)},
	}
}

// sendMarked sends req to the store's queue as cl's principal with a
// marker, delivers it, and wants it refused: failed, unanswered, not re-sent.
func sendMarked(ctx context.Context, b *bench, res *CaseResult, cl local.Clients, req contract.Request, attrs map[string]sqstypes.MessageAttributeValue, what string) error {
	body, err := contract.EncodeRequest(req)
	if err != nil {
		return err
	}
	b.rememberRequest(req, body)
	if err := b.sendRaw(ctx, cl, string(body), attrs); err != nil {
		return err
	}
	d, err := b.deliverOne(ctx)
	if err != nil {
		return err
	}
	return wantRefused(ctx, b, res, d, what)
}

// wantRefused wants the delivered record reported failed, with nothing
// answered or re-sent.
func wantRefused(ctx context.Context, b *bench, res *CaseResult, d *delivery, what string) error {
	if d.result.InitError || d.result.TimedOut {
		res.fail("the handler failed its init or timed out on %s", what)
	} else if !d.failedWhole() && !d.recordFailed(0) {
		res.fail("%s was not reported as a batch item failure", what)
	}
	return b.wantSilence(ctx, res, what)
}

// forgedByOther sends a pass-two marker on an ERASE from a principal that
// is not the handler: DONE must not follow without the work.
func forgedByOther(ctx context.Context, b *bench, res *CaseResult) error {
	req := b.restamped(pairOf(contract.TypeErase, contract.KeyAccount))
	return sendMarked(ctx, b, res, b.other, req, marker("2", string(contract.OutcomeDone)), "a pass-two marker sent by another principal")
}

// forgedThroughSNS publishes an ERASE with the marker as SNS message
// attributes, which raw delivery turns into SQS message attributes.
func forgedThroughSNS(ctx context.Context, b *bench, res *CaseResult) error {
	req := b.restamped(pairOf(contract.TypeErase, contract.KeyAddress))
	attrs := map[string]snstypes.MessageAttributeValue{
		contract.AttrPass:           {DataType: aws.String("Number"), StringValue: aws.String("2")},
		contract.AttrPassOneOutcome: {DataType: aws.String("String"), StringValue: aws.String(string(contract.OutcomeDone))},
	}
	d, err := b.publishAndDeliver(ctx, req, attrs)
	if err != nil {
		return err
	}
	return wantRefused(ctx, b, res, d, "a pass-two marker published through SNS")
}

// badMarkersFromSelf sends markers from the handler's own principal whose
// values are wrong: a pass other than 2, an outcome of another type, a
// marker on a CHECK.
func badMarkersFromSelf(ctx context.Context, b *bench, res *CaseResult) error {
	erase := pairOf(contract.TypeErase, contract.KeyAccount)
	for _, c := range []struct {
		req   contract.Request
		attrs map[string]sqstypes.MessageAttributeValue
		what  string
	}{
		{b.restamped(erase), marker("3", string(contract.OutcomeDone)), "a marker whose pass is not 2"},
		{b.restamped(erase), marker("2", string(contract.OutcomeMoved)), "a marker whose pass-one outcome is not an ERASE outcome"},
		{b.restamped(erase), map[string]sqstypes.MessageAttributeValue{contract.AttrPass: marker("2", "")[contract.AttrPass]}, "a marker without pass one's outcome"},
		{b.restamped(pairOf(contract.TypeCheck, contract.KeyAccount)), marker("2", string(contract.OutcomeDone)), "a marker on a CHECK"},
	} {
		if err := sendMarked(ctx, b, res, b.asSelf, c.req, c.attrs, c.what); err != nil {
			return err
		}
	}
	return nil
}

// forgedOnExpired sends a forged marker on an expired ERASE: the marker is
// judged before expiry, so it is refused, not consumed.
func forgedOnExpired(ctx context.Context, b *bench, res *CaseResult) error {
	req := b.restamped(pairOf(contract.TypeErase, contract.KeyAccount))
	req.ExpiresAt = time.Now().Add(-time.Second).UTC().Truncate(time.Millisecond)
	return sendMarked(ctx, b, res, b.other, req, marker("2", string(contract.OutcomeDone)), "a forged marker on an expired request")
}

// duplicateDelivery publishes one ERASE twice, as SNS and SQS may deliver
// it: each delivery runs both passes and is answered.
func duplicateDelivery(ctx context.Context, b *bench, res *CaseResult) error {
	p := pairOf(contract.TypeErase, contract.KeyAccount)
	req := b.restamped(p)
	for i := 0; i < 2; i++ {
		if _, err := onePair(ctx, b, res, p, req, nil); err != nil {
			return err
		}
	}
	return nil
}

// laterSendNo publishes an ERASE as a re-send (sendNo 2): its answer echoes 2.
func laterSendNo(ctx context.Context, b *bench, res *CaseResult) error {
	p := pairOf(contract.TypeErase, contract.KeyAddress)
	req := b.restamped(p)
	req.SendNo = 2
	_, err := onePair(ctx, b, res, p, req, nil)
	return err
}

// answerSendFails refuses the handler's sends to the response queue: the
// record must be failed, so SQS retries it, and the batch not.
func answerSendFails(ctx context.Context, b *bench, res *CaseResult) error {
	b.refuse.set("response-queue")
	defer b.refuse.set("")
	req := b.restamped(pairOf(contract.TypeCheck, contract.KeyAccount))
	d, err := b.publishAndDeliver(ctx, req, nil)
	if err != nil {
		return err
	}
	switch {
	case d.failedWhole():
		res.fail("a failed answer failed the whole batch (%s), not its record", orUnknown(d.result.FunctionError, "a response that is not an SQS batch response"))
	case !d.recordFailed(0):
		res.fail("a record whose answer could not be sent was not reported as a batch item failure")
	}
	return nil
}

// passTwoEnqueueFails refuses the handler's re-send to its own queue: pass
// one's record must be failed, and nothing answered.
func passTwoEnqueueFails(ctx context.Context, b *bench, res *CaseResult) error {
	b.refuse.set("queue/" + b.opts.subscriber())
	defer b.refuse.set("")
	req := b.restamped(pairOf(contract.TypeErase, contract.KeyAccount))
	d, err := b.publishAndDeliver(ctx, req, nil)
	if err != nil {
		return err
	}
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return err
	}
	if len(answers) == 1 && isNotApplicable(answers[0]) {
		res.Skipped = "the handler does not implement ERASE by account"
		return nil
	}
	switch {
	case len(answers) > 0:
		res.fail("answered although pass two could not be enqueued")
	case d.failedWhole():
		res.fail("a failed pass-two enqueue failed the whole batch (%s), not its record", orUnknown(d.result.FunctionError, "a response that is not an SQS batch response"))
	case !d.recordFailed(0):
		res.fail("a record whose pass two could not be enqueued was not reported as a batch item failure")
	}
	return nil
}

// badEnvironment starts the handler with variable missing (value "") or
// set to value, and wants its init to fail, naming the variable, with no
// answer; then restores the construct's environment.
func badEnvironment(ctx context.Context, b *bench, res *CaseResult, variable, value string) error {
	env := slices.DeleteFunc(slices.Clone(b.env), func(kv string) bool { return strings.HasPrefix(kv, variable+"=") })
	if value != "" {
		env = append(env, variable+"="+value)
	}
	b.fn.SetEnv(env)
	defer b.fn.SetEnv(b.env)
	req := b.restamped(pairOf(contract.TypeCheck, contract.KeyAccount))
	d, err := b.publishAndDeliver(ctx, req, nil)
	if err != nil {
		return err
	}
	if !d.result.InitError {
		res.fail("the handler did not fail its init with %s %s", variable, map[bool]string{true: "missing", false: "out of bounds"}[value == ""])
	}
	if !strings.Contains(d.output, variable) {
		res.fail("the handler's output does not name %s", variable)
	}
	answers, err := b.answers(ctx, 0)
	if err != nil {
		return err
	}
	if len(answers) > 0 {
		res.fail("the handler answered with a bad environment")
	}
	return nil
}

// noSecretsLogged reads everything the handler printed in every case for a
// body, key, address, account id or requestId the bench sent it.
func noSecretsLogged(_ context.Context, b *bench, res *CaseResult) error {
	out, _ := b.output.Since(0)
	if os.Getenv("ERASURE_CONFORM_DEBUG_LOGS") != "" {
		_ = os.WriteFile(os.Getenv("ERASURE_CONFORM_DEBUG_LOGS"), []byte(out), 0o600)
	}
	leaked := map[string]bool{}
	b.secretsMu.Lock()
	for _, s := range b.secrets {
		if strings.Contains(out, s.value) || (s.kind == "message body" && strings.Contains(out, strings.TrimSpace(s.value))) {
			leaked[s.kind] = true
		}
	}
	b.secretsMu.Unlock()
	kinds := make([]string, 0, len(leaked))
	for k := range leaked {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		res.fail("the handler's output holds a %s it was sent", k)
	}
	return nil
}

// emf is one CloudWatch embedded-metric-format line.
type emf struct {
	AWS struct {
		CloudWatchMetrics []struct {
			Namespace  string     `json:"Namespace"`
			Dimensions [][]string `json:"Dimensions"`
			Metrics    []struct {
				Name string `json:"Name"`
			} `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	} `json:"_aws"`
	Fields map[string]any `json:"-"`
}

type emfLines []emf

// metricLines reads every embedded-metric line of output. A runtime may
// prefix a line (timestamp, request id, level), so a line's JSON starts at
// its first '{'.
func metricLines(output string) emfLines {
	var out emfLines
	for _, line := range strings.Split(output, "\n") {
		i := strings.Index(line, `{"_aws"`)
		if i < 0 {
			i = strings.IndexByte(line, '{')
		}
		if i < 0 || !strings.Contains(line, "_aws") {
			continue
		}
		var m emf
		if json.Unmarshal([]byte(line[i:]), &m) != nil || json.Unmarshal([]byte(line[i:]), &m.Fields) != nil {
			continue
		}
		out = append(out, m)
	}
	return out
}

// has says whether a line counts metric in the channel's namespace with
// exactly dims, for subscriber (and outcome, when given).
func (ls emfLines) has(metric string, dims []string, subscriber, outcome string) bool {
	for _, m := range ls {
		for _, d := range m.AWS.CloudWatchMetrics {
			if d.Namespace != contract.MetricNamespace || !slices.ContainsFunc(d.Metrics, func(x struct {
				Name string `json:"Name"`
			}) bool {
				return x.Name == metric
			}) || !slices.ContainsFunc(d.Dimensions, func(ds []string) bool { return slices.Equal(ds, dims) }) {
				continue
			}
			if m.Fields[contract.MetricDimensionSubscriber] != subscriber {
				continue
			}
			if outcome != "" && m.Fields[contract.MetricDimensionOutcome] != outcome {
				continue
			}
			return true
		}
	}
	return false
}
