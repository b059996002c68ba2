// Package erasuretest is the test kit for a store team's own CDK tests: one
// call builds the team's stacks in a fresh app with the channel's app-wide
// check installed, synthesizes it, and fails the Go test with every problem
// line (ErasureSubscriber's caps, BitmapStoreBucket's traps, the wiring the
// check refuses, and any other construct validation, cdk-nag's included).
//
//	func TestMyStoreOnTheErasureChannel(t *testing.T) {
//		erasuretest.Synth(t, erasuretest.Options{TopicArns: []string{topicArn}}, func(app awscdk.App) {
//			mystack.New(app, "MyStore")
//		})
//	}
package erasuretest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

// Options configure Synth.
type Options struct {
	// TopicArns are the erasure topic's ARNs when the channel is not in the
	// app (the usual case for a store team).
	TopicArns []string
	// TopicKeyArns are the erasure topic's key ARNs, with TopicArns
	// (erasurecheck.Config.TopicKeyArns).
	TopicKeyArns []string
	// Context is the app's context (feature flags, the team's own keys),
	// over the kit's defaults (DefaultContext).
	Context map[string]any
	// Access also refuses the access matrix's failing cells
	// (erasurecheck.Config.Access): a policy wider or narrower than the
	// channel's data path needs.
	Access bool
}

// DefaultContext is the context the kit synthesizes with unless Options
// says otherwise: CDK's built-in CloudFormation validation (cfn-lint's rules)
// as errors, annotations (cdk-nag's findings) in the validation report, and
// the in-memory app mode, in which a failed synth raises every violation in
// its error instead of only the report's file name.
func DefaultContext() map[string]any {
	return map[string]any{
		"@aws-cdk/core:validateAgainstDefaultRules":   true,
		"@aws-cdk/core:annotationsInValidationReport": true,
		"@aws-cdk/core:appMode":                       "inmemory",
	}
}

// Result is what a synth produced.
type Result struct {
	// Dir is the cloud assembly directory (removed when the test ends).
	Dir string
	// Stores are the stores the check found subscribed to the erasure topic.
	Stores []erasurecheck.Store
	// Lines are every line that failed the synth, as CDK reported them:
	// "[construct path (logical id)] description" for each violation of its
	// validation report (the channel's check, the CloudFormation validator,
	// cdk-nag), and each construct validation's "[path] message". Synth has
	// already failed the test with them.
	Lines []string
	// Violations are every entry of CDK's validation report, warnings included.
	Violations []erasurecheck.ReportedViolation
	// Err is the error app.Synth raised ("" when it returned).
	Err string
}

// Synth builds an app with build, synthesizes it with the app-wide check,
// and reports every line that failed the synth with t.Errorf. It returns what
// it found so a test can assert more (a store it expected, a refusal's lines).
func Synth(t testing.TB, opts Options, build func(app awscdk.App)) Result {
	t.Helper()
	res := Collect(t, opts, build)
	for _, l := range res.Lines {
		t.Errorf("erasure channel: %s", l)
	}
	return res
}

// Collect is Synth without failing the test: for tests that expect refusals.
// Its lines come from what CDK raised and reported, never from the check's
// own state, and a synth that failed for a reason the kit cannot decode is
// still a line: it never returns no lines for a failed synth.
func Collect(t testing.TB, opts Options, build func(app awscdk.App)) Result {
	t.Helper()
	check := erasurecheck.NewPlugin(erasurecheck.Config{TopicArns: opts.TopicArns, TopicKeyArns: opts.TopicKeyArns, Access: opts.Access})
	dir := t.TempDir()
	ctx := DefaultContext()
	for k, v := range opts.Context {
		ctx[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(dir), Context: &ctx})
	awscdk.Validations_Of(app).AddPlugins(check)
	build(app)
	res := Result{Dir: dir}
	func() {
		defer func() {
			if r := recover(); r != nil {
				res.Err = fmt.Sprint(r)
			}
		}()
		app.Synth(nil)
	}()
	res.Stores = check.Stores()
	res.Lines = erasurecheck.ConstructValidationLines(res.Err)
	vs, err := erasurecheck.ReadValidationReport(dir)
	switch {
	case err == nil:
		res.Violations = vs
		res.Lines = append(res.Lines, erasurecheck.FailingLines(vs)...)
	case !errors.Is(err, erasurecheck.ErrNoReport):
		res.Lines = append(res.Lines, err.Error())
	}
	if res.Err != "" && len(res.Lines) == 0 { // never pass silently: a failed synth is a failed test
		res.Lines = []string{strings.SplitN(strings.TrimSpace(res.Err), "\n", 2)[0]}
	}
	return res
}
