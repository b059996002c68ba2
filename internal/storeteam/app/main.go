// Command app is the store team's CDK app of the README: `cdk synth` in
// internal/storeteam runs it. Its stacks are storeteam's cases, most of them
// broken on purpose: its synth fails with every refusal line.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/internal/storeteam"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	storeteam.Install(app) // the one line: awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(...))
	storeteam.Build(app, storeteam.Cases())
	app.Synth(nil)
}
