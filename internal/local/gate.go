package local

import (
	"bytes"
	"context"
	"crypto/rand"
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

	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// Decider decides one call the way the deployed policies would: the access
// matrix of the synthesized app (accessmodel.Matrix) is one.
type Decider interface {
	Decide(principal, action, resource string) iameval.Decision
	// DecideSubscribe decides an sns:Subscribe of endpoint over protocol.
	DecideSubscribe(principal, protocol, endpoint string) iameval.Decision
}

// OpenDecider allows every call on a resource the gate was told of: a local
// channel whose components still authenticate and are reported by SenderId
// as SQS reports them, without the deployed policies (tests of other rules).
type OpenDecider struct{}

// Decide allows.
func (OpenDecider) Decide(string, string, string) iameval.Decision { return iameval.Allowed }

// DecideSubscribe allows.
func (OpenDecider) DecideSubscribe(string, string, string) iameval.Decision {
	return iameval.Allowed
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
	region    string
	resources map[string]string     // queue URL or topic ARN, exactly -> the Decider's resource name
	endpoints map[string]string     // queue ARN, exactly -> the Decider's resource name (a subscription's endpoint)
	keys      map[string]credential // access key id -> its principal and secret
	senders   map[string]string     // message id -> sender id
	refusals  map[string]int        // "principal action resource" -> calls denied
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
		resources: map[string]string{}, endpoints: map[string]string{}, keys: map[string]credential{}, senders: map[string]string{}, refusals: map[string]int{}, inFlight: map[uint64]bool{}}
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

// Use makes d decide every call from now on.
func (g *Gate) Use(d Decider) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.decider = d
}

// Decider is the Decider in use.
func (g *Gate) Decider() Decider {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.decider
}

// NameEndpoint tells the gate which resource of the Decider a queue ARN is,
// when a subscription names it as its endpoint.
func (g *Gate) NameEndpoint(queueARN, resource string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.endpoints[queueARN] = resource
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

// Name tells the gate which resource of the Decider a queue URL, or a
// topic ARN, is (response-queue, queue/space, topic). A call is judged only
// for an address named exactly so; any other address is refused.
func (g *Gate) Name(address, resource string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resources[address] = resource
}

// Credentials are the access key id and secret the gate issued to
// principal (issued on first ask): a component that signs with them calls as
// principal, and no other.
func (g *Gate) Credentials(principal, region string) aws.Credentials {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.region == "" {
		g.region = region
	}
	for id, c := range g.keys {
		if c.principal == principal {
			return aws.Credentials{AccessKeyID: id, SecretAccessKey: c.secret, Source: "local gate"}
		}
	}
	sum := sha256.Sum256([]byte(principal))
	id := "LOCAL" + strings.ToUpper(hex.EncodeToString(sum[:8]))
	var secret [24]byte
	if _, err := rand.Read(secret[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	c := credential{principal: principal, secret: hex.EncodeToString(secret[:])}
	g.keys[id] = c
	return aws.Credentials{AccessKeyID: id, SecretAccessKey: c.secret, Source: "local gate"}
}

// Clients are SDK clients that call through the gate as principal, signing
// with the credentials the gate issued to it.
func (g *Gate) Clients(principal, region string) Clients {
	c := g.Credentials(principal, region)
	creds := credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")
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

// ServeHTTP authenticates one call, judges it, and forwards it when allowed.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallBytes+1))
	if err != nil || len(body) > maxCallBytes {
		g.refuse(w, "", "", "", "the call's body is unreadable or too large")
		return
	}
	c, err := parseCall(r, body)
	if err != nil {
		g.refuse(w, "", c.action, "", err.Error())
		return
	}
	principal, err := g.authenticate(r, body, c.service)
	if err != nil {
		g.refuse(w, "", c.action, "", err.Error())
		return
	}
	g.mu.Lock()
	resource := g.resources[c.address]
	g.mu.Unlock()
	var d iameval.Decision
	switch {
	case resource == "":
		d = iameval.Undecided // not a resource of the channel: never forwarded
	case c.action == "sns:Subscribe":
		endpoint := c.endpoint
		g.mu.Lock()
		if r := g.endpoints[endpoint]; r != "" {
			endpoint = r // a channel queue, by the Decider's name
		}
		g.mu.Unlock()
		d = g.Decider().DecideSubscribe(principal, c.protocol, endpoint)
	default:
		d = g.Decider().Decide(principal, c.action, resource)
	}
	if d != iameval.Allowed {
		g.denied.Add(1)
		g.mu.Lock()
		g.refusals[principal+" "+c.action+" "+or(resource, "an unnamed resource")]++
		g.mu.Unlock()
		deny(w, c.action)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if c.action == "sqs:SendMessage" {
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

// maxCallBytes bounds one call's body: SQS's and SNS's 256 KiB message limit
// in a batch of ten, with room for the envelope.
const maxCallBytes = 4 << 20

// refuse answers a call the gate will not judge (unsigned, wrongly signed,
// ambiguous, unknown): never forwarded, counted as denied. reason names the
// rule, never the call's content.
func (g *Gate) refuse(w http.ResponseWriter, principal, action, resource, reason string) {
	g.denied.Add(1)
	g.mu.Lock()
	g.refusals[or(principal, "an unauthenticated caller")+" "+or(action, "an unknown action")+" "+or(resource, "refused: "+reason)]++
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-query-error", "AccessDenied;Sender")
	w.WriteHeader(http.StatusForbidden)
	b, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.service#AccessDeniedException", "message": "local gate: " + reason})
	w.Write(b)
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
