package test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/internal/local"
)

// attackers are principals of the channel's account, of a store's account
// and of a third account, ordinary roles and administrators: classes of
// the example app's access matrix (an ordinary role here is one its own
// account lets do anything; only the channel's policies keep it out).
var attackers = []string{"other/111111111111", "other/222222222222", "other/any-account", "admin/111111111111", "admin/222222222222"}

// attempt is one forgery: what it tries, by whom, and the call.
type attempt struct {
	who, what string
	call      func(ctx context.Context, cl local.Clients) error
}

// forgeries are every attempt of the suite against channel ch: publish,
// subscribe, inject into a store's queue (with and without the pass-two
// marker), receive from or purge any queue, answer for a store, and
// administer the topic or a queue. attackerQueue is a queue of the
// attacker's own (its ARN), to subscribe.
func forgeries(ch *local.Channel, attackerQueue string, erase []byte, answer []byte) []attempt {
	var out []attempt
	queues := map[string]string{"response queue": ch.ResponseQueue.URL, "response DLQ": ch.ResponseDeadLetterQueue.URL}
	for name, s := range ch.Stores {
		queues[name+" queue"], queues[name+" DLQ"] = s.Queue.URL, s.DeadLetterQueue.URL
	}
	marker := map[string]sqstypes.MessageAttributeValue{
		contract.AttrPass:           {DataType: aws.String("Number"), StringValue: aws.String("2")},
		contract.AttrPassOneOutcome: {DataType: aws.String("String"), StringValue: aws.String("DONE")},
	}
	for _, who := range attackers {
		out = append(out,
			attempt{who, "publish an ERASE", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(ch.TopicARN), Message: aws.String(string(erase))})
				return err
			}},
			attempt{who, "subscribe its own queue", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(ch.TopicARN), Protocol: aws.String("sqs"), Endpoint: aws.String(attackerQueue)})
				return err
			}},
			attempt{who, "subscribe a roster queue over another protocol", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(ch.TopicARN), Protocol: aws.String("lambda"), Endpoint: aws.String(ch.Stores["space"].Queue.ARN)})
				return err
			}},
			attempt{who, "subscribe an https endpoint", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(ch.TopicARN), Protocol: aws.String("https"), Endpoint: aws.String("https://attacker.invalid/")})
				return err
			}},
			attempt{who, "answer for a store", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ch.ResponseQueue.URL), MessageBody: aws.String(string(answer))})
				return err
			}},
		)
		if who == "admin/222222222222" {
			// A store account's administrator may subscribe that store's queue.
			out = append(out, attempt{who, "subscribe another store's queue", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(ch.TopicARN), Protocol: aws.String("sqs"), Endpoint: aws.String(ch.Stores["space"].Queue.ARN)})
				return err
			}})
		}
		if strings.HasPrefix(who, "other/") {
			// Administering is the administrators' alone.
			out = append(out, attempt{who, "set the topic's attributes", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(ch.TopicARN), AttributeName: aws.String("DisplayName"), AttributeValue: aws.String("x")})
				return err
			}})
			out = append(out, attempt{who, "subscribe a roster queue", func(ctx context.Context, cl local.Clients) error {
				_, err := cl.SNS.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(ch.TopicARN), Protocol: aws.String("sqs"), Endpoint: aws.String(ch.Stores["space"].Queue.ARN)})
				return err
			}})
		}
		for _, store := range []string{"space", "ledger", "bitmaps"} {
			url := ch.Stores[store].Queue.URL
			out = append(out,
				attempt{who, "inject an ERASE into " + store + "'s queue", func(ctx context.Context, cl local.Clients) error {
					_, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(erase))})
					return err
				}},
				attempt{who, "inject a pass-two ERASE into " + store + "'s queue", func(ctx context.Context, cl local.Clients) error {
					_, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(erase)), MessageAttributes: marker})
					return err
				}},
			)
		}
		for name, url := range queues {
			if !strings.HasPrefix(who, "admin/") || !strings.HasSuffix(name, "DLQ") {
				out = append(out, attempt{who, "receive from the " + name, func(ctx context.Context, cl local.Clients) error {
					_, err := cl.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 0})
					return err
				}})
			}
			if !strings.HasPrefix(who, "admin/") {
				out = append(out,
					attempt{who, "purge the " + name, func(ctx context.Context, cl local.Clients) error {
						_, err := cl.SQS.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
						return err
					}},
					attempt{who, "read the " + name + "'s attributes", func(ctx context.Context, cl local.Clients) error {
						_, err := cl.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{"All"}})
						return err
					}},
				)
			}
			if strings.HasSuffix(name, "DLQ") {
				out = append(out, attempt{who, "send to the " + name, func(ctx context.Context, cl local.Clients) error {
					_, err := cl.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(erase))})
					return err
				}})
			}
		}
	}
	return out
}

