// Package conform judges a store's erasure handler from the outside, in its
// own Lambda runtime: it runs the handler's code under the Lambda emulator
// (internal/lambdaemu) with the runtime interface client of its language,
// wires it to a local channel on the embedded SNS/SQS emulator with the
// environment ErasureSubscriber sets, sends it the cases of the protocol
// (docs/quickstart/handler.md) and judges what arrives on the response queue,
// what it re-sends to its own queue, what it reports failed, and what it
// prints. It needs nothing of the handler but its folder, its runtime and its
// handler string.
package conform

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
	"github.com/linn-cloud/erasure-channel/internal/emulator/sqssns"
	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
	"github.com/linn-cloud/erasure-channel/internal/local"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// Options say which handler to judge and how.
type Options struct {
	// Runtime and Handler as Lambda spells them (nodejs22.x, index.handler);
	// Dir is the code as the team deploys it.
	Runtime, Handler, Dir string
	// Subscriber is the store's subscriber name; default "conformance".
	Subscriber string
	// PassTwoDelay is the delay before pass two, 0 to 300 s (erasurectl
	// conform's default is 1 s: the protocol is the same at every delay).
	PassTwoDelay time.Duration
	// BatchTimeout is ERASURE_BATCH_TIMEOUT_SECONDS; default 10 s.
	BatchTimeout time.Duration
	// Clients are the runtime interface clients' cache and interpreters.
	Clients lambdaemu.Clients
	// Root is the repository holding tools/ (the SNS/SQS emulator); default
	// found from the working directory.
	Root string
	// Progress, when set, gets one line per case as it ends.
	Progress func(CaseResult)
}

func (o Options) subscriber() string {
	if o.Subscriber == "" {
		return "conformance"
	}
	return o.Subscriber
}

func (o Options) passTwoDelay() time.Duration { return o.PassTwoDelay }

func (o Options) batchTimeout() time.Duration {
	if o.BatchTimeout == 0 {
		return 10 * time.Second
	}
	return o.BatchTimeout
}

// handlerTimeout is the function's timeout: the channel's cap, T.
func (o Options) handlerTimeout() time.Duration { return contract.Channel().HandlerTimeoutCap() }

func (o Options) region() string { return "eu-west-1" }

// OptionsError is an option the command cannot run with.
type OptionsError struct{ Option, Problem string }

func (e *OptionsError) Error() string { return "conform: " + e.Option + ": " + e.Problem }

// CaseResult is one case's verdict.
type CaseResult struct {
	// Name is the case, as "pair/erasure/ERASE/ACCOUNT" or "forged-marker/other-sender".
	Name string
	// Failures are what the handler did wrong, never a value it was sent.
	Failures []string
	// Skipped says why the case could not be judged ("" when it was).
	Skipped  string
	Duration time.Duration
}

// Passed says the case found nothing wrong.
func (c CaseResult) Passed() bool { return len(c.Failures) == 0 }

// Report is every case's verdict and the handler's measured times.
type Report struct {
	Runtime, Handler string
	Cases            []CaseResult
	// ColdStart is the first invocation's init time plus its duration.
	ColdStart time.Duration
	Duration  time.Duration
}

// Conforms says every case passed.
func (r *Report) Conforms() bool {
	for _, c := range r.Cases {
		if !c.Passed() {
			return false
		}
	}
	return len(r.Cases) > 0
}

// Run judges the handler and reports every case. An error means the bench
// could not be set up (an unknown runtime, no emulator, no runtime client):
// nothing was judged.
func Run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	rt, err := lambdaemu.ParseRuntime(o.Runtime)
	if err != nil {
		return nil, err
	}
	if o.Handler == "" {
		return nil, &OptionsError{Option: "--handler", Problem: "required (as Lambda spells it: index.handler, app.handler, com.example.Handler::handleRequest)"}
	}
	if fi, err := os.Stat(o.Dir); err != nil || !fi.IsDir() {
		return nil, &OptionsError{Option: "DIR", Problem: "not a folder"}
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, err
	}
	if !contract.IsSubscriberName(o.subscriber()) {
		return nil, &OptionsError{Option: "--subscriber", Problem: "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"}
	}
	if o.Clients.Cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, &OptionsError{Option: "--cache", Problem: "no user cache folder; give one"}
		}
		o.Clients.Cache = filepath.Join(dir, "erasure-conform")
	}
	b, stop, err := newBench(ctx, o, rt)
	if err != nil {
		return nil, err
	}
	defer stop()
	rep := &Report{Runtime: o.Runtime, Handler: o.Handler}
	for _, c := range cases() {
		t0 := time.Now()
		res := CaseResult{Name: c.name}
		if err := c.run(ctx, b, &res); err != nil {
			return nil, fmt.Errorf("conform: case %s: %w", c.name, err)
		}
		res.Duration = time.Since(t0)
		rep.Cases = append(rep.Cases, res)
		if o.Progress != nil {
			o.Progress(res)
		}
	}
	rep.ColdStart = b.coldStart
	rep.Duration = time.Since(start)
	return rep, nil
}

