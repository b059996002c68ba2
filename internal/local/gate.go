package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// Decider decides one call the way the deployed policies would: the access
// matrix of the synthesized app (erasurecheck.AccessMatrix) is one.
type Decider interface {
	Decide(principal, action, resource string) erasurecheck.Decision
}

// Gate stands between the local channel's components and the emulator as
// IAM stands between a deployed channel's principals and SQS and SNS: each
// component calls through it with credentials naming its principal
// (handler/<store>, account-service, …); a call the Decider does not allow
// fails with AccessDenied (SQS) or AuthorizationError (SNS), and is never
// forwarded. It also plays SQS's SenderId: a message sent through the gate
// reports, when received, the role id and session of the principal that sent
// it, as SQS reports a Lambda handler's "<role id>:<function name>" (the
// emulator reports one fixed account for every sender).
type Gate struct {
	// URL is the gate's endpoint.
	URL string

	upstream *url.URL
	decider  Decider
	proxy    *httputil.ReverseProxy
	srv      *http.Server

	mu        sync.Mutex
	resources map[string]string // queue name or topic ARN -> the Decider's resource name
	keys      map[string]string // access key id -> principal
	senders   map[string]string // message id -> sender id
	refusals  map[string]int    // "principal action resource" -> calls denied
	denied    atomic.Int64

	// A message is visible to receivers before its send's answer reaches the
	// gate: a receive waits for every send that began before it answered.
	sends    uint64          // sends begun
	inFlight map[uint64]bool // sends whose answer is not recorded yet
	recorded *sync.Cond
}

// StartGate listens on 127.0.0.1 in front of the emulator at upstream.
func StartGate(upstream string, d Decider) (*Gate, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("local: gate upstream: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("local: gate: %w", err)
	}
	g := &Gate{URL: "http://" + ln.Addr().String(), upstream: u, decider: d,
		resources: map[string]string{}, keys: map[string]string{}, senders: map[string]string{}, refusals: map[string]int{}, inFlight: map[uint64]bool{}}
	g.recorded = sync.NewCond(&g.mu)
	g.proxy = httputil.NewSingleHostReverseProxy(u)
	direct := g.proxy.Director
	g.proxy.Director = func(r *http.Request) {
		direct(r)
		r.Header.Del("Accept-Encoding") // the gate reads and rewrites bodies
	}
	g.proxy.ModifyResponse = g.rewrite
	g.proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) {
		w.WriteHeader(http.StatusBadGateway) // a caller that gave up, or the emulator stopping
	}
	g.srv = &http.Server{Handler: g}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// Close stops the gate.
func (g *Gate) Close() error { return g.srv.Close() }

// Denied is how many calls the gate refused.
func (g *Gate) Denied() int { return int(g.denied.Load()) }

// DeniedCalls counts the denied calls by "principal action resource" (the
// matrix's names: no queue URL or message).
func (g *Gate) DeniedCalls() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.refusals))
	for k, v := range g.refusals {
		out[k] = v
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Name tells the gate which resource of the Decider a queue URL or ARN, or
// a topic ARN, is (response-queue, queue/space, topic).
func (g *Gate) Name(address, resource string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resources[resourceKey(address)] = resource
}

// resourceKey is a queue's name (from its URL or ARN) or a topic's ARN.
func resourceKey(address string) string {
	if strings.HasPrefix(address, "arn:aws:sns:") {
		return address
	}
	return address[strings.LastIndexAny(address, "/:")+1:]
}

// Clients are SDK clients that call through the gate as principal.
func (g *Gate) Clients(principal, region string) Clients {
	sum := sha256.Sum256([]byte(principal))
	key := "LOCAL" + strings.ToUpper(hex.EncodeToString(sum[:8]))
	g.mu.Lock()
	g.keys[key] = principal
	g.mu.Unlock()
	creds := credentials.NewStaticCredentialsProvider(key, "local", "")
	return Clients{
		SQS: sqs.New(sqs.Options{Region: region, BaseEndpoint: aws.String(g.URL), Credentials: creds}),
		SNS: sns.New(sns.Options{Region: region, BaseEndpoint: aws.String(g.URL), Credentials: creds}),
	}
}

// SenderID is what SQS reports as the sender of principal's messages: a
// role id derived from the principal, and for a store's handler the session
// Lambda gives it (its function name, contract.HandlerName).
func SenderID(principal string) string {
	sum := sha256.Sum256([]byte(principal))
	session := strings.ReplaceAll(principal, "/", "-")
	if store, ok := strings.CutPrefix(principal, "handler/"); ok {
		session = contract.HandlerName(store)
	}
	return "AROA" + strings.ToUpper(hex.EncodeToString(sum[:8])) + ":" + session
}

// Roster is the response reader's roster for stores, as the gate's senders
// identify their handlers.
func Roster(stores []string) publisher.Roster {
	r := publisher.Roster{}
	for _, s := range stores {
		role, session, _ := strings.Cut(SenderID("handler/"+s), ":")
		r[s] = publisher.Sender{RoleID: role, Session: session}
	}
	return r
}

// ServeHTTP judges one call and forwards it when allowed.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "gate: read", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	principal := g.principalOf(r)
	action, address := callOf(r, body)
	if action != "" {
		g.mu.Lock()
		resource := g.resources[resourceKey(address)]
		g.mu.Unlock()
		if resource == "" || g.decider.Decide(principal, action, resource) != erasurecheck.Allowed {
			g.denied.Add(1)
			g.mu.Lock()
			g.refusals[principal+" "+action+" "+or(resource, "an unnamed resource")]++
			g.mu.Unlock()
			deny(w, action)
			return
		}
	}
	if action == "sqs:SendMessage" {
		g.mu.Lock()
		g.sends++
		n := g.sends
		g.inFlight[n] = true
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			delete(g.inFlight, n)
			g.recorded.Broadcast()
			g.mu.Unlock()
		}()
		r = r.WithContext(withSender(r.Context(), SenderID(principal)))
	}
	g.proxy.ServeHTTP(w, r)
}

