package erasuretest_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
)

// A store team's test (in its own _test.go file, as TestMyStore): it fails
// with every line CDK would refuse the team's stacks with, the channel's
// caps and wiring, the CloudFormation validator's and cdk-nag's findings
// included. The example is compiled, not run: it needs a *testing.T.
func ExampleSynth() {
	testMyStore := func(t *testing.T) {
		const topicArn = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
		res := erasuretest.Synth(t, erasuretest.Options{TopicArns: []string{topicArn}}, func(app awscdk.App) {
			stack := awscdk.NewStack(app, jsii.String("MyStore"), nil)
			topic := awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(topicArn))
			_ = topic // build the store's queue, subscription and handler here
		})
		if len(res.Stores) != 1 {
			t.Errorf("the check found %d stores, want 1", len(res.Stores))
		}
	}
	_ = testMyStore
}
