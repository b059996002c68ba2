// Package conformcli is the conformance command's flags, exit codes and
// output, shared by erasurectl conform and erasure-conform: a line for each
// case, a summary, and JUnit XML for CI.
package conformcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/linn-cloud/erasure-channel/cmd/internal/checkcli"
	"github.com/linn-cloud/erasure-channel/internal/conform"
	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
)

// Cmd is the conformance command.
type Cmd struct {
	Runtime      string        `required:"" help:"The Lambda runtime, as Lambda spells it: nodejs22.x, nodejs24.x, python3.12, java21, provided.al2023."`
	Handler      string        `required:"" help:"The handler, as Lambda spells it: index.handler, app.handler, com.example.Handler::handleRequest (provided runtimes: any, the folder's bootstrap runs)."`
	Dir          string        `arg:"" type:"existingdir" help:"The handler's code, as the team deploys it."`
	Subscriber   string        `default:"conformance" help:"The store's subscriber name (ERASURE_SUBSCRIBER)."`
	PassTwoDelay time.Duration `name:"pass-two-delay" default:"1s" help:"ERASURE_PASS_TWO_DELAY_SECONDS for the run (whole seconds; deployed values reach 300 s, the protocol is the same)."`
	BatchTimeout time.Duration `name:"batch-timeout" default:"10s" help:"ERASURE_BATCH_TIMEOUT_SECONDS for the run (whole seconds)."`
	JUnit        string        `name:"junit" placeholder:"FILE" help:"Also write the report as JUnit XML to FILE."`
	Cache        string        `placeholder:"DIR" help:"Where the runtime interface clients are installed (default: the user cache folder's erasure-conform)."`
	Node         string        `placeholder:"PATH" help:"The node to run nodejs runtimes with (default: node on PATH)."`
	Python       string        `placeholder:"PATH" help:"The python to run python runtimes with (default: python3 on PATH)."`
	Java         string        `placeholder:"PATH" help:"The java to run java runtimes with (default: java on PATH)."`
}

// Run judges the handler. The error is a *checkcli.ExitError: 1 when a
// case failed, 2 for usage, 3 when the bench could not be set up.
func (c *Cmd) Run(ctx context.Context, stdout io.Writer) error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--pass-two-delay", c.PassTwoDelay}, {"--batch-timeout", c.BatchTimeout}} {
		if d.v%time.Second != 0 {
			return checkcli.Fail(checkcli.ExitUsage, "%s: whole seconds only", d.flag)
		}
	}
	opts := conform.Options{
		Runtime: c.Runtime, Handler: c.Handler, Dir: c.Dir, Subscriber: c.Subscriber,
		PassTwoDelay: c.PassTwoDelay, BatchTimeout: c.BatchTimeout,
		Clients:  lambdaemu.Clients{Cache: c.Cache, Node: c.Node, Python: c.Python, Java: c.Java},
		Progress: func(r conform.CaseResult) { fmt.Fprintln(stdout, Line(r)) },
	}
	rep, err := conform.Run(ctx, opts)
	if err != nil {
		var re *lambdaemu.RuntimeError
		var oe *conform.OptionsError
		if errors.As(err, &re) || errors.As(err, &oe) {
			return checkcli.Fail(checkcli.ExitUsage, "%s", err)
		}
		return checkcli.Fail(checkcli.ExitEnvironment, "%s", err)
	}
	if c.JUnit != "" {
		x, err := rep.JUnit()
		if err == nil {
			err = os.WriteFile(c.JUnit, x, 0o644)
		}
		if err != nil {
			return checkcli.Fail(checkcli.ExitEnvironment, "junit: %s", err)
		}
	}
	fmt.Fprintln(stdout, Summary(rep))
	if !rep.Conforms() {
		return checkcli.Fail(checkcli.ExitCheckFailed, "")
	}
	return nil
}

// Line is one case's line: ok, FAIL with each failure, or skip with why.
func Line(r conform.CaseResult) string {
	switch {
	case !r.Passed():
		return "FAIL " + r.Name + ": " + strings.Join(r.Failures, "; ")
	case r.Skipped != "":
		return "skip " + r.Name + ": " + r.Skipped
	}
	return "ok   " + r.Name
}

// Summary is the report's last line.
func Summary(rep *conform.Report) string {
	failed, skipped := 0, 0
	for _, c := range rep.Cases {
		if !c.Passed() {
			failed++
		} else if c.Skipped != "" {
			skipped++
		}
	}
	verdict := "conforms"
	if failed > 0 {
		verdict = "does not conform"
	}
	return fmt.Sprintf("%s %s %s: %d cases, %d failed, %d skipped; cold start %d ms; %.1f s",
		rep.Runtime, rep.Handler, verdict, len(rep.Cases), failed, skipped, rep.ColdStart.Milliseconds(), rep.Duration.Seconds())
}
