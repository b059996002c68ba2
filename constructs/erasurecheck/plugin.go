package erasurecheck

import (
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// Plugin is the check as a CDK policy validation plugin: CDK runs it over the
// synthesized templates, and synth fails with one violation per problem,
// whose description is the same path/type/value/cap line ErasureSubscriber
// gives. Chosen over an Aspect because it judges what CloudFormation will
// deploy (L1 resources, escape hatches, overrides) and reuses the template
// reader the local channel and erasurectl use.
type Plugin struct {
	cfg Config

	mu       sync.Mutex
	problems timing.Problems
	stores   []Store
	err      error
}

// NewPlugin returns the app-wide check; add it to an app (or stage) with
// awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(cfg)).
func NewPlugin(cfg Config) *Plugin { return &Plugin{cfg: cfg} }

// Name implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Name() *string { return jsii.String("erasure-channel") }

// Version implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Version() *string { return jsii.String("1") }

// RuleIds implements awscdk.IPolicyValidationPlugin: the problem types.
func (p *Plugin) RuleIds() *[]*string {
	return jsii.Strings(string(timing.AboveCap), string(timing.BelowMinimum), string(timing.NotDerived),
		string(timing.FIFO), string(timing.Invalid), string(timing.BreaksTiming), string(timing.BreaksErasure),
		string(timing.Missing), string(timing.ConfusedDeputy))
}

// Validate implements awscdk.IPolicyValidationPlugin.
func (p *Plugin) Validate(ctx awscdk.IPolicyValidationContext) *awscdk.PolicyValidationPluginReport {
	var paths []string
	for _, s := range *ctx.TemplatePaths() {
		paths = append(paths, *s)
	}
	stores, problems, err := check(paths, p.cfg)
	p.mu.Lock()
	p.stores, p.problems, p.err = stores, problems, err
	p.mu.Unlock()
	violations := []*awscdk.PolicyViolation{}
	if err != nil {
		violations = append(violations, &awscdk.PolicyViolation{RuleName: jsii.String(string(timing.Invalid)),
			Description: jsii.String(err.Error()), ViolatingResources: &[]*awscdk.PolicyViolatingResource{}})
	}
	for _, pr := range problems {
		violations = append(violations, &awscdk.PolicyViolation{
			RuleName:           jsii.String(string(pr.Type)),
			Description:        jsii.String(pr.String()),
			ViolatingResources: &[]*awscdk.PolicyViolatingResource{},
		})
	}
	return &awscdk.PolicyValidationPluginReport{Success: jsii.Bool(len(violations) == 0), Violations: &violations}
}

// Problems returns the problems of the last run, one line each.
func (p *Plugin) Problems() timing.Problems {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append(timing.Problems(nil), p.problems...)
}

// Stores returns the stores the last run found.
func (p *Plugin) Stores() []Store {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Store(nil), p.stores...)
}
