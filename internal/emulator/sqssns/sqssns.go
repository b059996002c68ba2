// Package sqssns runs the SNS/SQS emulator (npm fauxqs) as a subprocess bound
// to 127.0.0.1: under the Node 22 tools/ pins in the repository, or, outside
// it, under the node on PATH with fauxqs installed once into a cache folder
// (erasure-conform). It holds no S3 or DynamoDB, so a command that needs only
// SNS and SQS links neither.
package sqssns

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure Start.
type Options struct {
	// Root is the repository root holding tools/; default: found from the
	// working directory upwards.
	Root string
	// Cache, when set, is where the emulator is installed outside the
	// repository (no tools/ found): fauxqs from npm, run by the node on PATH.
	Cache string
	// Region defaults to eu-west-1.
	Region string
	// StartTimeout bounds the wait for the endpoint; default 30 s.
	StartTimeout time.Duration
}

// Server is a running SNS/SQS emulator.
type Server struct {
	// Endpoint is the base URL every SDK client points at (http://127.0.0.1:port).
	Endpoint string
	// Region is the region the emulator names resources in.
	Region string
	proc   *Process
}

// Start launches the emulator and waits for its endpoint.
func Start(ctx context.Context, opts Options) (*Server, error) {
	node, modules, err := emulatorNode(opts)
	if err != nil {
		return nil, err
	}
	if opts.Region == "" {
		opts.Region = "eu-west-1"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 30 * time.Second
	}
	cmd := exec.Command(node, "--input-type=module", "-e", sqsSNSScript)
	cmd.Dir = modules
	proc, endpoint, err := startProcess(ctx, cmd, "the SNS/SQS emulator", opts.StartTimeout, "EMULATOR_REGION="+opts.Region)
	if err != nil {
		return nil, err
	}
	return &Server{Endpoint: endpoint, Region: opts.Region, proc: proc}, nil
}

// Stop ends the emulator: it closes stdin (a clean stop), then kills it if it
// has not exited within 5 s.
func (s *Server) Stop() { s.proc.Stop() }

// Process is a Node script running as a subprocess: the SNS/SQS emulator,
// and the DynamoDB emulator the emulator package starts with StartScript.
type Process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	once  sync.Once
}

// Stop closes stdin (a clean stop), then kills the process if it has not
// exited within 5 s.
func (p *Process) Stop() {
	p.once.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

// StartScript runs tools/<script> under the pinned Node and waits for the one
// JSON line {"endpoint": "http://127.0.0.1:port"} it prints when listening.
func StartScript(ctx context.Context, node, root, script string, timeout time.Duration, env ...string) (*Process, string, error) {
	cmd := exec.Command(node, filepath.Join(root, "tools", script))
	cmd.Dir = filepath.Join(root, "tools")
	return startProcess(ctx, cmd, script, timeout, env...)
}

// startProcess starts cmd and waits for the one JSON line
// {"endpoint": "http://127.0.0.1:port"} it prints when listening.
func startProcess(ctx context.Context, cmd *exec.Cmd, script string, timeout time.Duration, env ...string) (*Process, string, error) {
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("emulator: start %s: %w", script, err)
	}
	p := &Process{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()

	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case l, ok := <-line:
		var msg struct{ Endpoint string }
		if !ok || json.Unmarshal([]byte(l), &msg) != nil || !strings.HasPrefix(msg.Endpoint, "http://127.0.0.1:") {
			p.Stop()
			return nil, "", fmt.Errorf("emulator: %s did not report an endpoint: %s", script, stderr.String())
		}
		return p, msg.Endpoint, nil
	case <-timer.C:
		p.Stop()
		return nil, "", fmt.Errorf("emulator: %s reported no endpoint within the start timeout", script)
	case <-ctx.Done():
		p.Stop()
		return nil, "", ctx.Err()
	}
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return len(p), nil
	}
	q := p
	if len(q) > l.n {
		q = q[:l.n]
	}
	l.n -= len(q)
	_, _ = l.w.Write(q)
	return len(p), nil
}
