package test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
	"github.com/linn-cloud/erasure-channel/internal/storeteam"
)

// TestGoAppAcknowledgesAFinding: a Go store team whose handler's role is
// under a landing zone's boundary defined outside the app acknowledges
// EC323 on its stack with erasurecheck.Acknowledge: the synth passes, the
// finding is still in CDK's report (severity info, with the reason), and
// erasurectl check over the same cloud assembly reports it acknowledged.
// Acknowledging a cap is refused at the call, with ErrNotAcknowledgeable.
func TestGoAppAcknowledgesAFinding(t *testing.T) {
	for _, how := range []string{"erasurecheck.Acknowledge", "Validations.acknowledge"} {
		t.Run(how, func(t *testing.T) { acknowledgesAFinding(t, how == "Validations.acknowledge") })
	}
}

// acknowledgesAFinding is TestGoAppAcknowledgesAFinding with the check's
// own Acknowledge, or with CDK's (Validations.of(stack).acknowledge({ id:
// "erasure-channel::EC323", reason })): the same findings, the same report.
func acknowledgesAFinding(t *testing.T, cdks bool) {
	const reason = "the platform team's boundary allows the answers"
	cases := []storeteam.Case{{Name: "boundary-outside-the-app", Store: &storeteam.Shape{Boundary: "outside"}}}
	res := erasuretest.Collect(t, erasuretest.Options{TopicArns: []string{storeteam.TopicArn}, TopicKeyArns: []string{storeteam.TopicKeyArn}, Context: storeTeamContext(t)},
		func(app awscdk.App) {
			storeteam.Build(app, cases)
			stack := app.Node().FindChild(jsii.String(cases[0].Stack(0)))
			if cdks {
				awscdk.Validations_Of(stack).Acknowledge(&awscdk.Acknowledgment{Id: jsii.String(erasurecheck.PluginName + "::EC323"), Reason: jsii.String(reason)})
			} else if err := erasurecheck.Acknowledge(stack, "EC323", reason); err != nil {
				t.Fatal(err)
			}
			if err := erasurecheck.Acknowledge(stack, "EC202", "the visibility timeout is fine here"); !errors.Is(err, erasurecheck.ErrNotAcknowledgeable) {
				t.Errorf("acknowledging a derivation: %v, want ErrNotAcknowledgeable", err)
			}
			if err := erasurecheck.Acknowledge(stack, "EC323", "short"); !errors.Is(err, erasurecheck.ErrShortReason) {
				t.Errorf("a short reason: %v, want ErrShortReason", err)
			}
		})
	if len(res.Lines) != 0 || res.Err != "" {
		t.Fatalf("the synth failed: %s %v", res.Err, res.Lines)
	}
	r, err := erasurecheck.CheckPaths([]string{res.Dir}, erasurecheck.Config{TopicArns: []string{storeteam.TopicArn}, TopicKeyArns: []string{storeteam.TopicKeyArn}})
	if err != nil {
		t.Fatal(err)
	}
	var acked []erasurecheck.Finding
	for _, f := range r.Findings {
		if f.Acknowledged != nil {
			acked = append(acked, f)
		} else if f.Fails() {
			t.Errorf("a failing finding: %s", f.String())
		}
	}
	if len(acked) != 1 || acked[0].Rule.ID != "EC323" || acked[0].Acknowledged.Reason != reason || acked[0].Acknowledged.Source != "cloud assembly" ||
		!strings.HasPrefix(acked[0].ConstructPath, cases[0].Stack(0)+"/") {
		t.Errorf("want the EC323 finding acknowledged from the cloud assembly, on a construct of the stack: %+v", acked)
	}
	for _, v := range res.Violations {
		if v.Rule == "EC323" && (v.Severity != "info" || !strings.Contains(v.Description, reason)) {
			t.Errorf("CDK's report: %+v, want severity info with the reason", v)
		}
	}
}

// TestCDKAcknowledgementOfACapIsRefused: CDK's own acknowledgement of a rule
// that may not be acknowledged (a derivation, EC202) is refused as the
// check's own is: the check over the cloud assembly fails with
// ErrNotAcknowledgeable, naming the construct, and the synth does not pass.
func TestCDKAcknowledgementOfACapIsRefused(t *testing.T) {
	cases := []storeteam.Case{{Name: "boundary-outside-the-app", Store: &storeteam.Shape{Boundary: "outside"}}}
	res := erasuretest.Collect(t, erasuretest.Options{TopicArns: []string{storeteam.TopicArn}, TopicKeyArns: []string{storeteam.TopicKeyArn}, Context: storeTeamContext(t)},
		func(app awscdk.App) {
			storeteam.Build(app, cases)
			stack := app.Node().FindChild(jsii.String(cases[0].Stack(0)))
			awscdk.Validations_Of(stack).Acknowledge(&awscdk.Acknowledgment{Id: jsii.String(erasurecheck.PluginName + "::EC202"), Reason: jsii.String("the visibility timeout is fine here")})
		})
	if res.Err == "" && len(res.Lines) == 0 {
		t.Fatal("the synth passed with a cap acknowledged")
	}
	_, err := erasurecheck.CheckPaths([]string{res.Dir}, erasurecheck.Config{TopicArns: []string{storeteam.TopicArn}, TopicKeyArns: []string{storeteam.TopicKeyArn}})
	if !errors.Is(err, erasurecheck.ErrNotAcknowledgeable) {
		t.Errorf("the check over the cloud assembly: %v, want ErrNotAcknowledgeable", err)
	}
}
