package stacks

import (
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
)

// StoreStackProps configures an example store stack. Give Channel for a
// store deployed beside the channel in the same app and account, or the
// Imported ARNs for a store in another account or app.
type StoreStackProps struct {
	awscdk.StackProps
	// Name is the store's subscriber name.
	Name string
	// Channel, for a store in the channel's app and account.
	Channel *erasure.ErasureChannel
	// Imported, for a store anywhere else: the channel stack's outputs.
	Imported *ImportedChannel
	// HandlerAsset is a directory holding the handler's bootstrap (BuildHandler).
	HandlerAsset string
	// Subscriber sets the store's timing; Name, Topic, ResponseQueue and the
	// handler are filled in by the stack.
	Subscriber erasure.ErasureSubscriberProps
}

// ImportedChannel is what a store in another account needs of the channel.
type ImportedChannel struct {
	TopicArn         string
	ResponseQueueArn string
	ResponseKeyArn   string
}

// StoreStack is an example store: one ErasureSubscriber and its handler.
type StoreStack struct {
	awscdk.Stack
	Subscriber *erasure.ErasureSubscriber
	// Imported is true for a store that imports the channel by ARN (another
	// account or app): it cannot be referenced from the channel's account.
	Imported bool
	// Bitmap is true for a store with a BitmapStoreBucket attached.
	Bitmap bool
}

// NewStoreStack builds an example store stack.
func NewStoreStack(scope constructs.Construct, id string, props *StoreStackProps) *StoreStack {
	stack := awscdk.NewStack(scope, jsii.String(id), &props.StackProps)
	sp := props.Subscriber
	sp.Name = props.Name
	switch {
	case props.Channel != nil:
		sp.Topic = props.Channel.Topic
		sp.ResponseQueue = props.Channel.ResponseQueue
	case props.Imported != nil:
		sp.Topic = awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(props.Imported.TopicArn))
		sp.ResponseQueue = awssqs.Queue_FromQueueAttributes(stack, jsii.String("ErasureResponseQueue"), &awssqs.QueueAttributes{
			QueueArn: jsii.String(props.Imported.ResponseQueueArn),
			KeyArn:   jsii.String(props.Imported.ResponseKeyArn),
		})
	}
	runtime, arch := goRuntime()
	sp.HandlerProps = &awslambda.FunctionProps{
		Runtime:      runtime,
		Architecture: arch,
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(props.HandlerAsset), nil),
		Description:  jsii.String("Erasure handler of store " + props.Name),
	}
	sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &sp)
	return &StoreStack{Stack: stack, Subscriber: sub, Imported: props.Channel == nil}
}

var (
	goRuntimeOnce sync.Once
	goRuntimeVal  awslambda.Runtime
	goArchVal     awslambda.Architecture
)

// goRuntime is provided.al2023 on arm64, asked of jsii once per process.
func goRuntime() (awslambda.Runtime, awslambda.Architecture) {
	goRuntimeOnce.Do(func() {
		goRuntimeVal, goArchVal = awslambda.Runtime_PROVIDED_AL2023(), awslambda.Architecture_ARM_64()
	})
	return goRuntimeVal, goArchVal
}
