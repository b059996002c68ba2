// Package lambdaemu runs one Lambda function locally the way the Lambda
// service does: it serves the Lambda Runtime API (the protocol every runtime
// interface client speaks: /runtime/invocation/next, …/response, …/error,
// /runtime/init/error) on 127.0.0.1, starts the function's runtime process
// with the environment Lambda gives it, and hands it one invocation at a
// time. A process that fails its init, exits, or overruns an invocation's
// timeout is stopped, and the next invocation starts a new one (a cold start),
// as Lambda does. It is the emulator erasurectl conform drives; the Runtime
// Interface Emulator's own packages are internal to its module, so they
// cannot be imported.
package lambdaemu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The Runtime API's version prefix.
const apiPrefix = "/2018-06-01/runtime/"

// Function is what a Lambda function is made of locally.
type Function struct {
	// Command starts the runtime (its runtime interface client and the
	// handler); Dir is its working directory, the function's code.
	Command []string
	Dir     string
	// Env is the function's environment (KEY=value), to which Start adds
	// AWS_LAMBDA_RUNTIME_API.
	Env []string
	// Name is AWS_LAMBDA_FUNCTION_NAME, used in the invoked function ARN.
	Name string
	// MemoryMB is AWS_LAMBDA_FUNCTION_MEMORY_SIZE; default 128.
	MemoryMB int
	// Output receives the process's stdout and stderr, as CloudWatch Logs
	// would.
	Output io.Writer
}

// Result is one invocation's end.
type Result struct {
	// Payload is the function's response, when it returned one.
	Payload []byte
	// FunctionError is the error type the runtime reported (…/error or an
	// init error), "" when the function returned.
	FunctionError string
	// InitError says the runtime failed its init: the process exited, or
	// posted /runtime/init/error, before it asked for the invocation.
	InitError bool
	// TimedOut says the invocation overran its timeout and was stopped.
	TimedOut bool
	// ColdStart says this invocation started a new process; InitDuration is
	// the time from the process's start to its first /next.
	ColdStart    bool
	InitDuration time.Duration
	// Duration is the time from handing the event to the runtime to its answer.
	Duration time.Duration
}

// Emulator serves the Runtime API for one function.
type Emulator struct {
	fn  Function
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	proc    *process
	pending *invocation // handed out or waiting for /next
	next    chan *invocation
	seq     int
}

type invocation struct {
	id       string
	payload  []byte
	deadline time.Time
	done     chan Result
	once     sync.Once
	start    time.Time
}

func (inv *invocation) finish(r Result) { inv.once.Do(func() { inv.done <- r }) }

type process struct {
	cmd       *exec.Cmd
	started   time.Time
	ready     chan struct{} // closed at the first /next
	readyOnce sync.Once
	exited    chan struct{}
	initErr   chan string
	initDur   time.Duration
}

