// Command app is the CDK app cdk.json runs: the erasure channel and the
// example stores. `npx cdk synth` (CLI pinned in tools/) or a plain
// `go run ./stacks/app` both write cdk.out without AWS credentials: run
// without the CLI, the app reads cdk.json's context itself and writes to
// cdk.out, so both paths synthesize the same app.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/stacks"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

func main() {
	pinnednode.Exec()
	defer jsii.Close()
	props := &awscdk.AppProps{}
	if os.Getenv("CDK_OUTDIR") == "" { // not under the CDK CLI
		var err error
		if props, err = stacks.LocalAppProps("cdk.json", "cdk.out"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if _, err := stacks.Synthesize(props); err != nil {
		var se *stacks.SynthError
		if errors.As(err, &se) {
			for _, l := range se.Lines {
				fmt.Fprintln(os.Stderr, l)
			}
		} else {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}
}
