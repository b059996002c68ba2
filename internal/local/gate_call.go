package local

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
)

// credential is what the gate issued to one principal.
type credential struct {
	principal string
	secret    string
}

// call is one request as the emulator will execute it: its IAM action, the
// exact address it reaches (a queue URL or topic ARN), and for a
// subscription its protocol and endpoint.
type call struct {
	service, action, address string
	protocol, endpoint       string
}

// The two content types the emulator routes by (fauxqs: SQS's JSON
// protocol and SNS's query protocol). It routes by substring, so the gate
// takes only these values, whole.
const (
	contentSQS = "application/x-amz-json-1.0"
	contentSNS = "application/x-www-form-urlencoded"
)

// sqsOps maps each SQS operation the channel's queues serve to its IAM
// action (every other operation, CreateQueue or ListQueues among them, is
// refused: it reaches no resource of the channel).
var sqsOps = map[string]string{
	"SendMessageBatch": "sqs:SendMessage", "DeleteMessageBatch": "sqs:DeleteMessage",
	"ChangeMessageVisibilityBatch": "sqs:ChangeMessageVisibility",
}

// snsOps maps each SNS query action on a topic to its IAM action.
var snsOps = map[string]string{"PublishBatch": "sns:Publish"}

func init() {
	for _, a := range channelpolicy.Catalogue[channelpolicy.Queue] {
		sqsOps[strings.TrimPrefix(a, "sqs:")] = a
	}
	for _, a := range channelpolicy.Catalogue[channelpolicy.Topic] {
		snsOps[strings.TrimPrefix(a, "sns:")] = a
	}
}

// parseCall reads a request exactly as the emulator will, and refuses what
// the two could read differently: another method, path or query string, a
// content type other than the two it routes by, a target header that does
// not match the body's protocol, a form with a duplicate parameter, a ";" or
// a bad escape, JSON that is not one object or has keys that differ only by
// case, an operation it does not know, or a call naming no resource.
func parseCall(r *http.Request, body []byte) (call, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/" || r.URL.RawQuery != "" {
		return call{}, errors.New("only POST / without a query string is judged")
	}
	types, targets := r.Header.Values("Content-Type"), r.Header.Values("X-Amz-Target")
	if len(types) != 1 {
		return call{}, errors.New("exactly one Content-Type is judged")
	}
	switch ct := strings.ToLower(strings.TrimSpace(types[0])); ct {
	case contentSQS:
		if len(targets) != 1 {
			return call{}, errors.New("an SQS call needs exactly one X-Amz-Target")
		}
		op, ok := strings.CutPrefix(targets[0], "AmazonSQS.")
		action := sqsOps[op]
		if !ok || action == "" {
			return call{}, errors.New("an SQS operation the gate does not know")
		}
		fields, err := strictJSON(body)
		if err != nil {
			return call{service: "sqs", action: action}, err
		}
		addr, _ := fields["QueueUrl"].(string)
		if addr == "" {
			return call{service: "sqs", action: action}, errors.New("an SQS call without a QueueUrl")
		}
		return call{service: "sqs", action: action, address: addr}, nil
	case contentSNS, contentSNS + "; charset=utf-8":
		if len(targets) != 0 {
			return call{}, errors.New("an X-Amz-Target header on an SNS form")
		}
		form, err := strictForm(body)
		if err != nil {
			return call{service: "sns"}, err
		}
		action := snsOps[form["Action"]]
		if action == "" {
			return call{service: "sns"}, errors.New("an SNS action the gate does not know")
		}
		c := call{service: "sns", action: action, address: form["TopicArn"]}
		if c.address == "" {
			return c, errors.New("an SNS call without a TopicArn")
		}
		if action == "sns:Subscribe" {
			c.protocol, c.endpoint = form["Protocol"], form["Endpoint"]
		}
		return c, nil
	}
	return call{}, errors.New("a Content-Type the gate does not judge")
}

// strictForm decodes an x-www-form-urlencoded body, refusing a ";", a bad
// escape, an empty or duplicate parameter, and parameters whose names differ
// only by case.
func strictForm(body []byte) (map[string]string, error) {
	if !utf8.Valid(body) || bytes.ContainsRune(body, ';') {
		return nil, errors.New("a form with a ';' or invalid UTF-8")
	}
	out := map[string]string{}
	folded := map[string]bool{}
	for _, part := range strings.Split(string(body), "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil, errors.New("a form parameter without a name or value")
		}
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, errors.New("a form parameter with a bad escape")
		}
		if _, dup := out[key]; dup || folded[strings.ToLower(key)] {
			return nil, errors.New("a form with a duplicate parameter")
		}
		out[key], folded[strings.ToLower(key)] = val, true
	}
	return out, nil
}

// strictJSON decodes one JSON object and nothing after it, refusing invalid
// UTF-8 and any object (at any depth) with two keys equal or equal but for
// case. It returns the top-level members.
func strictJSON(body []byte) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, errors.New("a JSON body that is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := checkKeys(dec, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil || out == nil {
		return nil, errors.New("a JSON body that is not an object")
	}
	return out, nil
}

