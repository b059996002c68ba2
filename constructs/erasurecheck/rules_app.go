package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The app family: rules judged once over the whole app, not per store.
var (
	ruleTransform = declare(Rule{ID: "EC601", Name: "NoTemplateTransform", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "No template declares a macro",
		Why:   "CloudFormation expands a Transform (SAM, AWS::LanguageExtensions, an account's own macro) at deploy: what deploys is not what the check reads, so a store could be missed or judged wrongly.",
		Fix:   "Check the processed template (aws cloudformation get-template --template-stage Processed, or SAM's translator); acknowledge it here with where the processed template is checked."})
	rulePolicyQuota = declare(Rule{ID: "EC602", Name: "ResourcePolicyQuota", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html",
		Title: "Every resource policy fits its service's size and statement quotas",
		Why:   "CloudFormation's deploy fails on a policy past its quota.",
		Fix:   "Split the policy, or grant through identity policies."})
	ruleServiceQuota = declare(Rule{ID: "EC603", Name: "ServiceQuota", Type: problem.Invalid, Source: FromAWS, Reference: "erasurectl check --quotas lists each quota with its AWS source",
		Title: "Every template, function, dashboard and parameter fits the quota AWS applies to it",
		Why:   "CloudFormation or the service refuses it at deploy (a template past 1 MB or 500 resources, a Lambda environment past 4 KB, ...).",
		Fix:   "Split the stack or shrink the value; erasurectl check --quotas shows the largest use of each quota."})
	ruleAccessNeeded = declare(Rule{ID: "EC611", Name: "AccessNeededAllowed", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel needs is allowed",
		Why:   "The data path fails at run time: a delivery, a read, an answer or a key use is denied.",
		Fix:   "Restore the grant the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessWidened = declare(Rule{ID: "EC612", Name: "AccessOthersDenied", Type: problem.BreaksErasure, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel must deny is denied",
		Why:   "A widened policy lets another principal publish an ERASE, send a forged request, answer for a store or use its key.",
		Fix:   "Narrow the policy the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessJudgeable = declare(Rule{ID: "EC613", Name: "AccessJudgeable", Type: problem.Invalid, Source: FromCheck, Reference: "docs/lockdown-and-access.md",
		Title: "Every policy on the channel's resources can be judged",
		Why:   "A condition operator or key the evaluator does not model leaves a cell undecided, and an undecided lockdown is not a lockdown.",
		Fix:   "Use the condition operators the channel's policies use, or leave the statement out."})
	ruleDeclaredPublishers = declare(Rule{ID: "EC614", Name: "DeclaredPublishers", Type: problem.Missing, Source: FromLockdown, Reference: "ErasureChannelProps.Publishers",
		Title: "The channel declares its publishers",
		Why:   "Without declared publishers any principal of the channel's account that may sns:Publish can publish an ERASE every store obeys.",
		Fix:   "Set ErasureChannelProps.Publishers."})
	ruleExecutionRoleAdministers = declare(Rule{ID: "EC604", Name: "ExecutionRoleAdministersKeys", Type: problem.Missing, Source: FromAWS, Reference: "https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#prevent-unmanageable-key",
		Title: "Each KMS key's policy lets the stack's CloudFormation execution role administer it",
		Why:   "KMS refuses to create a key whose policy would not let the creating principal (CloudFormation's execution role) call kms:PutKeyPolicy: the deploy fails.",
		Fix:   "Name the synthesizer's execution role among the construct's administrators (ErasureSubscriberProps.administrators, ErasureChannelProps.administrators)."})
	ruleStaleAcknowledgement = declare(Rule{ID: "EC001", Name: "AcknowledgementMatches", Type: problem.Invalid, Severity: SeverityWarning, Source: FromCheck, Acknowledgeable: true,
		Title: "Every acknowledgement matches a finding",
		Why:   "An acknowledgement that matches nothing is stale: the finding it answered is gone, or it names the wrong rule or resource, and it would silently cover a later one.",
		Fix:   "Remove the acknowledgement, or point it at the finding's rule and resource; or acknowledge EC001 on the scope that keeps it on purpose."})
)

