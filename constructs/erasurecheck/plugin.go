//go:build !wasip1

package erasurecheck

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Plugin is the check as a CDK policy validation plugin: CDK runs it over the
// synthesized templates, and synth fails with one violation per problem,
// whose description is the same path/type/value/cap line ErasureSubscriber
// gives, and whose resource (construct path and logical id) is the queue,
// subscription, function or bucket to fix. Chosen over an Aspect because it
// judges what CloudFormation will deploy (L1 resources, escape hatches,
// overrides, nested stacks) and shares its rules with erasurectl check.
type Plugin struct {
	cfg Config

	mu     sync.Mutex
	result *Result
	err    error
}

// NewPlugin returns the app-wide check; add it to an app (or stage) with
// awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(cfg)).
func NewPlugin(cfg Config) *Plugin { return &Plugin{cfg: cfg} }

// Name implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Name() *string { return jsii.String(PluginName) }

// Version implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Version() *string { return jsii.String("2") }

// RuleIds implements awscdk.IPolicyValidationPlugin: every rule's id.
func (p *Plugin) RuleIds() *[]*string {
	var ids []string
	for _, r := range Rules() {
		ids = append(ids, r.ID)
	}
	return jsii.Strings(ids...)
}

// Validate implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Validate(ctx awscdk.IPolicyValidationContext) *awscdk.PolicyValidationPluginReport {
	var paths []string
	for _, s := range *ctx.TemplatePaths() {
		paths = append(paths, *s)
	}
	start := time.Now()
	res, err := Check(paths, p.cfg)
	recordTiming(time.Since(start))
	p.mu.Lock()
	p.result, p.err = res, err
	p.mu.Unlock()
	return Report(res, err)
}

// Report turns a result into CDK's plugin report: one violation per finding,
// named by its rule, with the rule's severity and the resource and property
// it points at (CDK adds the construct path). An acknowledged finding is a
// violation of severity "info" whose description carries the reason: reported,
// never failing. The report fails when any finding fails (Finding.Fails), so
// it is never a pass when the check failed.
func Report(res *Result, err error) *awscdk.PolicyValidationPluginReport {
	violations := []*awscdk.PolicyViolation{}
	success := err == nil
	if err != nil {
		// No template to point at: name the app itself, so CDK still renders it.
		violations = append(violations, &awscdk.PolicyViolation{
			RuleName: jsii.String("EC000"), Severity: jsii.String("fatal"),
			Description: jsii.String(err.Error()),
			ViolatingResources: &[]*awscdk.PolicyViolatingResource{{
				ConstructPath: jsii.String(""), Locations: jsii.Strings("Resources"), // the app itself
			}},
		})
	}
	if res != nil {
		for _, f := range res.Findings {
			v := ViolationOf(f)
			success = success && !f.Fails()
			location := "Resources." + f.LogicalID
			if len(f.Property) > 0 {
				location += "." + f.PropertyPath()
			}
			violations = append(violations, &awscdk.PolicyViolation{
				RuleName:     jsii.String(v.RuleName),
				Severity:     jsii.String(v.Severity),
				Description:  jsii.String(v.Description),
				Fix:          jsii.String(v.Fix),
				RuleMetadata: &map[string]*string{"title": jsii.String(v.Title), "helpUri": jsii.String(v.HelpURI)},
				ViolatingResources: &[]*awscdk.PolicyViolatingResource{{
					ResourceLogicalId: jsii.String(f.LogicalID),
					TemplatePath:      jsii.String(f.Template),
					Locations:         jsii.Strings(location),
				}},
			})
		}
	}
	return &awscdk.PolicyValidationPluginReport{Success: jsii.Bool(success), Violations: &violations}
}

// Acknowledge records, on scope, that the findings of rule ruleID on scope's
// resources (and its children's) are known and accepted for reason, as
// cdk-nag's suppressions are: in the cloud assembly, where the check reads
// it. It refuses an unknown rule, a rule that may not be acknowledged and a
// reason under MinReasonLength characters, at once.
func Acknowledge(scope constructs.IConstruct, ruleID, reason string) error {
	if err := ValidateAcknowledgement(ruleID, reason); err != nil {
		return &AcknowledgementError{Source: "Acknowledge", Where: *scope.Node().Path(), Rule: ruleID, Err: err}
	}
	scope.Node().AddMetadata(jsii.String(AcknowledgeMetadataType), map[string]any{"rule": ruleID, "reason": strings.TrimSpace(reason)}, nil)
	return nil
}

// Findings returns the findings of the last run.
func (p *Plugin) Findings() Findings {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.result == nil {
		return nil
	}
	return append(Findings(nil), p.result.Findings...)
}

// Stores returns the stores the last run found.
func (p *Plugin) Stores() []Store {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.result == nil {
		return nil
	}
	return append([]Store(nil), p.result.Stores...)
}

// TimingsEnv names a file the plugin appends each check's wall seconds to,
// one line a run (tools/bench-check divides it by the synth's own time, both
// from one run, so machine noise hits both sides alike). Unset, nothing is
// written.
const TimingsEnv = "ERASURECHECK_TIMINGS"

func recordTiming(d time.Duration) {
	path := os.Getenv(TimingsEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return // a diagnostic only: the check's result does not depend on it
	}
	defer f.Close()
	fmt.Fprintf(f, "%.4f\n", d.Seconds())
}
