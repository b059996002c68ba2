package erasure

import (
	"math"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// validation hands a construct's problems to CDK: synth fails with every
// line of the list, each naming the construct path, the property, the value
// and the cap.
type validation struct{ problems timing.Problems }

// Validate implements constructs.IValidation.
func (v *validation) Validate() *[]*string {
	lines := v.problems.Strings()
	out := make([]*string, len(lines))
	for i := range lines {
		out[i] = &lines[i]
	}
	return &out
}

// wholeSeconds reads d as whole seconds. ok is false, with a problem added,
// for an unresolved token or a fraction of a second.
func wholeSeconds(l *timing.Problems, path string, d awscdk.Duration) (int, bool) {
	if u := d.IsUnresolved(); u != nil && *u {
		l.Add(path, timing.UnresolvedToken, "a token cannot be checked against its cap at synth; give a literal duration")
		return 0, false
	}
	ms := *d.ToMilliseconds(nil)
	if ms != math.Trunc(ms) || math.Mod(ms, 1000) != 0 {
		l.Add(path, timing.Invalid, "%g ms is not a whole number of seconds", ms)
		return 0, false
	}
	return int(ms / 1000), true
}

// wholeNumber reads n as a whole number. ok is false, with a problem added,
// for an unresolved token or a fraction.
func wholeNumber(l *timing.Problems, path string, n float64) (int, bool) {
	if u := awscdk.Token_IsUnresolved(n); u != nil && *u {
		l.Add(path, timing.UnresolvedToken, "a token cannot be checked against its cap at synth; give a literal number")
		return 0, false
	}
	if n != math.Trunc(n) {
		l.Add(path, timing.Invalid, "%g is not a whole number", n)
		return 0, false
	}
	return int(n), true
}

// overrideSeconds sets *dst from d when d is given and reads as whole seconds.
func overrideSeconds(l *timing.Problems, path string, d awscdk.Duration, dst *int) {
	if d == nil {
		return
	}
	if v, ok := wholeSeconds(l, path, d); ok {
		*dst = v
	}
}

// overrideNumber sets *dst from n when n is given and is a whole number.
func overrideNumber(l *timing.Problems, path string, n *float64, dst *int) {
	if n == nil {
		return
	}
	if v, ok := wholeNumber(l, path, *n); ok {
		*dst = v
	}
}
