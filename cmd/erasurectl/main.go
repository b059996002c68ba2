// Command erasurectl is the erasure channel's command-line tool: synthesize
// the CDK app and check every store against the caps, run a whole channel
// locally on the SNS/SQS emulator, validate a message, print the channel
// constants, and publish or watch against a local or a real channel.
//
// Exit codes: 0 success; 1 the check failed (an invalid message, a broken cap,
// an unanswered round); 2 usage; 3 the environment failed (tools missing, the
// emulator or AWS unreachable).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/alecthomas/kong"

	"github.com/linn-cloud/erasure-channel/cmd/internal/checkcli"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// Exit codes scripts can rely on (checkcli's, which check shares).
const (
	exitOK          = checkcli.ExitOK
	exitCheckFailed = checkcli.ExitCheckFailed
	exitUsage       = checkcli.ExitUsage
	exitEnvironment = checkcli.ExitEnvironment
)

// exitError carries an exit code and a message that names no message value.
type exitError = checkcli.ExitError

func fail(code int, format string, args ...any) error { return checkcli.Fail(code, format, args...) }

// globals are the flags every command sees.
type globals struct {
	JSON   bool      `help:"Print machine-readable JSON instead of tables."`
	Stdout io.Writer `kong:"-"`
	Stderr io.Writer `kong:"-"`
	Stdin  io.Reader `kong:"-"`
}

type cli struct {
	globals

	Synth     synthCmd     `cmd:"" help:"Synthesize the CDK app to cdk.out and check every store against the channel's caps."`
	Check     checkCmd     `cmd:"" help:"Check a cdk.out (any CDK language) or CloudFormation templates (JSON/YAML) with the app-wide check's rules."`
	Access    accessCmd    `cmd:"" help:"Evaluate the synthesized policies offline: who may publish, deliver, read, answer and use each key; exit 1 when a cell is not what the channel needs."`
	Local     localCmd     `cmd:"" help:"Run the whole channel locally on the SNS/SQS emulator and show a round trip."`
	Conform   conformCmd   `cmd:"" help:"Judge a store's handler, in its own Lambda runtime, against the channel's protocol: a line per case, exit 1 when one fails."`
	Validate  validateCmd  `cmd:"" help:"Validate a message file (or - for stdin) against the contract; the body is never echoed."`
	Constants constantsCmd `cmd:"" help:"Print the channel constants with each derivation shown."`
	Publish   publishCmd   `cmd:"" help:"Publish a request on an erasure topic (local endpoint or a real account)."`
	Watch     watchCmd     `cmd:"" help:"Watch a response queue and report who answered which round."`
	Status    statusCmd    `cmd:"" help:"Show the ledger's requests: open, overdue, complete, exhausted, expired."`
	Receipt   receiptCmd   `cmd:"" help:"Print a completed request's receipt from the ledger, proved into the receipt log's signed tree head."`
	Evidence  evidenceCmd  `cmd:"" help:"Check the ledger's receipt log (evidence verify)."`
	Smoke     smokeCmd     `cmd:"" help:"Run CHECK and ERASE for a sentinel through a deployed channel, found through the AWS APIs (stack outputs, subscriptions, event source mappings, functions), and print each store's answers."`
}

const description = `The erasure channel's command-line tool.

Exit codes: 0 success; 1 the check failed (an invalid message, a broken cap,
an unanswered round); 2 usage; 3 the environment failed (tools missing, the
emulator or AWS unreachable).`

func main() {
	pinnednode.Exec()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var c cli
	c.Stdout, c.Stderr, c.Stdin = stdout, stderr, stdin
	exited := false
	parser, err := kong.New(&c,
		kong.Name("erasurectl"),
		kong.Description(description),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(int) { exited = true }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
		kong.Vars{"accessMaxRows": strconv.Itoa(accessMaxRows)},
	)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	ctx, err := parser.Parse(args)
	if exited {
		return exitOK // --help
	}
	if err != nil {
		fmt.Fprintln(stderr, "erasurectl:", err)
		return exitUsage
	}
	if err := ctx.Run(&c.globals); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.Msg != "" {
				fmt.Fprintln(stderr, "erasurectl:", ee.Msg)
			}
			return ee.Code
		}
		fmt.Fprintln(stderr, "erasurectl:", err)
		return exitEnvironment
	}
	return exitOK
}
