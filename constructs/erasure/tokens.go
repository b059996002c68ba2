package erasure

import (
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// isToken says whether s holds an unresolved token (plan.IsToken), without
// a round trip to the jsii kernel (a nil s holds none).
func isToken(s *string) bool { return s != nil && plan.IsToken(*s) }

// partition is ${AWS::Partition}: one token for the process (Aws.PARTITION
// is a constant of the library), read from the kernel once.
var partition = sync.OnceValue(func() string { return *awscdk.Aws_PARTITION() })

// stackEnv is the account and region of a construct's stack, as its
// templates name them (tokens for an environment-agnostic stack).
type stackEnv struct{ account, region string }

// envs holds each stack's stackEnv by the stack's jsii proxy, and by each
// construct it was asked for: every store asks for its own and the
// channel's, and each ask is round trips.
var envs sync.Map

// envOf is the stackEnv of scope's stack.
func envOf(scope constructs.IConstruct) stackEnv {
	if e, ok := envs.Load(scope); ok {
		return e.(stackEnv)
	}
	st := awscdk.Stack_Of(scope)
	e, ok := envs.Load(st)
	if !ok {
		e = stackEnv{account: *st.Account(), region: *st.Region()}
		envs.Store(st, e)
	}
	envs.Store(scope, e)
	return e.(stackEnv)
}

// seedEnv records the stackEnv of scope's stack, read in a batch.
func seedEnv(scope constructs.IConstruct, e stackEnv) { envs.Store(scope, e) }

// queueArns holds each queue's ARN by its proxy, where a batch read it.
var queueArns sync.Map

// queueArnOf is q's QueueArn, from queueArns or the kernel.
func queueArnOf(q awssqs.IQueue) string {
	if a, ok := queueArns.Load(q); ok {
		return a.(string)
	}
	return *q.QueueArn()
}

// sameStack records that c is in the stack of scope (a construct scope
// just built), so that envOf(c) asks the kernel nothing.
func sameStack(c, scope constructs.IConstruct) { envs.Store(c, envOf(scope)) }

// topicArns holds each topic's ARN by its proxy: every store of the app
// names the channel's topic several times.
var topicArns sync.Map

// topicArnOf is t's TopicArn, read from the kernel once for each topic.
func topicArnOf(t awssns.ITopic) *string {
	if a, ok := topicArns.Load(t); ok {
		return a.(*string)
	}
	a := t.TopicArn()
	topicArns.Store(t, a)
	return a
}
