package erasure

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/constructrule"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// validation hands a construct's problems to CDK: synth fails with every
// line of the list, each naming the construct path, the property, the value
// and the cap.
type validation struct{ lines []string }

// problemsValidation is the validation of problems.
func problemsValidation(problems problem.List) *validation {
	problems.Name(channelRule)
	return &validation{lines: problems.Refusals()}
}

// channelRule names the rule a problem of ErasureChannel's or
// ErasureLedger's props breaks, by the prop at fault, with its fix
// (constructrule): the same id the check's catalogue lists.
func channelRule(p problem.Problem) (string, string) {
	channel, ledger := problem.Root("ErasureChannel"), problem.Root("ErasureLedger")
	at := func(q problem.Path) bool { return p.Path.String() == q.String() || p.Path.Under(q) }
	under := func(root problem.Path, fields ...string) bool {
		for _, f := range fields {
			if at(root.Child(f)) {
				return true
			}
		}
		return false
	}
	switch {
	case under(channel, "stores", "storeAccounts"):
		return constructrule.RuleChannelRoster, constructrule.FixChannelRoster
	case under(channel, "organizationId"):
		return constructrule.RuleChannelOrganisation, constructrule.FixChannelOrganisation
	case under(channel, "publishers", "responseReaders", "administrators"):
		return constructrule.RuleChannelPrincipals, constructrule.FixChannelPrincipals
	case under(ledger, "channel"):
		return constructrule.RuleLedgerRolesDeclared, constructrule.FixLedgerRolesDeclared
	case under(ledger, "roleIds", "lingeringDays"):
		return constructrule.RuleLedgerRosterOnly, constructrule.FixLedgerRosterOnly
	case at(ledger):
		return constructrule.RuleLedgerGiven, constructrule.FixLedgerGiven
	}
	return "", ""
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
