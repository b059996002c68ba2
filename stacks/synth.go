package stacks

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

// ReadCDKContext reads the "context" object of a cdk.json.
func ReadCDKContext(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stacks: %w (run from the repository root)", err)
	}
	var f struct {
		Context map[string]interface{} `json:"context"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("stacks: %s is not JSON", path)
	}
	return f.Context, nil
}

// SynthError is a synth that CDK refused: every validation line, each naming
// a construct path and what is wrong (a broken cap, a cdk-nag finding).
type SynthError struct{ Lines []string }

func (e *SynthError) Error() string {
	return "stacks: synth refused:\n" + strings.Join(e.Lines, "\n")
}

// Synthesize builds the example handler and the app (channel, example
// stores, cdk-nag) into outdir. props nil means: read cdk.json's context and
// write to outdir, as a plain `go run` does; under the CDK CLI pass an empty
// AppProps so the CLI's environment decides. A refused synth is a *SynthError.
func Synthesize(props *awscdk.AppProps) (app *App, err error) {
	asset, err := BuildHandler(ExampleHandlerPackage)
	if err != nil {
		return nil, err
	}
	a := awscdk.NewApp(props)
	cfg, err := ConfigFromContext(a)
	if err != nil {
		return nil, err
	}
	// The app-wide check runs over every template the app synthesizes.
	if cfg.Check {
		awscdk.Validations_Of(a).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{Access: true}))
	}
	cfg.HandlerAsset = asset
	built := BuildApp(a, cfg)
	defer func() {
		if r := recover(); r != nil {
			err = &SynthError{Lines: refusalLines(fmt.Sprint(r), *a.Outdir())}
		}
	}()
	a.Synth(nil)
	return built, nil
}

// refusalLines are the lines of a refused synth as CDK raised and reported
// them: each construct validation's line, then each failing violation of the
// validation report (the app-wide check, the CloudFormation validator,
// cdk-nag), and the error itself when neither says more.
func refusalLines(msg, outdir string) []string {
	lines := erasurecheck.ConstructValidationLines(msg)
	if vs, err := erasurecheck.ReadValidationReport(outdir); err == nil {
		lines = append(lines, erasurecheck.FailingLines(vs)...)
	}
	if len(lines) == 0 {
		lines = []string{strings.SplitN(strings.TrimSpace(msg), "\n", 2)[0]}
	}
	return lines
}

// LocalAppProps are the props of a synth without the CDK CLI: cdk.json's
// context, written to outdir.
func LocalAppProps(cdkJSON, outdir string) (*awscdk.AppProps, error) {
	ctx, err := ReadCDKContext(cdkJSON)
	if err != nil {
		return nil, err
	}
	return &awscdk.AppProps{Context: &ctx, Outdir: jsii.String(outdir)}, nil
}