// checkKeys walks one JSON value; objects may not repeat a key, even in
// another case.
func checkKeys(dec *json.Decoder, depth int) error {
	if depth > 32 {
		return errors.New("JSON nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return errors.New("a body that is not JSON")
	}
	d, ok := tok.(json.Delim)
	if depth == 0 && d != '{' {
		return errors.New("a JSON body that is not an object")
	}
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				return errors.New("a malformed JSON object")
			}
			if seen[strings.ToLower(key)] {
				return errors.New("a JSON object with keys that differ only by case, or repeat")
			}
			seen[strings.ToLower(key)] = true
			if err := checkKeys(dec, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := checkKeys(dec, depth+1); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return errors.New("a malformed JSON value")
	}
	return nil
}

// signingSkew is how far a signature's time may be from the gate's clock
// (SigV4's own allowance).
const signingSkew = 15 * time.Minute

// authenticate verifies the call's SigV4 signature by recomputing it with
// the SDK's own signer over the headers the caller signed, and returns the
// principal whose credentials signed it. An unsigned call, an unknown key, a
// scope of another region or service, a stale date, a body that is not the
// signed payload, or a signature that differs is refused.
func (g *Gate) authenticate(r *http.Request, body []byte, service string) (string, error) {
	auths := r.Header.Values("Authorization")
	if len(auths) != 1 {
		return "", errors.New("an unsigned call")
	}
	rest, ok := strings.CutPrefix(auths[0], "AWS4-HMAC-SHA256 ")
	if !ok {
		return "", errors.New("a call not signed with SigV4")
	}
	parts := map[string]string{}
	for _, p := range strings.Split(rest, ", ") {
		k, v, ok := strings.Cut(p, "=")
		if _, dup := parts[k]; !ok || dup {
			return "", errors.New("a malformed Authorization header")
		}
		parts[k] = v
	}
	scope := strings.Split(parts["Credential"], "/")
	if len(parts) != 3 || len(scope) != 5 || parts["SignedHeaders"] == "" || parts["Signature"] == "" || scope[4] != "aws4_request" {
		return "", errors.New("a malformed Authorization header")
	}
	g.mu.Lock()
	cred, known := g.keys[scope[0]]
	region := g.region
	g.mu.Unlock()
	if !known {
		return "", errors.New("credentials the gate did not issue")
	}
	if scope[3] != service || region != "" && scope[2] != region {
		return "", errors.New("a signature scoped to another service or region")
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || scope[1] != at.Format("20060102") || time.Since(at).Abs() > signingSkew {
		return "", errors.New("a signature without a current X-Amz-Date")
	}
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payload {
		return "", errors.New("a body that is not the signed payload")
	}
	want := sigV4(r, len(body), parts["SignedHeaders"], payload, scope, r.Header.Get("X-Amz-Date"), cred.secret)
	if !hmac.Equal([]byte(want), []byte(parts["Signature"])) {
		return "", fmt.Errorf("a signature that does not verify")
	}
	return cred.principal, nil
}

// sigV4 is the SigV4 signature of r over exactly the headers the caller
// signed (SDKs differ in which they sign: the Go SDK signs content-length,
// boto3 and the JavaScript SDK do not), computed as AWS's reference
// describes: the canonical request, the string to sign, the derived key.
func sigV4(r *http.Request, bodyLen int, signedHeaders, payload string, scope []string, amzDate, secret string) string {
	var canon strings.Builder
	canon.WriteString(r.Method + "\n" + canonicalPath(r.URL.Path) + "\n" + canonicalQuery(r.URL.Query()) + "\n")
	for _, h := range strings.Split(signedHeaders, ";") {
		var v string
		switch h {
		case "host":
			v = r.Host
		case "content-length":
			v = strconv.Itoa(bodyLen)
		default:
			vs := r.Header.Values(h)
			for i := range vs {
				vs[i] = strings.Join(strings.Fields(vs[i]), " ")
			}
			v = strings.Join(vs, ",")
		}
		canon.WriteString(h + ":" + v + "\n")
	}
	canon.WriteString("\n" + signedHeaders + "\n" + payload)
	sum := sha256.Sum256([]byte(canon.String()))
	credScope := strings.Join(scope[1:], "/")
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + credScope + "\n" + hex.EncodeToString(sum[:])
	key := []byte("AWS4" + secret)
	for _, part := range scope[1:] {
		key = hmacSHA256(key, part)
	}
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// canonicalPath URI-encodes each segment of path (twice-encoded is the
// same for the paths SQS and SNS use: letters, digits, - and _).
func canonicalPath(path string) string {
	if path == "" {
		return "/"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = uriEncode(uriEncode(s))
	}
	return strings.Join(segs, "/")
}

func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k)+"="+uriEncode(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode is SigV4's UriEncode: every byte but A-Z a-z 0-9 - _ . ~ as %XX.
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
