package erasure

import (
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
)

// isToken says whether s holds an unresolved CDK token (plan.IsToken).
func isToken(s *string) bool { return s != nil && plan.IsToken(*s) }

// partition is the token of the app's partition (Aws.PARTITION): one
// constant of aws-cdk-lib in the jsii kernel, the same for every app of the
// process, so it is asked once.
var partition = sync.OnceValue(func() string { return *awscdk.Aws_PARTITION() })

// stackEnv is a stack's account and region (tokens for an
// environment-agnostic stack).
type stackEnv struct{ account, region string }

// envOf is the account and region of scope's stack, read from the kernel.
func envOf(scope constructs.IConstruct) stackEnv {
	st := awscdk.Stack_Of(scope)
	return stackEnv{account: *st.Account(), region: *st.Region()}
}
