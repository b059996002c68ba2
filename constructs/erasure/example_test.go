package erasure_test

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
)

// A store beside the channel: the subscriber derives its queue's visibility
// timeout (6 x T), its receive count and retention from the channel
// constants, and refuses to synthesize past a cap.
func ExampleNewErasureSubscriber() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(dir)})
	channel := erasure.NewErasureChannel(awscdk.NewStack(app, jsii.String("Channel"), nil), jsii.String("ErasureChannel"), nil)
	store := awscdk.NewStack(app, jsii.String("Store"), nil)
	erasure.NewErasureSubscriber(store, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
		Name:          "space",
		Topic:         channel.Topic,
		ResponseQueue: channel.ResponseQueue,
		HandlerProps: &awslambda.FunctionProps{
			Runtime: awslambda.Runtime_NODEJS_22_X(),
			Handler: jsii.String("index.handler"),
			Code:    awslambda.Code_FromInline(jsii.String("exports.handler = async () => ({ batchItemFailures: [] })")),
		},
	})
	tpl := app.Synth(nil).GetStackByName(jsii.String("Store")).Template().(map[string]any)
	for _, r := range tpl["Resources"].(map[string]any) {
		res := r.(map[string]any)
		props, _ := res["Properties"].(map[string]any)
		switch res["Type"] {
		case "AWS::Lambda::Function":
			fmt.Println("handler timeout:", props["Timeout"])
		case "AWS::SQS::Queue":
			if rp, ok := props["RedrivePolicy"].(map[string]any); ok {
				fmt.Println("visibility timeout:", props["VisibilityTimeout"], "max receives:", rp["maxReceiveCount"])
			}
		}
	}
	// Unordered output:
	// handler timeout: 60
	// visibility timeout: 360 max receives: 5
}
