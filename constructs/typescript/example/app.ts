// A store team's CDK app in TypeScript on the erasure-channel-constructs
// package: the erasure channel imported by ARN from the channel stack's
// outputs (another account), one store, its NOT_APPLICABLE alarm. Its CI runs
// `erasurectl check cdk.out` after `cdk synth` (the README's store-team path).
// HANDLER_ASSET is the directory holding the handler's bootstrap
// (GOOS=linux GOARCH=arm64 go build -tags lambda.norpc -o build/handler/bootstrap).
import * as cdk from "aws-cdk-lib";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { ErasureSubscriber } from "erasure-channel-constructs";

// The channel stack's outputs (ErasureTopicArn, ErasureResponseQueueArn, ErasureResponseKeyArn).
const channel = {
  topicArn: "arn:aws:sns:eu-west-1:111111111111:erasure-topic",
  responseQueueArn: "arn:aws:sqs:eu-west-1:111111111111:erasure-responses",
  responseKeyArn: "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000",
};

const app = new cdk.App();
const stack = new cdk.Stack(app, "OrdersStore", { env: { account: "222222222222", region: "eu-west-1" } });
const orders = new ErasureSubscriber(stack, "ErasureSubscriber", {
  name: "orders",
  topic: sns.Topic.fromTopicArn(stack, "ErasureTopic", channel.topicArn),
  responseQueue: sqs.Queue.fromQueueAttributes(stack, "ErasureResponses", { queueArn: channel.responseQueueArn, keyArn: channel.responseKeyArn }),
  handlerProps: {
    runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64, handler: "bootstrap",
    code: lambda.Code.fromAsset(process.env.HANDLER_ASSET ?? "build/handler"),
  },
  // Optional, each at most its cap: handlerTimeout, passTwoDelay, batchTimeout, maxReceiveCount, batchSize.
  handlerTimeout: cdk.Duration.seconds(30),
});
orders.addNotApplicableAlarm("NotApplicableAlarm", 10);
app.synth();
