package erasure

import (
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
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

// A locked resource: its resource policy (through add, or its document once
// it has one), the ARNs a statement names it by, and the construct its
// metadata goes on. Every channel resource is locked the same way:
// administrators alone may take an action off the data path, and each
// data-path action only the principals of its path (channelpolicy). The
// statements wait in pending until apply hands them to the policy in one
// call: each AddToResourcePolicy is four round trips to the jsii kernel
// (the call and the result's two fields), AddStatements one for them all.
type locked struct {
	add       func(awsiam.PolicyStatement)
	document  func() awsiam.PolicyDocument // nil until the resource has a policy
	resources []string
	node      constructs.IConstruct
	pending   []awsiam.PolicyStatement
	tree      constructs.Node // node's Node(), once asked
}

// nodeOf is the construct tree node of the locked resource, read once.
func (l *locked) nodeOf() constructs.Node {
	if l.tree == nil {
		l.tree = l.node.Node()
	}
	return l.tree
}

// childPolicy is the document of the policy construct CDK creates as the
// resource's "Policy" child (a queue's, a topic's), nil before it does.
func childPolicy[P interface{ Document() awsiam.PolicyDocument }](n constructs.Node) awsiam.PolicyDocument {
	if p, ok := n.TryFindChild(jsii.String("Policy")).(P); ok {
		return p.Document()
	}
	return nil
}

func lockedQueue(q awssqs.Queue) *locked {
	l := &locked{add: func(s awsiam.PolicyStatement) { q.AddToResourcePolicy(s) }, resources: []string{*q.QueueArn()}, node: q}
	l.document = func() awsiam.PolicyDocument { return childPolicy[awssqs.QueuePolicy](l.nodeOf()) }
	return l
}

func lockedTopic(t awssns.Topic) *locked {
	l := &locked{add: func(s awsiam.PolicyStatement) { t.AddToResourcePolicy(s) }, resources: []string{*t.TopicArn()}, node: t}
	l.document = func() awsiam.PolicyDocument { return childPolicy[awssns.TopicPolicy](l.nodeOf()) }
	return l
}

func lockedKey(k awskms.Key) *locked {
	// In a key policy, "*" is this key.
	return &locked{add: func(s awsiam.PolicyStatement) { k.AddToResourcePolicy(s, nil) }, resources: []string{"*"}, node: k,
		document: k.Policy}
}

func lockedBucket(b awss3.Bucket) *locked {
	return &locked{add: func(s awsiam.PolicyStatement) { b.AddToResourcePolicy(s) },
		resources: []string{*b.BucketArn(), *b.ArnForObjects(jsii.String("*"))}, node: b,
		document: func() awsiam.PolicyDocument {
			if p := b.Policy(); p != nil {
				return p.Document()
			}
			return nil
		}}
}

// apply adds the pending statements to the resource's policy, in order: the
// first through add when there is no policy yet (CDK creates it), the rest
// in one AddStatements.
func (l *locked) apply() {
	st := l.pending
	l.pending = nil
	if len(st) == 0 {
		return
	}
	doc := l.document()
	if doc == nil {
		l.add(st[0])
		if st = st[1:]; len(st) == 0 {
			return
		}
		if doc = l.document(); doc == nil {
			// No policy was created (a resource CDK keeps no policy for):
			// each statement goes as add takes it.
			for _, s := range st {
				l.add(s)
			}
			return
		}
	}
	doc.AddStatements(st...)
}

// anyPrincipal is "*": one jsii object for every statement of the process
// (each NewAnyPrincipal is a round trip to the kernel; it renders the same).
var anyPrincipal = sync.OnceValue(func() awsiam.IPrincipal { return awsiam.NewAnyPrincipal() })

// deny adds a Deny for every principal, of actions (or, with notActions, of
// every action but those), when every condition holds (on apply).
func (l *locked) deny(sid string, actions, notActions []string, conditions map[string]any) {
	p := &awsiam.PolicyStatementProps{
		Sid:        jsii.String(sid),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{anyPrincipal()},
		Resources:  jsii.Strings(l.resources...),
	}
	if notActions != nil {
		p.NotActions = jsii.Strings(notActions...)
	} else {
		p.Actions = jsii.Strings(actions...)
	}
	if len(conditions) > 0 {
		p.Conditions = &conditions
	}
	l.pending = append(l.pending, awsiam.NewPolicyStatement(p))
}

// administeredBy marks the resource as of kind and lets only admins take
// an action outside data (the resource's data-path actions).
func (l *locked) administeredBy(kind channelpolicy.Kind, admins []string, data []string) {
	res := l.nodeOf().DefaultChild().(awscdk.CfnResource)
	res.AddMetadata(jsii.String(channelpolicy.KindMetadataKey), string(kind))
	res.AddMetadata(jsii.String(channelpolicy.AdministratorsMetadataKey), anyList(admins))
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
