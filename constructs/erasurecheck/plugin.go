//go:build !wasip1

package erasurecheck

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// PluginName is the name CDK's validation report shows for the check; its
// rules are acknowledged (never, see Severity) as "erasure-channel::<Type>".
const PluginName = "erasure-channel"

// Severity of every violation: "fatal", which CDK reports as an error that
// Validations.of(...).acknowledge cannot suppress. A store that breaks the
// channel does not deploy, whatever its app acknowledges.
const Severity = "fatal"

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

// RuleIds implements awscdk.IPolicyValidationPlugin: the problem types.
func (p *Plugin) RuleIds() *[]*string {
	return jsii.Strings(string(timing.AboveCap), string(timing.BelowMinimum), string(timing.NotDerived),
		string(timing.UnresolvedToken), string(timing.FIFO), string(timing.Invalid), string(timing.BreaksTiming),
		string(timing.BreaksErasure), string(timing.Missing), string(timing.ConfusedDeputy))
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
// naming the resource by template and logical id (CDK adds the construct
// path), so the report is never empty when the check failed.
func Report(res *Result, err error) *awscdk.PolicyValidationPluginReport {
	violations := []*awscdk.PolicyViolation{}
	if err != nil {
		// No template to point at: name the app itself, so CDK still renders it.
		violations = append(violations, &awscdk.PolicyViolation{
			RuleName: jsii.String(string(timing.Invalid)), Severity: jsii.String(Severity),
			Description: jsii.String(err.Error()),
			ViolatingResources: &[]*awscdk.PolicyViolatingResource{{
				ConstructPath: jsii.String(""), Locations: jsii.Strings("Resources"), // the app itself
			}},
		})
	}
	if res != nil {
		for _, f := range res.Findings {
			violations = append(violations, &awscdk.PolicyViolation{
				RuleName:    jsii.String(string(f.Type)),
				Severity:    jsii.String(Severity),
				Description: jsii.String(f.String()),
				ViolatingResources: &[]*awscdk.PolicyViolatingResource{{
					ResourceLogicalId: jsii.String(f.LogicalID),
					TemplatePath:      jsii.String(f.Template),
					Locations:         jsii.Strings("Resources." + f.LogicalID),
				}},
			})
		}
	}
	return &awscdk.PolicyValidationPluginReport{Success: jsii.Bool(len(violations) == 0), Violations: &violations}
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