// newBench starts the emulators, creates the channel and the handler's
// function, and returns a stop for all of them.
func newBench(ctx context.Context, o Options, rt lambdaemu.Runtime) (*bench, func(), error) {
	cmd, rtEnv, err := o.Clients.Command(rt, o.Handler, o.Dir)
	if err != nil {
		return nil, nil, err
	}
	emu, err := sqssns.Start(ctx, sqssns.Options{Root: o.Root, Region: o.region(), Cache: o.Clients.Cache})
	if err != nil {
		return nil, nil, err
	}
	b := &bench{opts: o, output: &syncBuffer{}, refuse: &refusals{}}
	stops := []func(){emu.Stop}
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	fail := func(err error) (*bench, func(), error) { stop(); return nil, nil, err }
	if b.gate, err = local.StartGate(emu.Endpoint, b.refuse); err != nil {
		return fail(err)
	}
	stops = append(stops, func() { _ = b.gate.Close() })
	c := contract.Channel()
	settings := timing.Defaults(c)
	settings.PassTwoDelaySeconds = int(o.passTwoDelay() / time.Second)
	settings.BatchTimeoutSeconds = int(o.batchTimeout() / time.Second)
	if p := settings.Check(c, problem.Root("conform")); len(p) > 0 {
		return fail(&OptionsError{Option: "--pass-two-delay or --batch-timeout", Problem: p.String()})
	}
	sub := o.subscriber()
	admin := local.NewClients(emu.Endpoint, emu.Region)
	if b.ch, err = local.Create(ctx, admin, local.Spec{Prefix: "conform-", Constants: c, Stores: []local.StoreSpec{{Name: sub, Settings: settings}}}); err != nil {
		return fail(err)
	}
	b.ch.Guard(b.gate, emu.Region)
	b.store = b.ch.Stores[sub]
	principal := local.HandlerPrincipal(sub)
	b.self = local.SenderID(principal)
	b.publish = b.gate.Clients(accountService, emu.Region)
	b.other = b.gate.Clients(intruder, emu.Region)
	b.asSelf = b.gate.Clients(principal, emu.Region)
	creds := b.gate.Credentials(principal, emu.Region)
	roleID, _, _ := strings.Cut(b.self, ":")
	henv := b.store.HandlerEnvironment(b.ch.ResponseQueue.URL)
	// The handler reaches its queues through the gate: as in AWS, a queue's
	// URL names the endpoint the SDK calls (the JavaScript SDK calls a queue
	// URL's own host), and the emulator finds a queue by its URL's path.
	henv.QueueURL = b.throughGate(henv.QueueURL, "queue/"+sub)
	henv.ResponseQueueURL = b.throughGate(henv.ResponseQueueURL, "response-queue")
	b.env = append(rtEnv,
		contract.EnvSubscriber+"="+henv.Subscriber,
		contract.EnvQueueURL+"="+henv.QueueURL,
		contract.EnvResponseQueueURL+"="+henv.ResponseQueueURL,
		contract.EnvPassTwoDelaySeconds+"="+strconv.Itoa(settings.PassTwoDelaySeconds),
		contract.EnvBatchTimeoutSeconds+"="+strconv.Itoa(settings.BatchTimeoutSeconds),
		contract.EnvHandlerRoleID+"="+roleID,
		"AWS_REGION="+emu.Region, "AWS_DEFAULT_REGION="+emu.Region,
		"AWS_ACCESS_KEY_ID="+creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+creds.SecretAccessKey,
		"AWS_ENDPOINT_URL="+b.gate.URL, "AWS_ENDPOINT_URL_SQS="+b.gate.URL,
		"PATH="+os.Getenv("PATH"), "HOME="+os.Getenv("HOME"), "LANG=C.UTF-8",
	)
	if b.fn, err = lambdaemu.New(lambdaemu.Function{Command: cmd, Dir: o.Dir, Env: b.env, Name: contract.HandlerName(sub), Output: b.output}); err != nil {
		return fail(err)
	}
	stops = append(stops, func() { _ = b.fn.Close() })
	return b, stop, nil
}

// throughGate is url with the gate's host, named to the gate as resource.
func (b *bench) throughGate(raw, resource string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	gated := strings.TrimSuffix(b.gate.URL, "/") + u.Path
	b.gate.Name(gated, resource)
	return gated
}

// ErrToolsMissing means the SNS/SQS emulator is not installed (make tools).
var ErrToolsMissing = pinnednode.ErrToolsMissing
