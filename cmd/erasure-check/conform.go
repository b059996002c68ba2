//go:build !wasip1

package main

import (
	"context"
	"io"

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
	return runCommand("erasure-conform", conformDescription, &c, args, stdout, stderr,
		func() error { return c.Cmd.Run(context.Background(), stdout) })
}