// awaitSends waits (holding g.mu) until every send begun so far has
// recorded its sender.
func (g *Gate) awaitSends() {
	mark := g.sends
	for {
		pending := false
		for n := range g.inFlight {
			pending = pending || n <= mark
		}
		if !pending {
			return
		}
		g.recorded.Wait()
	}
}

// principalOf reads the access key id from the SigV4 Authorization header.
func (g *Gate) principalOf(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	key, _, _ := strings.Cut(cred, "/")
	g.mu.Lock()
	defer g.mu.Unlock()
	if p, ok := g.keys[key]; ok {
		return p
	}
	return ""
}

// callOf names a call's IAM action and the address of what it reaches: the
// SQS JSON protocol's target and QueueUrl, or the SNS query protocol's
// Action and TopicArn. Calls that create or describe return "" and pass
// unjudged: building the channel is CloudFormation's business in a deploy,
// and the channel's own clients do it locally, around the gate.
func callOf(r *http.Request, body []byte) (action, address string) {
	if target := r.Header.Get("X-Amz-Target"); strings.HasPrefix(target, "AmazonSQS.") {
		op := strings.TrimPrefix(target, "AmazonSQS.")
		var in struct{ QueueUrl string }
		_ = json.Unmarshal(body, &in)
		switch op {
		case "SendMessage", "SendMessageBatch":
			return "sqs:SendMessage", in.QueueUrl
		case "ReceiveMessage":
			return "sqs:ReceiveMessage", in.QueueUrl
		case "DeleteMessage", "DeleteMessageBatch":
			return "sqs:DeleteMessage", in.QueueUrl
		case "ChangeMessageVisibility", "ChangeMessageVisibilityBatch":
			return "sqs:ChangeMessageVisibility", in.QueueUrl
		case "PurgeQueue":
			return "sqs:PurgeQueue", in.QueueUrl
		}
		return "", ""
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return "", ""
	}
	switch form.Get("Action") {
	case "Publish", "PublishBatch":
		return "sns:Publish", form.Get("TopicArn")
	}
	return "", ""
}

// deny answers as the service does when IAM refuses a call.
func deny(w http.ResponseWriter, action string) {
	if strings.HasPrefix(action, "sns:") {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>the deployed policies do not allow this principal to `+action+` on this resource</Message></Error><RequestId>local-gate</RequestId></ErrorResponse>`)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-query-error", "AccessDenied;Sender")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprint(w, `{"__type":"com.amazon.coral.service#AccessDeniedException","message":"the deployed policies do not allow this principal to `+action+` on this resource"}`)
}

type senderKey struct{}

func withSender(ctx context.Context, sender string) context.Context {
	return context.WithValue(ctx, senderKey{}, sender)
}

// rewrite records who sent each message and reports it on receive.
func (g *Gate) rewrite(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || resp.Request == nil {
		return nil
	}
	sender, _ := resp.Request.Context().Value(senderKey{}).(string)
	receive := resp.Request.Header.Get("X-Amz-Target") == "AmazonSQS.ReceiveMessage"
	if sender == "" && !receive {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if sender != "" {
		var out struct {
			MessageId  string
			Successful []struct{ MessageId string }
		}
		if json.Unmarshal(body, &out) == nil {
			g.mu.Lock()
			if out.MessageId != "" {
				g.senders[out.MessageId] = sender
			}
			for _, s := range out.Successful {
				g.senders[s.MessageId] = sender
			}
			g.mu.Unlock()
		}
	} else if rewritten, ok := g.reportSenders(body); ok {
		body = rewritten
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// reportSenders replaces the emulator's SenderId of every received message
// the gate saw sent.
func (g *Gate) reportSenders(body []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out map[string]any
	if dec.Decode(&out) != nil {
		return nil, false
	}
	msgs, _ := out["Messages"].([]any)
	changed := false
	g.mu.Lock()
	if len(msgs) > 0 {
		g.awaitSends()
	}
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		id, _ := mm["MessageId"].(string)
		attrs, _ := mm["Attributes"].(map[string]any)
		if s, ok := g.senders[id]; ok && attrs != nil {
			if _, asked := attrs["SenderId"]; asked {
				attrs["SenderId"] = s
				changed = true
			}
		}
	}
	g.mu.Unlock()
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(out)
	return b, err == nil
}
