package erasure

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// locked is a resource of a construct built once per app and its
// plan.Locked: administrators alone may take an action off the data path,
// and each data-path action only the principals of its path
// (channelpolicy). Its statements are added with direct aws-cdk-go calls
// (applyLocks); the subscriber's go through its design.
type locked struct {
	*plan.Locked
	resource constructs.IConstruct
	add      func(awsiam.PolicyStatement) *awsiam.AddToResourcePolicyResult
}

func lockedQueue(q awssqs.Queue) *locked {
	return &locked{plan.LockedResource("", *q.QueueArn()), q, q.AddToResourcePolicy}
}

func lockedTopic(t awssns.Topic) *locked {
	return &locked{plan.LockedResource("", *t.TopicArn()), t, t.AddToResourcePolicy}
}

func lockedKey(k awskms.Key) *locked {
	return &locked{plan.LockedKey(""), k, func(s awsiam.PolicyStatement) *awsiam.AddToResourcePolicyResult {
		return k.AddToResourcePolicy(s, jsii.Bool(false))
	}}
}

func lockedBucket(b awss3.Bucket) *locked {
	return &locked{plan.LockedResource("", *b.BucketArn(), *b.ArnForObjects(jsii.String("*"))), b, b.AddToResourcePolicy}
}

// applyLocks adds each of ls's pending metadata entries to its resource's
// CloudFormation resource, then each pending statement to its policy, in
// order (a queue, topic or bucket makes its policy on the first).
func applyLocks(ls ...*locked) {
	var anyone awsiam.IPrincipal
	for _, l := range ls {
		lock := l.Lock()
		if len(lock.Metadata) > 0 {
			cfn, ok := l.resource.Node().DefaultChild().(awscdk.CfnResource)
			if !ok {
				panic(fmt.Sprintf("erasure: %s has no CloudFormation resource to carry metadata", *l.resource.Node().Path()))
			}
			for _, m := range lock.Metadata {
				cfn.AddMetadata(jsii.String(m.Key), m.Value())
			}
		}
		for _, st := range lock.Statements {
			if anyone == nil {
				anyone = awsiam.NewAnyPrincipal()
			}
			if added := l.add(policyStatement(st, anyone)); added == nil || added.StatementAdded == nil || !*added.StatementAdded {
				panic(fmt.Sprintf("erasure: %s took no statement into its policy", *l.resource.Node().Path()))
			}
		}
	}
}

// policyStatement is st, a lock's statement for every principal, as
// aws-cdk-go's PolicyStatement.
func policyStatement(st plan.Statement, anyone awsiam.IPrincipal) awsiam.PolicyStatement {
	if st.Principal == nil || !st.Principal.Any {
		panic(`erasure: a lock's statement is for every principal ("*")`)
	}
	strs := func(v *plan.Values) *[]*string {
		if v == nil {
			return nil
		}
		return jsii.Strings(v.Strings()...)
	}
	props := &awsiam.PolicyStatementProps{Sid: optional(st.Sid), Effect: awsiam.Effect_ALLOW, Principals: &[]awsiam.IPrincipal{anyone},
		Resources: strs(st.Resource), Actions: strs(st.Action), NotActions: strs(st.NotAction)}
	if st.Effect == plan.Deny {
		props.Effect = awsiam.Effect_DENY
	}
	if len(st.Condition) > 0 {
		cond := make(map[string]interface{}, len(st.Condition))
		for op, keys := range st.Condition {
			m := make(map[string]interface{}, len(keys))
			for k, v := range keys {
				m[k] = v.Value()
			}
			cond[op] = m
		}
		props.Conditions = &cond
	}
	return awsiam.NewPolicyStatement(props)
}

// suppress suppresses cdk-nag's findings (id → reason) on each of scopes
// and their children with cdk-nag's own NagSuppressions, unless the app's
// context turns cdk-nag off (NagContextKey).
func suppress(reasons map[string]string, scopes ...constructs.IConstruct) {
	suppressRules(plan.NewSuppression(reasons).Rules, scopes...)
}

// suppressRules is suppress of cdk-nag suppressions as the plan states them.
func suppressRules(rules []plan.NagRule, scopes ...constructs.IConstruct) {
	if len(scopes) == 0 || nagOff(scopes[0]) {
		return
	}
	nag := make([]*cdknag.NagPackSuppression, len(rules))
	for i, r := range rules {
		nag[i] = &cdknag.NagPackSuppression{Id: jsii.String(r.ID), Reason: jsii.String(r.Reason)}
		if r.AppliesTo != nil {
			applies := make([]interface{}, len(r.AppliesTo))
			for j, a := range r.AppliesTo {
				applies[j] = a
			}
			nag[i].AppliesTo = &applies
		}
	}
	// cdk-nag 3 reads acknowledgements through CDK's validation API, not the
	// template metadata: the same reasons, a finding of AppliesTo as cdk-nag
	// 3 names it, rule[finding] (handover/apply.js writes the same).
	var acks []*awscdk.Acknowledgment
	for _, r := range rules {
		ids := []string{r.ID}
		if r.AppliesTo != nil {
			ids = ids[:0]
			for _, a := range r.AppliesTo {
				ids = append(ids, r.ID+"["+a+"]")
			}
		}
		for _, id := range ids {
			acks = append(acks, &awscdk.Acknowledgment{Id: jsii.String(id), Reason: jsii.String(r.Reason)})
		}
	}
	for _, s := range scopes {
		cdknag.NagSuppressions_AddResourceSuppressions(s, &nag, jsii.Bool(true))
		if len(acks) > 0 {
			awscdk.Validations_Of(s).Acknowledge(acks...)
		}
	}
}

// nagOff says whether scope's app turns cdk-nag off (NagContextKey set to
// false, 0, or a string strconv.ParseBool reads as false): then nothing in
// its synth reads a suppression, and none is written.
func nagOff(scope constructs.IConstruct) bool {
	v := scope.Node().TryGetContext(jsii.String(NagContextKey))
	if v == nil {
		return false
	}
	switch fmt.Sprint(v) {
	case "0", "f", "F", "false", "False", "FALSE":
		return true
	}
	return false
}

// administratorsOr is admins when given, else the default administrators of
// scope's stack (channelpolicy.DefaultAdministrators).
func administratorsOr(scope constructs.Construct, admins []string) []string {
	if len(admins) > 0 {
		return admins
	}
	env := envOf(scope)
	return []string{channelpolicy.DefaultAdministrators(partition(), env.account, env.region)}
}

// checkPrincipalArns lists every entry of arns that is not an IAM role or
// user ARN (patterns only where patterns is true).
func checkPrincipalArns(l *problem.List, path problem.Path, arns []string, patterns bool) {
	for i, a := range arns {
		if isToken(&a) {
			continue // a reference to a role of the app
		}
		f := strings.SplitN(a, ":", 6)
		ok := len(f) == 6 && f[0] == "arn" && f[1] != "" && f[2] == "iam" && f[3] == "" &&
			(isAccountID(f[4]) || patterns && f[4] == "*") &&
			(strings.HasPrefix(f[5], "role/") || strings.HasPrefix(f[5], "user/")) && len(f[5]) > 5
		if ok && !patterns && strings.ContainsAny(a, "*?") {
			ok = false
		}
		if !ok {
			what := "an IAM role or user ARN (arn:aws:iam::<account>:role/<name>) without wildcards"
			if patterns {
				what = "an IAM role or user ARN or ARN pattern (arn:aws:iam::<account>:role/<name>)"
			}
			l.Add(path.Index(i), problem.Invalid, "entry %d is not %s", i, what)
		}
	}
}
