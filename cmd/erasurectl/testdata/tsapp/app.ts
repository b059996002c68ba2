// A store team's CDK app in TypeScript, as such a team writes it without our
// Go constructs: the erasure channel imported by ARN, one store wired by hand
// correctly, and two broken the way a hand-rolled store breaks. The app has
// no guardrail of its own; `erasurectl check cdk.out` is the guardrail.
import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as les from "aws-cdk-lib/aws-lambda-event-sources";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subs from "aws-cdk-lib/aws-sns-subscriptions";
import * as sqs from "aws-cdk-lib/aws-sqs";

const channel = {
  topicArn: "arn:aws:sns:eu-west-1:111111111111:erasure-topic",
  responseQueueArn: "arn:aws:sqs:eu-west-1:111111111111:erasure-responses",
  responseKeyArn: "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000",
};

interface Breakage { rawOff?: boolean; noAnswerGrant?: boolean; visibility?: number }

function store(app: cdk.App, id: string, name: string, broken: Breakage = {}) {
  const stack = new cdk.Stack(app, id, { env: { account: "222222222222", region: "eu-west-1" } });
  const topic = sns.Topic.fromTopicArn(stack, "ErasureTopic", channel.topicArn);
  const responses = sqs.Queue.fromQueueAttributes(stack, "ErasureResponses", { queueArn: channel.responseQueueArn, keyArn: channel.responseKeyArn });
  const key = new kms.Key(stack, "Key", { enableKeyRotation: true });
  const retention = cdk.Duration.days(1);
  const dlq = new sqs.Queue(stack, "DeadLetters", { encryptionMasterKey: key, retentionPeriod: retention, enforceSSL: true });
  const queue = new sqs.Queue(stack, "Requests", {
    encryptionMasterKey: key, retentionPeriod: retention, enforceSSL: true,
    visibilityTimeout: cdk.Duration.seconds(broken.visibility ?? 360),
    deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },
  });
  topic.addSubscription(new subs.SqsSubscription(queue, { rawMessageDelivery: !broken.rawOff }));
  const fn = new lambda.Function(stack, "Handler", {
    runtime: lambda.Runtime.NODEJS_22_X, handler: "index.handler", timeout: cdk.Duration.seconds(60),
    code: lambda.Code.fromInline("exports.handler = async () => ({ batchItemFailures: [] })"),
    environment: {
      ERASURE_SUBSCRIBER: name, ERASURE_QUEUE_URL: queue.queueUrl, ERASURE_RESPONSE_QUEUE_URL: responses.queueUrl,
      ERASURE_PASS_TWO_DELAY_SECONDS: "300", ERASURE_BATCH_TIMEOUT_SECONDS: "60",
    },
  });
  fn.addEventSource(new les.SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
  // Only the topic's SNS and the handler send: anyone else's message would be
  // a request nobody published.
  queue.addToResourcePolicy(new iam.PolicyStatement({
    sid: "OnlyTheTopicAndTheHandlerSend", effect: iam.Effect.DENY, principals: [new iam.AnyPrincipal()],
    actions: ["sqs:SendMessage"], resources: [queue.queueArn],
    conditions: { ArnNotLike: { "aws:SourceArn": channel.topicArn, "aws:PrincipalArn": fn.role!.roleArn } },
  }));
  queue.grantSendMessages(fn); // pass two
  if (!broken.noAnswerGrant) {
    responses.grantSendMessages(fn);
  }
}

const app = new cdk.App();
store(app, "CleanStore", "orders");
store(app, "RawOffStore", "invoices", { rawOff: true });
store(app, "SilentStore", "tickets", { noAnswerGrant: true, visibility: 120 });
app.synth();
