// Package stacks holds the erasure channel's CloudFormation stacks: the
// channel stack the account-service team deploys and the example store
// stacks, one in the channel's account and one in another account.
package stacks

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
)

// Output names of the channel stack: a store in another account or app
// imports the channel from them.
const (
	OutputTopicArn         = "ErasureTopicArn"
	OutputResponseQueueURL = "ErasureResponseQueueUrl"
	OutputResponseQueueArn = "ErasureResponseQueueArn"
	OutputResponseKeyArn   = "ErasureResponseKeyArn"
	OutputTopicKeyArn      = "ErasureTopicKeyArn"
)

// ChannelStackProps configures the channel stack.
type ChannelStackProps struct {
	awscdk.StackProps
	// Stores is the roster: the stores that may answer, by name and account.
	Stores []erasure.RosterStore
	// StoreAccounts is the older, broader form (every principal of the accounts).
	StoreAccounts []string
	// Publishers are the account service's publishing (and, by default,
	// answer-reading) principals, by ARN.
	Publishers []string
	// ResponseReaders read the answers (default: the publishers).
	ResponseReaders []string
	// TopicName and ResponseQueueName: physical names, for cross-account stores.
	TopicName         string
	ResponseQueueName string
	// OrganizationID admits the organisation's accounts instead of the roster's (ErasureChannelProps.OrganizationID).
	OrganizationID string
}

// ChannelStack deploys the erasure channel and exports what stores import.
type ChannelStack struct {
	awscdk.Stack
	Channel *erasure.ErasureChannel
}

// NewChannelStack builds the channel stack.
func NewChannelStack(scope constructs.Construct, id string, props *ChannelStackProps) *ChannelStack {
	if props == nil {
		props = &ChannelStackProps{}
	}
	stack := awscdk.NewStack(scope, jsii.String(id), &props.StackProps)
	ch := erasure.NewErasureChannel(stack, jsii.String("ErasureChannel"), &erasure.ErasureChannelProps{
		Stores:            props.Stores,
		StoreAccounts:     props.StoreAccounts,
		Publishers:        props.Publishers,
		ResponseReaders:   props.ResponseReaders,
		TopicName:         props.TopicName,
		ResponseQueueName: props.ResponseQueueName,
		OrganizationID:    props.OrganizationID,
	})
	out := func(name string, value *string, desc string) {
		awscdk.NewCfnOutput(stack, jsii.String(name), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(desc)})
	}
	out(OutputTopicArn, ch.Topic.TopicArn(), "The erasure topic: stores subscribe their queue to it")
	out(OutputResponseQueueURL, ch.ResponseQueue.QueueUrl(), "The response queue stores answer on")
	out(OutputResponseQueueArn, ch.ResponseQueue.QueueArn(), "The response queue's ARN")
	out(OutputResponseKeyArn, ch.ResponseKey.KeyArn(), "The response queue's KMS key: stores import the queue with it")
	out(OutputTopicKeyArn, ch.TopicKey.KeyArn(), "The erasure topic's KMS key: a store app's check keeps its bitmap bucket off it (erasurectl check --topic-key-arn)")
	return &ChannelStack{Stack: stack, Channel: ch}
}
