package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
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
	ruleExecutionRoleAdministers = declare(Rule{ID: "EC604", Name: "ExecutionRoleAdministersKeys", Type: problem.Missing, Source: FromAWS, Reference: "https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#prevent-unmanageable-key",
		Title: "Each KMS key's policy lets the stack's CloudFormation execution role administer it",
		Why:   "KMS refuses to create a key whose policy would not let the creating principal (CloudFormation's execution role) call kms:PutKeyPolicy: the deploy fails.",
		Fix:   "Name the synthesizer's execution role among the construct's administrators (ErasureSubscriberProps.administrators, ErasureChannelProps.administrators)."})
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
		p := &accessmodel.Principal{Principal: iameval.Principal{Aliases: []string{role}, Account: t.Account, Identity: admin}}
		f := findings{t: t}
		for _, id := range t.IDsOf("AWS::KMS::Key") {
			if made, known := a.Created(t, t.Resources[id]); known && !made {
				continue
			}
			key := a.keyTarget(t, cfnmodel.GetAtt(id, "Arn"), "")
			if key == nil {
				continue
			}
			v := a.context().Decide(p, "kms:PutKeyPolicy", key)
			if v.Decision == iameval.Undecided && v.Cause == iameval.CauseStatement {
				// Not known before the deploy: the team's to acknowledge, never a silent pass.
				f.add(ruleCallUndecided, id, problem.Root("Key").Key(t.Stack+"/"+id).Child("administrators"), props("KeyPolicy"),
					"whether the stack's CloudFormation execution role (%s) may call kms:PutKeyPolicy on key %s, as KMS requires to create it, is not known at synth (%s); give the check what decides it (--organization-id, --ou) or acknowledge EC326 with a reason", role, id, v.Because)
			}
			if v.Decision == iameval.Denied {
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
