// Command synthfloor synthesizes an empty CDK app through jsii: the fixed
// cost every Go CDK app pays before its first construct (the jsii kernel's
// two Node processes, the assemblies it loads) and after its last (the
// kernel's exit). tools/bench-synth times it beside the same empty app in
// TypeScript (tools/bench/floor.ts), so that the synth figures at one store
// can be read against what no construct of this repository can change.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	defer jsii.Close()
	awscdk.NewApp(nil).Synth(nil)
}
