package s3fault

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is one kind of injected failure.
type Fault int

// The faults a Transport injects. "Lost" faults forward the request, so S3
// applies it, and then lose the answer: the caller cannot tell from the
// error alone whether its conditional write happened.
const (
	None        Fault = iota
	Throttled         // 503 SlowDown, not forwarded
	Refused           // 500 InternalError, not forwarded
	TimedOut          // no answer, not forwarded
	LostAs500         // forwarded and applied; answered 500
	LostTimeout       // forwarded and applied; no answer
	NotFound          // a read of a listed version answered 404 NoSuchVersion, not forwarded (Op.ListedReads404)
	numFaults
	// Permanent: every request of one kind (GET, PUT, DELETE, LIST) of a
	// doomed operation answers 500, retries included (PermanentRate).
	Permanent = numFaults
)

// String names the fault.
func (f Fault) String() string {
	return [...]string{"none", "throttled", "refused", "timed-out", "applied-answer-500", "applied-no-answer", "not-found", "permanent"}[f]
}

// Op is a caller's operation: the transport counts the faults it injected
// into the operation's requests and when it first sent one. Attach it with
// WithOp.
type Op struct {
	// ListedReads404: reads of an object version by id may be answered 404
	// (NotFound, NotFoundRate), as a version listed and then deleted by a
	// racing writer is met. Only for operations that list before they read
	// (an erasure): S3 is strongly consistent, so any other read of an
	// existing object never answers 404.
	ListedReads404 bool
	Faults         atomic.Int32
	firstSent      atomic.Int64 // unix nanoseconds
	doomOnce       sync.Once
	doomed         string // the request kind that fails for good ("" for none)
}

// Doomed is the request kind every request of which fails for the
// operation ("" for none).
func (o *Op) Doomed() string { return o.doomed }

// FirstSent is when the operation's first request was sent (zero if none).
func (o *Op) FirstSent() time.Time {
	if n := o.firstSent.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

type opKey struct{}

// WithOp tags ctx so the transport attributes requests to op.
func WithOp(ctx context.Context, op *Op) context.Context { return context.WithValue(ctx, opKey{}, op) }

// Write is one PutObject the S3 applied (answer delivered or lost).
type Write struct {
	Key, VersionID string
	At             time.Time // when S3 answered
	Body           []byte    // for keys containing RecordBodiesOf
	// IfMatch is the write's If-Match condition ("" for none); ETag is the
	// object's ETag after it: a chain of conditional writes links each to
	// the write it replaced, whatever order their answers came back in.
	IfMatch, ETag string
	// Op is the operation that made the write (nil if untagged).
	Op *Op
}

// Transport injects faults into S3 requests at Rate (0..1), chosen by a
// seeded generator, and records every PutObject S3 applied.
type Transport struct {
	Next http.RoundTripper
	Rate float64
	// RecordBodiesOf: the bodies of PutObjects whose key contains it are
	// kept with their Write ("" keeps none).
	RecordBodiesOf string
	// NotFoundRate (0..1) is the share of reads of an object version by id
	// answered 404 NoSuchVersion besides Rate's faults: the listed version a
	// racing writer deleted, as the reader meets it.
	NotFoundRate float64
	// PermanentRate (0..1) is the share of tagged operations one kind of
	// whose requests (GET, PUT, DELETE or LIST, chosen by the seed) fails
	// every time.
	PermanentRate float64

	mu       sync.Mutex
	rng      *rand.Rand
	enabled  bool
	counts   [numFaults + 1]int
	writes   []Write
	requests int
}

// NewTransport returns a transport over http.DefaultTransport, seeded.
func NewTransport(seed int64, rate float64) *Transport {
	return &Transport{Next: http.DefaultTransport, Rate: rate, rng: rand.New(rand.NewSource(seed)), enabled: true}
}

// SetEnabled turns fault injection on or off (writes are recorded either way).
func (t *Transport) SetEnabled(on bool) { t.mu.Lock(); t.enabled = on; t.mu.Unlock() }

// Counts returns how many of each fault were injected, and the requests seen.
func (t *Transport) Counts() (map[string]int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	for f := Throttled; f <= Permanent; f++ {
		out[f.String()] = t.counts[f]
	}
	return out, t.requests
}

// TakeWrites returns every PutObject S3 applied since the last call.
func (t *Transport) TakeWrites() []Write {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.writes
	t.writes = nil
	return out
}

func (t *Transport) pick() Fault {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	if !t.enabled || t.rng.Float64() >= t.Rate {
		return None
	}
	f := Fault(1 + t.rng.Intn(int(numFaults)-1))
	t.counts[f]++
	return f
}

// kindOf is a request's kind for PermanentRate.
func kindOf(req *http.Request) string {
	q := req.URL.Query()
	switch {
	case req.Method == http.MethodGet && (q.Has("versions") || q.Has("list-type")):
		return "LIST"
	case req.Method == http.MethodGet || req.Method == http.MethodHead:
		return "GET"
	}
	return req.Method
}

// doom decides, once per operation, whether one kind of its requests fails
// for good.
func (t *Transport) doom(op *Op) {
	op.doomOnce.Do(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.enabled && t.PermanentRate > 0 && t.rng.Float64() < t.PermanentRate {
			op.doomed = [...]string{"GET", "PUT", "DELETE", "LIST"}[t.rng.Intn(4)]
		}
	})
}