// refusedByGate says whether err is the gate's refusal: AccessDenied
// (SQS) or AuthorizationError (SNS), as the deployed policies would answer.
func refusedByGate(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && (api.ErrorCode() == "AccessDenied" || api.ErrorCode() == "AuthorizationError")
}

// erasures records every erasure a store's implementation ran: the oracle
// of "never acted on", independent of the answers.
type erasures struct {
	mu   sync.Mutex
	keys map[string][]string // key -> "store/pass"
}

func (e *erasures) impl(store string) storehandler.Func {
	return func(_ context.Context, req contract.Request, pass storehandler.Pass) (string, error) {
		e.mu.Lock()
		e.keys[req.Key] = append(e.keys[req.Key], fmt.Sprintf("%s/%d", store, pass))
		e.mu.Unlock()
		return "DONE", nil
	}
}

func (e *erasures) of(key string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.keys[key]...)
}

// TestForgeriesAreRefusedOnTheLocalChannel: on the local channel behind the
// gate, which decides with the example app's access matrix, every forgery
// of every attacker is refused as AWS would refuse it, and none is acted on:
// no store erases the forged customer, no forged answer is counted, no
// subscription is added. A real round still completes. Then each Deny
// statement of every queue and topic policy is removed in turn: with any one
// gone, some forgery gets through the gate, so the suite fails without it.
func TestForgeriesAreRefusedOnTheLocalChannel(t *testing.T) {
	t.Parallel()
	ctx, e, c, ch, gate := exampleChannelBehindGate(t, "forgery-")
	direct := local.NewClients(e.Endpoint, e.Region)
	attackerQueue := createQueue(t, ctx, direct, "forgery-attacker")
	subsBefore := subscriptions(t, ctx, direct, ch.TopicARN)

	done := &erasures{keys: map[string][]string{}}
	logs := &local.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	handlers := map[string]local.HandlerFunc{}
	for _, name := range []string{"bitmaps", "ledger", "space"} {
		h, err := ch.NewHandler(name, map[contract.Pair]storehandler.Func{{Type: contract.TypeErase, KeyKind: contract.KeyAccount}: done.impl(name)},
			local.HandlerOptions{Log: log, Metrics: logs})
		if err != nil {
			t.Fatal(err)
		}
		handlers[name] = h.Handle
	}
	collector := publisher.NewCollector()
	t.Cleanup(ch.Serve(ctx, e.Region, handlers, collector, log))

	// The forged request is a valid ERASE the account service never published.
	forged := contract.Request{Type: contract.TypeErase, RequestID: "req-forgery-0001", SendNo: 1, KeyKind: contract.KeyAccount,
		Key: "acct-forgery-victim", ExpiresAt: time.Now().UTC().Add(time.Hour).Truncate(time.Second)}
	eraseBody, err := contract.EncodeRequest(forged)
	if err != nil {
		t.Fatal(err)
	}
	answerBody, _ := contract.EncodeResponse(contract.AnswerFor(forged, "ledger", "DONE"))
	attempts := forgeries(ch, attackerQueue, eraseBody, answerBody)
	for _, a := range attempts {
		if err := a.call(ctx, ch.As(a.who)); !refusedByGate(err) {
			t.Errorf("%s: %s was not refused (%v)", a.who, a.what, err)
		}
	}

	// A real round, published by the account service, completes.
	pub := publisher.New(ch.As(accessmodel.AccountServicePrincipal).SNS, ch.TopicARN, publisher.WithConstants(c))
	real, err := pub.Erase(ctx, contract.KeyAccount, "acct-forgery-real")
	if err != nil {
		t.Fatalf("the account service may publish: %v", err)
	}
	key := publisher.RoundKey{RequestID: real.RequestID, SendNo: real.SendNo}
	waitFor(t, time.Duration(c.ExpiryPeriodSeconds)*time.Second, "the real round", func() bool { return collector.RosterStatus(key).Complete() })
	// Never acted on, never counted.
	if got := done.of(forged.Key); len(got) != 0 {
		t.Errorf("the forged customer was erased: %v", got)
	}
	if got := done.of(real.Key); len(got) != 6 {
		t.Errorf("the real customer's erasure ran %v, want both passes of three stores", got)
	}
	if st := collector.RosterStatus(publisher.RoundKey{RequestID: forged.RequestID, SendNo: 1}); len(st.Answered) != 0 {
		t.Errorf("a forged round has counted answers: %+v", st)
	}
	if after := subscriptions(t, ctx, direct, ch.TopicARN); after != subsBefore {
		t.Errorf("the topic's subscriptions changed: %d before, %d after", subsBefore, after)
	}
	assertNoLeak(t, logs.String(), forged)
	t.Logf("%d forgeries by %d attackers, all refused", len(attempts), len(attackers))

	// Parse differences and signatures: refused before any decision.
	for _, raw := range rawForgeries(gate, ch, e.Region) {
		before := gate.Denied()
		resp, err := http.DefaultClient.Do(raw.req)
		if err != nil {
			t.Fatalf("%s: %v", raw.what, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || gate.Denied() != before+1 {
			t.Errorf("%s: status %d, gate refusals %d -> %d; want refused", raw.what, resp.StatusCode, before, gate.Denied())
		}
	}

	// Each Deny of every queue and topic policy, removed in turn.
	base := readTemplates(t, defaultDir)
	checked := 0
	for _, ref := range policyDocs(base) {
		if !strings.Contains(ref.id, "QueuePolicy") && !strings.Contains(ref.id, "TopicPolicy") {
			continue
		}
		for i, st := range ref.doc["Statement"].([]any) {
			sm := st.(map[string]any)
			if sm["Effect"] != "Deny" || tlsOnly(sm) {
				continue
			}
			_, weakened := withoutStatement(t, ref, i)
			if !someForgeryPasses(ch, weakened, attempts) {
				t.Errorf("without %s/%s %v every forgery is still refused: the suite does not depend on it", ref.stack, ref.id, sm["Sid"])
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d Deny statements checked", checked)
	}
	t.Logf("%d Deny statements removed one at a time: each lets a forgery through", checked)
}

// someForgeryPasses says whether the gate would forward any attempt with
// the weakened matrix deciding: judged by the Decider the gate asks, without
// sending anything (the live channel keeps its own gate).
func someForgeryPasses(ch *local.Channel, weakened *accessmodel.Matrix, attempts []attempt) bool {
	probe := &recordingDecider{d: weakened}
	for _, a := range attempts {
		probe.allowed = false
		_ = a.call(context.Background(), ch.Probe(probe, a.who))
		if probe.allowed {
			return true
		}
	}
	return false
}

// recordingDecider remembers whether it allowed a call.
type recordingDecider struct {
	d       local.Decider
	allowed bool
}

func (r *recordingDecider) Decide(p, a, res string) iameval.Decision {
	d := r.d.Decide(p, a, res)
	r.allowed = r.allowed || d == iameval.Allowed
	return d
}

func (r *recordingDecider) DecideSubscribe(p, proto, ep string) iameval.Decision {
	d := r.d.DecideSubscribe(p, proto, ep)
	r.allowed = r.allowed || d == iameval.Allowed
	return d
}

// rawRequest is one hand-built request to the gate.
type rawRequest struct {
	what string
	req  *http.Request
}

// rawForgeries are requests that a gate reading them differently from the
// emulator would misjudge, and requests without valid signatures; each
// would be a legitimate call of the account service but for its flaw.
func rawForgeries(gate *local.Gate, ch *local.Channel, region string) []rawRequest {
	creds := gate.Credentials(accessmodel.AccountServicePrincipal, region)
	build := func(service, contentType, target, body string) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, gate.URL+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		if target != "" {
			req.Header.Set("X-Amz-Target", target)
		}
		req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
		sum := sha256.Sum256([]byte(body))
		_ = v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), service, region, time.Now())
		return req
	}
	form := "application/x-www-form-urlencoded"
	json := "application/x-amz-json-1.0"
	topic := "TopicArn=" + ch.TopicARN
	reply := `"QueueUrl":"` + ch.ResponseQueue.URL + `"`
	out := []rawRequest{
		{"a form with Action twice", build("sns", form, "", "Action=ListTopics&"+topic+"&Message=x&Action=Publish")},
		{"a form with a ;", build("sns", form, "", "Action=Publish;Action=DeleteTopic&"+topic+"&Message=x")},
		{"an SQS target header on an SNS form", build("sns", form, "AmazonSQS.PurgeQueue", "Action=Publish&"+topic+"&Message=x")},
		{"JSON keys that differ only by case", build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`,"queueUrl":"`+ch.Stores["space"].Queue.URL+`"}`)},
		{"a JSON key twice", build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`,"QueueUrl":"`+ch.Stores["space"].Queue.URL+`"}`)},
		{"data after the JSON object", build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}{"x":1}`)},
		{"an action the gate does not know", build("sqs", json, "AmazonSQS.CreateQueue", `{"QueueName":"x"}`)},
		{"a content type the emulator routes by substring", build("sns", form+"; x=application/x-amz-json-1.0", "AmazonSQS.PurgeQueue", `{`+reply+`}`)},
		{"a query string", build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)},
		{"a body other than the one signed", build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)},
		{"a signature scoped to another service", build("sns", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)},
	}
	out[8].req.URL.RawQuery = "Action=PurgeQueue"
	out[9].req.Body = ioNopCloser(`{"QueueUrl":"` + ch.Stores["space"].Queue.URL + `"}`)
	out[9].req.ContentLength = int64(len(`{"QueueUrl":"` + ch.Stores["space"].Queue.URL + `"}`))
	unsigned := build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)
	unsigned.Header.Del("Authorization")
	wrong := build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)
	wrong.Header.Set("Authorization", strings.Replace(wrong.Header.Get("Authorization"), "Signature=", "Signature=0", 1))
	stranger := build("sqs", json, "AmazonSQS.ReceiveMessage", `{`+reply+`}`)
	stranger.Header.Set("Authorization", strings.Replace(stranger.Header.Get("Authorization"), creds.AccessKeyID, "LOCALFFFFFFFFFFFFFFFF", 1))
	return append(out, rawRequest{"an unsigned call", unsigned}, rawRequest{"a wrong signature", wrong}, rawRequest{"an access key the gate never issued", stranger})
}

func ioNopCloser(s string) *nopBody { return &nopBody{bytes.NewReader([]byte(s))} }

type nopBody struct{ *bytes.Reader }

func (nopBody) Close() error { return nil }

func createQueue(t *testing.T, ctx context.Context, cl local.Clients, name string) string {
	t.Helper()
	out, err := cl.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := cl.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return a.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
}

func subscriptions(t *testing.T, ctx context.Context, cl local.Clients, topic string) int {
	t.Helper()
	out, err := cl.SNS.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topic)})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Subscriptions)
}
