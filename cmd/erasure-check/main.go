// Command erasure-check is the app-wide check for CI, and, started as
// erasure-conform, the handler conformance command (erasurectl conform). It is
// the app-wide check for CI, the command the
// construct package installs (npm, PyPI and Maven alike): `erasure-check
// [flags] <cdk.out or template>...` checks a cloud assembly from any CDK
// language, or CloudFormation templates, with erasurectl check's flags,
// exit codes and text, JSON and SARIF output (the same Go: cmd/internal/
// checkcli). The package runs it as WebAssembly (GOOS=wasip1), so a store
// team needs neither Go nor a clone.
//
// Exit codes: 0 every store passes; 1 a problem was found, or no store was
// (--allow-no-stores accepts that); 2 usage (a path it cannot read).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/linn-cloud/erasure-channel/cmd/internal/checkcli"
)

type cli struct {
	JSON bool `help:"Print machine-readable JSON (the same as --format json)."`
	checkcli.Cmd
}

const description = `The erasure channel's app-wide check: every store subscribed to the erasure
topic in a cloud assembly (cdk.out, from any CDK language) or in CloudFormation
templates, against the channel's caps, derivations and lockdown.

Exit codes: 0 every store passes; 1 a problem was found, or no store was;
2 usage.`

func main() {
	if isConform(os.Args[0], os.Getenv(commandVariable)) {
		os.Exit(runConform(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commandVariable names the command when the launcher cannot set argv[0]
// (Java's ProcessBuilder): ERASURE_COMMAND=erasure-conform.
const commandVariable = "ERASURE_COMMAND"

// isConform says the program was started as erasure-conform: by that name
// (erasure-conform, erasure-conform.exe) or through commandVariable.
func isConform(argv0, command string) bool {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	return base == "erasure-conform" || command == "erasure-conform"
}

func run(args []string, stdout, stderr io.Writer) int {
	var c cli
	return runCommand("erasure-check", description, &c, args, stdout, stderr, func() error { return c.Cmd.Run(stdout, c.JSON) })
}

// runCommand parses args into cli (a kong grammar) and runs it, printing a
// failure as "name: message" and returning checkcli's exit code: the one
// shape of erasure-check and erasure-conform.
func runCommand(name, desc string, cli any, args []string, stdout, stderr io.Writer, runIt func() error) int {
	exited := false
	parser, err := kong.New(cli,
		kong.Name(name),
		kong.Description(desc),
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
		return checkcli.ExitOK // --help
	} else if err != nil {
		fmt.Fprintln(stderr, name+":", err)
		return checkcli.ExitUsage
	}
	if err := runIt(); err != nil {
		var ee *checkcli.ExitError
		if errors.As(err, &ee) {
			if ee.Msg != "" {
				fmt.Fprintln(stderr, name+":", ee.Msg)
			}
			return ee.Code
		}
		fmt.Fprintln(stderr, name+":", err)
		return checkcli.ExitEnvironment
	}
	return checkcli.ExitOK
}
