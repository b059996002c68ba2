// A Go CDK app whose stores are the erasure-channel-constructs package
// through the Go binding jsii-pacmak generates for it: the jsii kernel loads
// the package (its WebAssembly decisions and applier inside) as it loads
// aws-cdk-lib. The channel is the Go app's, with the same roster.
package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	ecc "github.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/stacks"
)

func main() {
	defer jsii.Close()
	asset, err := stacks.BuildHandler(stacks.ExampleHandlerPackage)
	if err != nil {
		panic(err)
	}
	app := awscdk.NewApp(nil)
	cfg, err := stacks.ConfigFromContext(app)
	if err != nil {
		panic(err)
	}
	env := &awscdk.Environment{Account: jsii.String(cfg.ChannelAccount), Region: jsii.String(cfg.Region)}
	var roster []erasure.RosterStore
	for i := 1; i <= cfg.ExtraStores; i++ {
		roster = append(roster, erasure.RosterStore{Name: fmt.Sprintf("store-%03d", i)})
	}
	ch := stacks.NewChannelStack(app, "ErasureChannel", &stacks.ChannelStackProps{
		StackProps: awscdk.StackProps{Env: env, Description: jsii.String("Erasure channel: topic, response queue, keys and alarms")},
		Stores:     roster, Publishers: []string{cfg.AccountService}, ResponseReaders: []string{cfg.AccountService},
		TopicName: stacks.TopicName, ResponseQueueName: stacks.ResponseQueueName,
	})
	for i, st := range roster {
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Store%03d", i+1)), &awscdk.StackProps{Env: env})
		ecc.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &ecc.ErasureSubscriberProps{
			Name: jsii.String(st.Name), Topic: ch.Channel.Topic, ResponseQueue: ch.Channel.ResponseQueue,
			HandlerProps: &awslambda.FunctionProps{Runtime: awslambda.Runtime_PROVIDED_AL2023(), Architecture: awslambda.Architecture_ARM_64(),
				Handler: jsii.String("bootstrap"), Code: awslambda.Code_FromAsset(jsii.String(asset), nil), Description: jsii.String("Erasure handler of store " + st.Name)},
		})
	}
	app.Synth(nil)
}