// New listens on a free 127.0.0.1 port; no process runs until Invoke.
func New(fn Function) (*Emulator, error) {
	if len(fn.Command) == 0 {
		return nil, errors.New("lambdaemu: no runtime command")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lambdaemu: listen: %w", err)
	}
	e := &Emulator{fn: fn, ln: ln, next: make(chan *invocation, 1)}
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Address is the Runtime API's host:port (AWS_LAMBDA_RUNTIME_API).
func (e *Emulator) Address() string { return e.ln.Addr().String() }

// Close stops the process and the server.
func (e *Emulator) Close() error {
	e.stopProcess()
	return e.srv.Close()
}

// Restart stops the running process, so the next invocation is a cold start
// (as a new environment, or a changed configuration, makes one).
func (e *Emulator) Restart() { e.stopProcess() }

// SetEnv replaces the function's environment from the next cold start on.
func (e *Emulator) SetEnv(env []string) {
	e.mu.Lock()
	e.fn.Env = env
	e.mu.Unlock()
	e.stopProcess()
}

// Invoke runs one invocation of payload with the given timeout and waits for
// its end. An error means the emulator itself could not run it.
func (e *Emulator) Invoke(ctx context.Context, payload []byte, timeout time.Duration) (Result, error) {
	p, cold, err := e.ensureProcess()
	if err != nil {
		return Result{}, err
	}
	e.mu.Lock()
	e.seq++
	inv := &invocation{id: fmt.Sprintf("conform-invocation-%06d", e.seq), payload: payload, done: make(chan Result, 1)}
	e.pending = inv
	e.mu.Unlock()

	// Wait for the runtime's init: Lambda's init phase has its own 10 s limit.
	select {
	case <-p.ready:
	case msg := <-p.initErr:
		e.stopProcess()
		return Result{InitError: true, FunctionError: msg, ColdStart: cold}, nil
	case <-p.exited:
		e.stopProcess()
		return Result{InitError: true, FunctionError: "Runtime.ExitError", ColdStart: cold}, nil
	case <-time.After(initTimeout):
		e.stopProcess()
		return Result{InitError: true, FunctionError: "Runtime.InitTimeout", ColdStart: cold}, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	inv.deadline = time.Now().Add(timeout)
	inv.start = time.Now()
	e.next <- inv
	var r Result
	select {
	case r = <-inv.done:
	case <-p.exited:
		r = Result{FunctionError: "Runtime.ExitError"}
		e.stopProcess()
	case <-time.After(time.Until(inv.deadline)):
		r = Result{TimedOut: true, FunctionError: "Sandbox.Timedout"}
		e.stopProcess()
	case <-ctx.Done():
		e.stopProcess()
		return Result{}, ctx.Err()
	}
	r.Duration = time.Since(inv.start)
	r.ColdStart = cold
	if cold {
		r.InitDuration = p.initDur
	}
	e.mu.Lock()
	e.pending = nil
	e.mu.Unlock()
	return r, nil
}

// initTimeout is Lambda's limit on a function's init phase.
const initTimeout = 10 * time.Second

func (e *Emulator) ensureProcess() (*process, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.proc != nil {
		select {
		case <-e.proc.exited:
		default:
			return e.proc, false, nil
		}
	}
	cmd := exec.Command(e.fn.Command[0], e.fn.Command[1:]...)
	cmd.Dir = e.fn.Dir
	cmd.Env = append(append(e.standardEnv(), e.fn.Env...), "AWS_LAMBDA_RUNTIME_API="+e.Address())
	cmd.Stdout, cmd.Stderr = e.fn.Output, e.fn.Output
	setProcessGroup(cmd)
	p := &process{cmd: cmd, started: time.Now(), ready: make(chan struct{}), exited: make(chan struct{}), initErr: make(chan string, 1)}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("lambdaemu: start the runtime %s: %w", e.fn.Command[0], err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	e.proc = p
	// A fresh process takes no invocation handed to the one before it.
	select {
	case <-e.next:
	default:
	}
	return p, true, nil
}

// standardEnv is what Lambda sets in every function's environment besides
// the function's own variables.
func (e *Emulator) standardEnv() []string {
	mem := e.fn.MemoryMB
	if mem == 0 {
		mem = 128
	}
	return []string{
		"AWS_LAMBDA_FUNCTION_NAME=" + e.fn.Name,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=" + strconv.Itoa(mem),
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/" + e.fn.Name,
		"AWS_LAMBDA_LOG_STREAM_NAME=" + time.Now().UTC().Format("2006/01/02") + "/[$LATEST]local",
		"AWS_LAMBDA_INITIALIZATION_TYPE=on-demand",
		"TZ=:UTC",
	}
}

func (e *Emulator) stopProcess() {
	e.mu.Lock()
	p := e.proc
	e.proc = nil
	e.mu.Unlock()
	if p == nil {
		return
	}
	killProcessGroup(p.cmd)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

func (e *Emulator) current() *process {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.proc
}

func (e *Emulator) invocationByID(id string) *invocation {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending != nil && e.pending.id == id {
		return e.pending
	}
	return nil
}

// serve is the Runtime API.
func (e *Emulator) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPayload+1))
	if err != nil || len(body) > maxPayload {
		apiError(w, http.StatusRequestEntityTooLarge, "RequestTooLarge")
		return
	}
	switch {
	case r.Method == http.MethodGet && path == "invocation/next":
		e.serveNext(w, r)
	case r.Method == http.MethodPost && path == "init/error":
		if p := e.current(); p != nil {
			select {
			case p.initErr <- errorType(r, body):
			default:
			}
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	case r.Method == http.MethodPost && strings.HasPrefix(path, "invocation/"):
		e.serveResult(w, r, strings.TrimPrefix(path, "invocation/"), body)
	default:
		http.NotFound(w, r)
	}
}

// maxPayload is Lambda's synchronous payload limit (6 MB).
const maxPayload = 6 * 1024 * 1024

func (e *Emulator) serveNext(w http.ResponseWriter, r *http.Request) {
	if p := e.current(); p != nil {
		p.readyOnce.Do(func() { p.initDur = time.Since(p.started); close(p.ready) })
	}
	select {
	case inv := <-e.next:
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-1:000000000000:function:"+e.fn.Name)
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000;Sampled=0")
		h.Set("Content-Type", "application/json")
		_, _ = w.Write(inv.payload)
	case <-r.Context().Done():
	}
}

func (e *Emulator) serveResult(w http.ResponseWriter, r *http.Request, rest string, body []byte) {
	id, kind, ok := strings.Cut(rest, "/")
	inv := e.invocationByID(id)
	if !ok || inv == nil || (kind != "response" && kind != "error") {
		apiError(w, http.StatusBadRequest, "InvalidRequestID")
		return
	}
	if kind == "response" {
		inv.finish(Result{Payload: body})
	} else {
		inv.finish(Result{FunctionError: errorType(r, body)})
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"status":"OK"}`))
}

// errorType is the error type a runtime reported: its header, else the
// errorType of its body, when it reads as a type's name (letters, digits,
// '.', '_', '$', '-', at most 128), else "Unhandled". The message is never
// kept, nor a type that could be text: either may carry what the function
// was given.
func errorType(r *http.Request, body []byte) string {
	t := r.Header.Get("Lambda-Runtime-Function-Error-Type")
	if t == "" {
		var e struct {
			ErrorType string `json:"errorType"`
		}
		if json.Unmarshal(bytes.TrimSpace(body), &e) == nil {
			t = e.ErrorType
		}
	}
	if !typeName.MatchString(t) {
		return "Unhandled"
	}
	return t
}

var typeName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._$-]{0,127}$`)

func apiError(w http.ResponseWriter, status int, errType string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"errorType":%q,"errorMessage":%q}`, errType, errType)
}
