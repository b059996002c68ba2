//go:build !wasip1

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/alecthomas/kong"

	"github.com/linn-cloud/erasure-channel/cmd/internal/checkcli"
	"github.com/linn-cloud/erasure-channel/cmd/internal/conformcli"
)

// conformDescription is erasure-conform's help.
const conformDescription = `Judges a store's erasure handler, in its own Lambda runtime, against the
channel's protocol (docs/quickstart/handler.md): a line per case, JUnit XML
with --junit, the same command as erasurectl conform. Needs Node 22 or later
(the SNS/SQS emulator, and CDK) and the handler's runtime on PATH.

Exit codes: 0 every case passes; 1 a case failed; 2 usage; 3 the bench could
not start.`

// runConform is erasure-conform: the same Go program as erasure-check,
// started under that name (the artifacts' launchers do).
func runConform(args []string, stdout, stderr io.Writer) int {
	var c struct{ conformcli.Cmd }
	exited := false
	parser, err := kong.New(&c,
		kong.Name("erasure-conform"),
		kong.Description(conformDescription),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(int) { exited = true }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
	)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return checkcli.ExitUsage
	}
	if _, err := parser.Parse(args); exited {
		return checkcli.ExitOK
	} else if err != nil {
		fmt.Fprintln(stderr, "erasure-conform:", err)
		return checkcli.ExitUsage
	}
	if err := c.Cmd.Run(context.Background(), stdout); err != nil {
		var ee *checkcli.ExitError
		if errors.As(err, &ee) {
			if ee.Msg != "" {
				fmt.Fprintln(stderr, "erasure-conform:", ee.Msg)
			}
			return ee.Code
		}
		fmt.Fprintln(stderr, "erasure-conform:", err)
		return checkcli.ExitEnvironment
	}
	return checkcli.ExitOK
}
