// Command app is the CDK app cdk.json runs: the erasure channel and the
// example stores. `npx cdk synth` (CLI pinned in tools/) or a plain
// `go run ./stacks/app` both write cdk.out without AWS credentials: run
// without the CLI, the app reads cdk.json's context itself and writes to
// cdk.out, so both paths synthesize the same app.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/stacks"
)

func main() {
	defer jsii.Close()
	props := &awscdk.AppProps{}
	if os.Getenv("CDK_OUTDIR") == "" { // not under the CDK CLI
		ctx, err := cdkJSONContext("cdk.json")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		props.Context = &ctx
		props.Outdir = jsii.String("cdk.out")
	}
	app := awscdk.NewApp(props)
	cfg, err := stacks.ConfigFromContext(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if cfg.HandlerAsset, err = stacks.BuildHandler(stacks.ExampleHandlerPackage); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stacks.BuildApp(app, cfg)
	app.Synth(nil)
}

// cdkJSONContext reads the "context" object of cdk.json.
func cdkJSONContext(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("app: run from the repository root, where cdk.json is: %w", err)
	}
	var f struct {
		Context map[string]interface{} `json:"context"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("app: cdk.json is not JSON: %w", err)
	}
	return f.Context, nil
}
