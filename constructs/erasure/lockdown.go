package erasure

import (
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// A locked resource: the resource, the ARNs a statement names it by, and
// what apply hands the kernel for it (handover.go): its metadata entries and
// its statements, in order. Every channel resource is locked the same way:
// administrators alone may take an action off the data path, and each
// data-path action only the principals of its path (channelpolicy).
type locked struct {
	resource  constructs.IConstruct
	key       bool // a KMS key: its statements go to its key policy
	resources []string
	metadata  []any // [key, value] pairs
	pending   []any // statements, as IAM JSON
}

func lockedQueue(q awssqs.Queue) *locked {
	return &locked{resource: q, resources: []string{queueArnOf(q)}}
}

func lockedTopic(t awssns.Topic) *locked {
	return &locked{resource: t, resources: []string{*topicArnOf(t)}}
}

func lockedKey(k awskms.Key) *locked {
	// In a key policy, "*" is this key.
	return &locked{resource: k, key: true, resources: []string{"*"}}
}

func lockedBucket(b awss3.Bucket) *locked {
	return &locked{resource: b, resources: []string{*b.BucketArn(), *b.ArnForObjects(jsii.String("*"))}}
}

// op is what apply hands the kernel: the metadata, then each pending
// statement through the resource's AddToResourcePolicy (CDK creates a
// queue's, topic's or bucket's policy on the first). It empties pending.
func (l *locked) op() map[string]any {
	op := map[string]any{"op": "lock", "resource": l.resource, "key": l.key, "metadata": l.metadata, "statements": l.pending}
	if l.metadata == nil {
		op["metadata"] = []any{}
	}
	if l.pending == nil {
		op["statements"] = []any{}
	}
	l.metadata, l.pending = nil, nil
	return op
}

// apply hands the pending metadata and statements to the kernel, in one call.
func (l *locked) apply() { handOver(l.op()) }

// applyAll applies each of ls, in order, in one call.
func applyAll(ls ...*locked) {
	ops := make([]map[string]any, len(ls))
	for i, l := range ls {
		ops[i] = l.op()
	}
	handOver(ops...)
}

// mark adds a metadata entry to the resource's CfnResource (on apply,
// after those before it).
func (l *locked) mark(key string, value any) { l.metadata = append(l.metadata, []any{key, value}) }

// anyPrincipal is "*": one jsii object for every statement of the process
// that the Go code still builds itself (each NewAnyPrincipal is a round trip).
var anyPrincipal = sync.OnceValue(func() awsiam.IPrincipal { return awsiam.NewAnyPrincipal() })

// deny adds a Deny for every principal, of actions (or, with notActions, of
// every action but those), when every condition holds (on apply).
func (l *locked) deny(sid string, actions, notActions []string, conditions map[string]any) {
	st := map[string]any{"Sid": sid, "Effect": "Deny", "Principal": "*", "Resource": anyList(l.resources)}
	if notActions != nil {
		st["NotAction"] = anyList(notActions)
	} else {
		st["Action"] = anyList(actions)
	}
	if len(conditions) > 0 {
		st["Condition"] = conditions
	}
	l.pending = append(l.pending, st)
}

// allow adds an Allow for every principal, of actions, when every condition
// holds (on apply): the admissions other locks then narrow.
func (l *locked) allow(sid string, actions []string, conditions map[string]any) {
	st := map[string]any{"Sid": sid, "Effect": "Allow", "Principal": "*", "Resource": anyList(l.resources), "Action": anyList(actions)}
	if len(conditions) > 0 {
		st["Condition"] = conditions
	}
	l.pending = append(l.pending, st)
}

// administeredBy marks the resource as of kind and lets only admins take
// an action outside data (the resource's data-path actions).
func (l *locked) administeredBy(kind channelpolicy.Kind, admins []string, data []string) {
	l.mark(channelpolicy.KindMetadataKey, string(kind))
	l.mark(channelpolicy.AdministratorsMetadataKey, anyList(admins))
	l.deny("OnlyAdministratorsAdminister", nil, data, notLike(admins))
}

// onlyFrom denies actions to every principal whose ARN is not one of
// principals, unless (for a service acting for one of sources) the request's
// aws:SourceArn is one of sources.
func (l *locked) onlyFrom(sid string, actions, principals, sources []string) {
	cond := map[string]any{"ArnNotLike": map[string]any{"aws:PrincipalArn": anyList(principals)}}
	if len(sources) > 0 {
		cond["ArnNotLike"].(map[string]any)["aws:SourceArn"] = anyList(sources)
	}
	l.deny(sid, actions, nil, cond)
}

// noOne denies actions to every principal.
func (l *locked) noOne(sid string, actions []string) { l.deny(sid, actions, nil, nil) }

func notLike(arns []string) map[string]any {
	return map[string]any{"ArnNotLike": map[string]any{"aws:PrincipalArn": anyList(arns)}}
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
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
func checkPrincipalArns(l *timing.Problems, path string, arns []string, patterns bool) {
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
			l.Add(fmt.Sprintf("%s[%d]", path, i), timing.Invalid, "entry %d is not %s", i, what)
		}
	}
}