// checkTransforms: a template that declares a macro (SAM's
// AWS::Serverless-2016-10-31, AWS::LanguageExtensions, an account's own) is
// expanded by CloudFormation at deploy, so what it deploys is not what the
// check reads: an UnresolvedToken line, never a store silently missed or a
// correct one refused.
func (a *assembly) checkTransforms() Findings {
	var out Findings
	for _, t := range a.Templates {
		f := findings{t: t}
		for _, tr := range t.Transforms {
			f.add(ruleTransform, "", problem.Root("Template").Key(t.Stack).Child("transform"), nil, "%s is expanded by CloudFormation at deploy: the check reads templates as deployed; check the processed template (aws cloudformation get-template --template-stage Processed, or SAM's translator)", tr)
		}
		out = append(out, f.out...)
	}
	return out
}

// checkExecutionRoles: KMS refuses CreateKey for a key whose policy would not
// let the creating principal call kms:PutKeyPolicy (its lockout safety
// check). CloudFormation creates a stack's keys with the stack's execution
// role (the synthesizer's cloudFormationExecutionRole, in the cloud
// assembly's manifest), so each key's policy must let that role administer
// it: a key policy whose administrator statements admit only CDK's default
// role fails the deploy under a landing zone's own role. The role is taken
// to be an administrator of its account (its identity policy allows every
// action), as an execution role is.
func (a *assembly) checkExecutionRoles() Findings {
	var out Findings
	for _, t := range a.Templates {
		role := executionRoleARN(t)
		if role == "" {
			continue
		}
		admin := iameval.Parse(map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}, nil, "the execution role's administrator access")
		p := &principal{Principal: iameval.Principal{Aliases: []string{role}, Account: t.Account, Identity: admin}}
		f := findings{t: t}
		for _, id := range t.IDsOf("AWS::KMS::Key") {
			if made, known := a.Created(t, t.Resources[id]); known && !made {
				continue
			}
			key := a.keyTarget(t, cfnmodel.GetAtt(id, "Arn"), "")
			if key == nil {
				continue
			}
			v := a.decide(p, "kms:PutKeyPolicy", key)
			if v.Decision == Undecided && v.Cause == iameval.CauseStatement {
				// Not known before the deploy: the team's to acknowledge, never a silent pass.
				f.add(ruleCallUndecided, id, problem.Root("Key").Key(t.Stack+"/"+id).Child("administrators"), props("KeyPolicy"),
					"whether the stack's CloudFormation execution role (%s) may call kms:PutKeyPolicy on key %s, as KMS requires to create it, is not known at synth (%s); give the check what decides it (--organization-id, --ou) or acknowledge EC326 with a reason", role, id, v.Because)
			}
			if v.Decision == Denied {
				f.add(ruleExecutionRoleAdministers, id, problem.Root("Key").Key(t.Stack+"/"+id).Child("administrators"), props("KeyPolicy"),
					"the key policy of %s does not let the stack's CloudFormation execution role (%s) call kms:PutKeyPolicy (%s): KMS refuses to create the key and the deploy fails", id, role, v.Because)
				if v.Explicit {
					f.fix("Add the execution role's ARN to the construct's administrators (ErasureSubscriberProps.administrators, ErasureChannelProps.administrators, BitmapStoreBucketProps.administrators), so that %s spares it.", v.Statement)
				} else {
					f.fix("Let the key policy allow the execution role kms:PutKeyPolicy, or delegate to its account; with the erasure channel's constructs, name it in administrators.")
				}
			}
		}
		out = append(out, f.out...)
	}
	return out
}

// executionRoleARN is t's stack's CloudFormation execution role as a literal
// ARN (the manifest's ${AWS::Partition}, ${AWS::AccountId} and
// ${AWS::Region} resolved from the stack's environment), "" when the
// manifest names none or it cannot be resolved.
func executionRoleARN(t *template) string {
	r := t.ExecutionRole
	if r == "" || t.Account == "" || t.Region == "" {
		return ""
	}
	r = strings.NewReplacer("${AWS::Partition}", iameval.PartitionOf(t.Region), "${AWS::AccountId}", t.Account, "${AWS::Region}", t.Region).Replace(r)
	if strings.Contains(r, "${") || !strings.HasPrefix(r, "arn:") {
		return ""
	}
	return r
}
