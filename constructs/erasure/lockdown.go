package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
	"github.com/linn-cloud/erasure-channel/contract/problem"

	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// locked is a resource and its plan.Locked: administrators alone may take
// an action off the data path, and each data-path action only the
// principals of its path (channelpolicy).
type locked struct {
	*plan.Locked
	resource any
}

func lockedQueue(q awssqs.Queue) *locked {
	return &locked{plan.LockedResource("", *q.QueueArn()), q}
}

func lockedTopic(t awssns.Topic) *locked {
	return &locked{plan.LockedResource("", *t.TopicArn()), t}
}

func lockedKey(k awskms.Key) *locked { return &locked{plan.LockedKey(""), k} }

func lockedBucket(b awss3.Bucket) *locked {
	return &locked{plan.LockedResource("", *b.BucketArn(), *b.ArnForObjects(jsii.String("*"))), b}
}

// applyLocks hands each of ls's pending metadata and statements to the
// applier, in order, in one call.
func applyLocks(ls ...*locked) {
	h := newHandover(nil)
	for _, l := range ls {
		lock := l.Lock()
		lock.Resource = h.name(l.resource)
		h.design.Locks = append(h.design.Locks, lock)
	}
	h.apply()
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
func checkPrincipalArns(l *timing.Problems, path problem.Path, arns []string, patterns bool) {
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
			l.Add(path.Index(i), timing.Invalid, "entry %d is not %s", i, what)
		}
	}
}
