package erasure

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// validation hands a construct's problems to CDK: synth fails with every
// line of the list, each naming the construct path, the property, the value
// and the cap.
type validation struct{ lines []string }

// problemsValidation is the validation of problems.
func problemsValidation(problems problem.List) *validation {
	return &validation{lines: problems.Refusals()}
}

// Validate implements constructs.IValidation.
func (v *validation) Validate() *[]*string {
	out := make([]*string, len(v.lines))
	for i := range v.lines {
		out[i] = &v.lines[i]
	}
	return &out
}

// wholeSeconds reads d as whole seconds (plan.WholeSeconds). ok is false,
// with a problem added, for an unresolved token or a fraction of a second.
func wholeSeconds(l *problem.List, path problem.Path, d awscdk.Duration) (int, bool) {
	return plan.WholeSeconds(l, path, durationFact(d))
}
