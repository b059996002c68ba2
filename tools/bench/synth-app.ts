// The plain TypeScript twin of the Go CDK app for tools/bench-synth: a
// channel stack and STORES store stacks with the same resources as
// ErasureChannel and ErasureSubscriber (keys, topic, queues, subscription,
// log group, role, function from the same asset, event source, alarms), no
// cdk-nag (the Go run turns it off too). Run with Node 22's type stripping.
import * as cdk from "aws-cdk-lib";
import * as cw from "aws-cdk-lib/aws-cloudwatch";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as les from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subs from "aws-cdk-lib/aws-sns-subscriptions";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { readFileSync } from "node:fs";

const constants = JSON.parse(readFileSync(new URL("../../schema/erasure-channel-constants.json", import.meta.url), "utf8")).constants;
const v = (name: string): number => constants[name].value;
const T = v("handlerTimeoutCapSeconds");
const N = v("maxReceiveCount");
const retention = cdk.Duration.seconds(v("queueRetentionSeconds"));

function alarm(scope: Construct, id: string, metric: cw.IMetric, threshold: number) {
  return new cw.Alarm(scope, id, { metric, threshold, evaluationPeriods: 1,
    comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, treatMissingData: cw.TreatMissingData.NOT_BREACHING });
}

class Channel extends Construct {
  readonly topic: sns.Topic;
  readonly responseQueue: sqs.Queue;
  constructor(scope: Construct, id: string, roster: string[]) {
    super(scope, id);
    const topicKey = new kms.Key(this, "TopicKey", { enableKeyRotation: true });
    this.topic = new sns.Topic(this, "Topic", { masterKey: topicKey, enforceSSL: true });
    const responseKey = new kms.Key(this, "ResponseKey", { enableKeyRotation: true });
    const dlq = new sqs.Queue(this, "ResponseDeadLetterQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey, enforceSSL: true, retentionPeriod: retention });
    this.responseQueue = new sqs.Queue(this, "ResponseQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey, enforceSSL: true,
      retentionPeriod: retention, deadLetterQueue: { queue: dlq, maxReceiveCount: N } });
    alarm(this, "ResponseDeadLetterAlarm", dlq.metricApproximateNumberOfMessagesVisible(), 1);
    alarm(this, "OldestResponseAlarm", this.responseQueue.metricApproximateAgeOfOldestMessage(), v("expiryPeriodSeconds"));
    // The roster: only its handlers answer.
    const roles = roster.map((n) => `arn:${cdk.Aws.PARTITION}:iam::${cdk.Stack.of(this).account}:role/erasure-handler-${n}`);
    this.responseQueue.addToResourcePolicy(new iam.PolicyStatement({ sid: "OnlyRosterHandlersAnswer", effect: iam.Effect.DENY,
      actions: ["sqs:SendMessage"], principals: [new iam.AnyPrincipal()], resources: [this.responseQueue.queueArn],
      conditions: { ArnNotLike: { "aws:PrincipalArn": roles } } }));
    alarm(this, "RefusedAnswersAlarm", new cw.Metric({ namespace: "ErasureChannel", metricName: "ErasureAnswersRefused",
      dimensionsMap: { Code: "SENDER_NOT_ON_ROSTER" }, statistic: "Sum" }), 1);
  }
}

class Subscriber extends Construct {
  constructor(scope: Construct, id: string, name: string, channel: Channel, asset: string) {
    super(scope, id);
    const key = new kms.Key(this, "Key", { enableKeyRotation: true });
    const dlq = new sqs.Queue(this, "DeadLetterQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention });
    const queue = new sqs.Queue(this, "Queue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention,
      visibilityTimeout: cdk.Duration.seconds(v("visibilityTimeoutMultiplier") * T), deadLetterQueue: { queue: dlq, maxReceiveCount: N } });
    channel.topic.addSubscription(new subs.SqsSubscription(queue, { rawMessageDelivery: true }));
    const logGroup = new logs.LogGroup(this, "HandlerLogs", { retention: logs.RetentionDays.ONE_MONTH });
    const role = new iam.Role(this, "HandlerRole", { assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"), roleName: `erasure-handler-${name}` });
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }));
    const fn = new lambda.Function(this, "Handler", { functionName: `erasure-handler-${name}`, runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64, handler: "bootstrap",
      code: lambda.Code.fromAsset(asset), timeout: cdk.Duration.seconds(T), role, logGroup,
      environment: { ERASURE_SUBSCRIBER: name, ERASURE_QUEUE_URL: queue.queueUrl, ERASURE_RESPONSE_QUEUE_URL: channel.responseQueue.queueUrl,
        ERASURE_PASS_TWO_DELAY_SECONDS: String(v("passTwoDelayCapSeconds")), ERASURE_BATCH_TIMEOUT_SECONDS: String(v("batchTimeoutCapSeconds")) } });
    fn.addEventSource(new les.SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
    for (const q of [channel.responseQueue, queue]) {
      q.grant(fn, "sqs:SendMessage");
      q.encryptionMasterKey?.grant(fn, "kms:GenerateDataKey", "kms:Decrypt");
    }
    queue.addToResourcePolicy(new iam.PolicyStatement({ sid: "OnlyTheHandlerConsumes", effect: iam.Effect.DENY,
      actions: ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"], principals: [new iam.AnyPrincipal()],
      resources: [queue.queueArn], conditions: { ArnNotEquals: { "aws:PrincipalArn": role.roleArn } } }));
    alarm(this, "DeadLetterAlarm", dlq.metricApproximateNumberOfMessagesVisible(), 1);
    alarm(this, "OldestMessageAlarm", queue.metricApproximateAgeOfOldestMessage(), 2 * ((N - 1) * 6 * T + T) + v("passTwoDelayCapSeconds"));
  }
}

const stores = Number(process.env.STORES ?? "1");
const asset = process.env.HANDLER_ASSET;
if (!asset) throw new Error("HANDLER_ASSET is required");
const app = new cdk.App();
const env = { account: "111111111111", region: "eu-west-1" };
const channelStack = new cdk.Stack(app, "ErasureChannel", { env });
const names = Array.from({ length: stores }, (_, i) => `store-${String(i + 1).padStart(3, "0")}`);
const channel = new Channel(channelStack, "ErasureChannel", names);
for (let i = 1; i <= stores; i++) {
  const id = String(i).padStart(3, "0");
  new Subscriber(new cdk.Stack(app, `Store${id}`, { env }), "ErasureSubscriber", `store-${id}`, channel, asset);
}
app.synth();
