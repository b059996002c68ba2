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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	// Context is the app's context (feature flags, the team's own keys).
	Context map[string]any
}

// Result is what a synth produced.
type Result struct {
	// Dir is the cloud assembly directory (removed when the test ends).
	Dir string
	// Stores are the stores the check found subscribed to the erasure topic.
	Stores []erasurecheck.Store
	// Lines are every problem line; Synth has already failed the test with them.
	Lines []string
}

// Synth builds an app with build, synthesizes it with the app-wide check,
// and reports every problem line with t.Errorf. It returns what it found so a
// test can assert more (a store it expected, the lines of a refusal test).
func Synth(t testing.TB, opts Options, build func(app awscdk.App)) Result {
	t.Helper()
	res := Collect(t, opts, build)
	for _, l := range res.Lines {
		t.Errorf("erasure channel: %s", l)
	}
	return res
}

// Collect is Synth without failing the test: for tests that expect refusals.
func Collect(t testing.TB, opts Options, build func(app awscdk.App)) Result {
	t.Helper()
	check := erasurecheck.NewPlugin(erasurecheck.Config{TopicArns: opts.TopicArns})
	dir := t.TempDir()
	ctx := map[string]any{}
	for k, v := range opts.Context {
		ctx[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(dir), Context: &ctx})
	awscdk.Validations_Of(app).AddPlugins(check)
	build(app)
	res := Result{Dir: dir}
	var panicked string
	func() {
		defer func() {
			if r := recover(); r != nil {
				panicked = fmt.Sprint(r)
			}
		}()
		app.Synth(nil)
	}()
	res.Stores = check.Stores()
	res.Lines = append(problemLines(panicked), check.Problems().Strings()...)
	if panicked == "" {
		return res
	}
	if len(res.Lines) == 0 {
		res.Lines = reportLines(dir)
	}
	if len(res.Lines) == 0 { // never pass silently: a failed synth is a failed test
		res.Lines = []string{strings.SplitN(strings.TrimSpace(panicked), "\n", 2)[0]}
	}
	return res
}

// reportLines reads the violations of CDK's validation report (cdk-nag's
// findings with @aws-cdk/core:annotationsInValidationReport).
func reportLines(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "validation-report.json"))
	if err != nil {
		return nil
	}
	var rep struct {
		PluginReports []struct {
			Violations []struct {
				RuleName           string
				Description        string
				ViolatingResources []struct{ ConstructPath string }
			}
		}
	}
	if json.Unmarshal(b, &rep) != nil {
		return nil
	}
	var out []string
	for _, pr := range rep.PluginReports {
		for _, v := range pr.Violations {
			for _, r := range v.ViolatingResources {
				out = append(out, fmt.Sprintf("[%s] %s: %s", r.ConstructPath, v.RuleName, v.Description))
			}
			if len(v.ViolatingResources) == 0 {
				out = append(out, v.RuleName+": "+v.Description)
			}
		}
	}
	return out
}

// problemLines keeps the "[construct path] problem" lines of CDK's
// validation panic, without its stack trace.
func problemLines(msg string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") && strings.Contains(l, "] ") {
			out = append(out, l)
		}
	}
	return out
}
