package erasure

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// pendingLock is a resource of a construct built once per app and the
// design.LockBuilder of its lock: administrators alone may take an action
// off the data path, and each data-path action only the principals of its
// path (channelpolicy). applyLocks hands its lock to the one applier of
// designs (applier/apply.js), as the subscriber's design does.
type pendingLock struct {
	*design.LockBuilder
	resource constructs.IConstruct
}

func queueLock(q awssqs.Queue) *pendingLock {
	return &pendingLock{design.ResourceLock("", *q.QueueArn()), q}
}

func topicLock(t awssns.Topic) *pendingLock {
	return &pendingLock{design.ResourceLock("", *t.TopicArn()), t}
}

func keyLock(k awskms.Key) *pendingLock { return &pendingLock{design.KeyLock(""), k} }

func bucketLock(b awss3.Bucket) *pendingLock {
	return &pendingLock{design.ResourceLock("", *b.BucketArn(), *b.ArnForObjects(jsii.String("*"))), b}
}

// applyLocks hands ls's pending locks to the applier in one design: each
// resource's metadata entries, then its statements, in order (a queue,
// topic or bucket makes its policy on the first).
func applyLocks(ls ...*pendingLock) {
	d := design.NewDesign()
	objects := make(map[design.Name]any, len(ls))
	for i, l := range ls {
		lock := l.Build()
		lock.Resource = design.Name(fmt.Sprintf("resource%d", i))
		objects[lock.Resource] = l.resource
		d.Locks = append(d.Locks, lock)
	}
	applyDesign(d, objects)
}

// suppress suppresses cdk-nag's findings (id → reason) on each of scopes
// and their children, unless the app's context turns cdk-nag off
// (NagContextKey).
func suppress(reasons map[string]string, scopes ...constructs.IConstruct) {
	suppressRules(design.NewSuppression(reasons).Rules, scopes...)
}

// suppressRules hands cdk-nag suppressions, as the design states them, to the
// applier: cdk-nag 2's metadata and cdk-nag 3's acknowledgements on each of
// scopes and their children.
func suppressRules(rules []design.NagRule, scopes ...constructs.IConstruct) {
	if len(scopes) == 0 {
		return
	}
	s := design.Suppression{Rules: rules, UnlessContextOff: NagContextKey}
	objects := make(map[design.Name]any, len(scopes))
	for i, scope := range scopes {
		name := design.Name(fmt.Sprintf("scope%d", i))
		objects[name] = scope
		s.Scopes = append(s.Scopes, name)
	}
	d := design.NewDesign()
	d.Suppressions = []design.Suppression{s}
	applyDesign(d, objects)
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
