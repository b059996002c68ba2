package local

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/contract/sender"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
)

// LogBuffer is a buffer several handlers may log into at once, so a test can
// read every line back (and check none carries a value).
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *LogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// HandlerOptions are the optional parts of a store's adapter.
type HandlerOptions struct {
	Now     func() time.Time // the store's clock; default time.Now
	Log     *slog.Logger     // default: discard
	Metrics io.Writer        // embedded-metric lines; default: discard
	// WrapResponses wraps the response sender (fault injection in the soak).
	WrapResponses func(storehandler.ResponseSender) storehandler.ResponseSender
}

// NewHandler builds a store's adapter as its Lambda would: the environment
// ErasureSubscriber would set, the response sender, and the store's own queue
// for pass two.
func (ch *Channel) NewHandler(store string, impls map[contract.Pair]storehandler.Func, o HandlerOptions) (*storehandler.Handler, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = io.Discard
	}
	as := ch.As(HandlerPrincipal(store))
	var responses storehandler.ResponseSender = sender.New(as.SQS, ch.ResponseQueue.URL, o.Log)
	if o.WrapResponses != nil {
		responses = o.WrapResponses(responses)
	}
	env := ch.Stores[store].HandlerEnvironment(ch.ResponseQueue.URL)
	var self string
	if ch.gate != nil {
		// What Lambda gives the handler: its own role's unique id, and SQS
		// reporting its sends as "<role id>:<function name>".
		self = SenderID(HandlerPrincipal(store))
		env.RoleID, _, _ = strings.Cut(self, ":")
	}
	return storehandler.New(storehandler.Config{
		Env:             env,
		PassTwoSender:   self,
		Implementations: impls,
		Responses:       responses,
		Queue:           as.SQS,
		Now:             o.Now,
		Log:             o.Log,
		Metrics:         o.Metrics,
	})
}

// RefusedAnswers is how many answers the running response reader refused
// because their sender is not the handler of the store they name.
func (ch *Channel) RefusedAnswers() int {
	if ch.reader == nil {
		return 0
	}
	return ch.reader.Refused()
}

// Serve polls every store that has a handler, and reads the response queue
// into collector, until ctx ends or stop is called; stop waits for all of it.
func (ch *Channel) Serve(ctx context.Context, region string, handlers map[string]HandlerFunc, collector *publisher.Collector, log *slog.Logger) (stop func()) {
	return ch.ServeWith(ctx, region, handlers, collector, nil, log)
}

// ServeWith is Serve with a sink (the ledger) that records every
// authenticated answer before it is counted and deleted.
func (ch *Channel) ServeWith(ctx context.Context, region string, handlers map[string]HandlerFunc, collector *publisher.Collector, sink publisher.Sink, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for name, h := range handlers {
		// Lambda's event source polls with the function's role.
		p := &Poller{Client: ch.As(HandlerPrincipal(name)).SQS, Store: ch.Stores[name], Handler: h, Region: region}
		wg.Add(1)
		go func() { defer wg.Done(); p.Run(ctx) }()
	}
	reader := publisher.NewReader(ch.As(accessmodel.AccountServicePrincipal).SQS, ch.ResponseQueue.URL, collector, log)
	if r := ch.Roster(); r != nil {
		reader.WithRoster(r)
	}
	if sink != nil {
		reader.WithSink(sink)
	}
	ch.reader = reader
	wg.Add(1)
	go func() { defer wg.Done(); _ = reader.Run(ctx, time.Second) }()
	return func() { cancel(); wg.Wait() }
}