// timeoutError is a transport timeout, as a dropped connection looks.
type timeoutError struct{}

func (timeoutError) Error() string   { return "injected timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op, _ := req.Context().Value(opKey{}).(*Op)
	if op != nil {
		op.firstSent.CompareAndSwap(0, time.Now().UnixNano())
	}
	f := t.pick()
	versionRead := req.Method == http.MethodGet && req.URL.Query().Has("versionId") && op != nil && op.ListedReads404
	if f == NotFound && !versionRead {
		f = Refused // only a read of a listed version can answer 404
	}
	if f == None && versionRead && t.NotFoundRate > 0 {
		t.mu.Lock()
		if t.enabled && t.rng.Float64() < t.NotFoundRate {
			f = NotFound
			t.counts[NotFound]++
		}
		t.mu.Unlock()
	}
	if op != nil {
		t.doom(op)
		t.mu.Lock()
		if t.enabled && op.doomed != "" && op.doomed == kindOf(req) {
			f = Permanent
			t.counts[Permanent]++
		}
		t.mu.Unlock()
	}
	if f != None && op != nil {
		op.Faults.Add(1)
	}
	if f == Throttled || f == Refused || f == TimedOut || f == NotFound || f == Permanent {
		if req.Body != nil {
			req.Body.Close() // as a transport that sent nothing would
		}
	}
	switch f {
	case Throttled:
		return errorResponse(req, http.StatusServiceUnavailable, "SlowDown"), nil
	case Refused, Permanent:
		return errorResponse(req, http.StatusInternalServerError, "InternalError"), nil
	case NotFound:
		return errorResponse(req, http.StatusNotFound, "NoSuchVersion"), nil
	case TimedOut:
		return nil, &url.Error{Op: req.Method, URL: req.URL.Path, Err: timeoutError{}}
	}
	var body []byte
	if req.Method == http.MethodPut && t.RecordBodiesOf != "" && strings.Contains(req.URL.Path, t.RecordBodiesOf) && req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.Next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if req.Method == http.MethodPut && resp.StatusCode == http.StatusOK && req.URL.Query().Get("uploadId") == "" {
		t.mu.Lock()
		t.writes = append(t.writes, Write{Key: req.URL.Path, VersionID: resp.Header.Get("x-amz-version-id"), At: time.Now(), Body: body,
			IfMatch: strings.Trim(req.Header.Get("If-Match"), `"`), ETag: strings.Trim(resp.Header.Get("ETag"), `"`), Op: op})
		t.mu.Unlock()
	}
	switch f {
	case LostAs500:
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return errorResponse(req, http.StatusInternalServerError, "InternalError"), nil
	case LostTimeout:
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, &url.Error{Op: req.Method, URL: req.URL.Path, Err: timeoutError{}}
	}
	return resp, nil
}

func errorResponse(req *http.Request, status int, code string) *http.Response {
	body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code + `</Code><Message>injected</Message></Error>`
	return &http.Response{
		StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{"application/xml"}},
		Body:          io.NopCloser(bytes.NewReader([]byte(body))),
		ContentLength: int64(len(body)), Request: req,
	}
}
