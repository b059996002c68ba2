// A store team's app under cdk-nag 3 (test/cdknag3_test.go): every pack as
// a CDK policy validation plugin over ErasureSubscriber's own resources, whose
// justified findings the construct acknowledges through CDK's Validations
// (cdk-nag 3 reads nothing else). NAG=off turns the construct's suppressions
// off (its erasure:nag context), to show that they are what passes.
import * as cdk from "aws-cdk-lib";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { ErasureSubscriber } from "erasure-channel-constructs";
import { AwsSolutionsChecks, ServerlessChecks, NIST80053R5Checks, HIPAASecurityChecks, PCIDSS321Checks } from "cdk-nag";

const app = new cdk.App({ outdir: process.env.OUT ?? "cdk.out", context: process.env.NAG === "off" ? { "erasure:nag": false } : {} });
for (const Pack of [AwsSolutionsChecks, ServerlessChecks, NIST80053R5Checks, HIPAASecurityChecks, PCIDSS321Checks]) {
  cdk.Validations.of(app).addPlugins(new Pack(app));
}
const stack = new cdk.Stack(app, "OrdersStore", { env: { account: "222222222222", region: "eu-west-1" } });
new ErasureSubscriber(stack, "ErasureSubscriber", {
  name: "orders",
  topic: sns.Topic.fromTopicArn(stack, "ErasureTopic", "arn:aws:sns:eu-west-1:111111111111:erasure-topic"),
  responseQueue: sqs.Queue.fromQueueAttributes(stack, "ErasureResponses", {
    queueArn: "arn:aws:sqs:eu-west-1:111111111111:erasure-responses",
    keyArn: "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000",
  }),
  handlerProps: { runtime: lambda.Runtime.NODEJS_24_X, handler: "index.handler", code: lambda.Code.fromAsset(process.env.HANDLER_ASSET ?? "handler") },
});
try {
  app.synth();
  console.log("synth passed");
} catch (e) {
  console.log(String(e.message));
  process.exitCode = 1;
}
