// The empty CDK app of internal/synthfloor, in TypeScript: tools/bench-synth
// times the two side by side (the fixed cost of a Go CDK app's jsii kernel).
import * as cdk from "aws-cdk-lib";

new cdk.App().synth();
