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

const admins = (account: string) => [`arn:${cdk.Aws.PARTITION}:iam::${account}:role/cdk-*-cfn-exec-role-${account}-${cdk.Aws.REGION}`];
const publishers = ["arn:aws:iam::111111111111:role/account-service"];
const keyUse = ["kms:Decrypt", "kms:GenerateDataKey"];
const consume = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"];
const queueData = ["sqs:SendMessage", ...consume, "sqs:GetQueueAttributes"];

// deny mirrors the Go constructs' locks (constructs/erasure/lockdown.go).
function deny(add: (s: iam.PolicyStatement) => void, sid: string, resources: string[], conditions: Record<string, unknown> | undefined,
  actions: string[] | undefined, notActions?: string[]) {
  add(new iam.PolicyStatement({ sid, effect: iam.Effect.DENY, principals: [new iam.AnyPrincipal()], resources,
    ...(notActions ? { notActions } : { actions }), ...(conditions ? { conditions } : {}) }));
}
const notLike = (arns: string[], sources?: string[]) => ({ ArnNotLike: { "aws:PrincipalArn": arns, ...(sources ? { "aws:SourceArn": sources } : {}) } });

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
    alarm(this, "ConflictingAnswersAlarm", new cw.Metric({ namespace: "ErasureChannel", metricName: "ErasureAnswersConflicting",
      dimensionsMap: { Code: "CONFLICTING_ANSWER" }, statistic: "Sum" }), 1);
    // The ledger's alarms, as ErasureChannel writes them.
    const ledgerCodes = ["UNKNOWN_REQUEST", "UNKNOWN_ROUND", "WRONG_TYPE", "WRONG_KEY", "NOT_ON_ROSTER", "NOT_AN_OUTCOME"];
    const usingMetrics: Record<string, cw.IMetric> = {};
    ledgerCodes.forEach((code, i) => { usingMetrics[`r${i}`] = new cw.Metric({ namespace: "ErasureChannel", metricName: "ErasureAnswersRefused",
      dimensionsMap: { Code: code }, statistic: "Sum" }); });
    alarm(this, "LedgerRefusedAnswersAlarm", new cw.MathExpression({ expression: Object.keys(usingMetrics).join("+"), usingMetrics,
      period: cdk.Duration.minutes(5) }), 1);
    alarm(this, "ExhaustedRebroadcastsAlarm", new cw.Metric({ namespace: "ErasureChannel", metricName: "ErasureRebroadcastsExhausted",
      dimensionsMap: { Code: "EXHAUSTED" }, statistic: "Sum" }), 1);
    alarm(this, "OverdueRequestsAlarm", new cw.Metric({ namespace: "ErasureChannel", metricName: "ErasureRequestsOverdue",
      dimensionsMap: { Code: "OVERDUE" }, statistic: "Sum" }), 1);
    // The lockdown, as ErasureChannel writes it.
    const account = cdk.Stack.of(this).account, a = admins(account);
    const topic = (st: iam.PolicyStatement) => { this.topic.addToResourcePolicy(st); };
    const tk = (st: iam.PolicyStatement) => { topicKey.addToResourcePolicy(st); };
    const rq = (st: iam.PolicyStatement) => { this.responseQueue.addToResourcePolicy(st); };
    const dq = (st: iam.PolicyStatement) => { dlq.addToResourcePolicy(st); };
    const rk = (st: iam.PolicyStatement) => { responseKey.addToResourcePolicy(st); };
    const t = [this.topic.topicArn];
    deny(topic, "OnlyAdministratorsAdminister", t, notLike(a), undefined, ["sns:Publish", "sns:Subscribe"]);
    deny(topic, "OnlyPublishersPublish", t, notLike(publishers), ["sns:Publish"]);
    deny(topic, "OnlyAdministratorsSubscribe", t, notLike(a), ["sns:Subscribe"]);
    deny(topic, "SubscribeOnlySqs", t, { StringNotEquals: { "sns:Protocol": "sqs" } }, ["sns:Subscribe"]);
    deny(topic, "SubscribeOnlyRosterQueues1", t, { StringEquals: { "aws:PrincipalAccount": account },
      StringNotEquals: { "sns:Endpoint": roster.map((n) => `arn:${cdk.Aws.PARTITION}:sqs:${cdk.Aws.REGION}:${account}:erasure-requests-${n}`) } }, ["sns:Subscribe"]);
    deny(tk, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(tk, "OnlyTheDataPathUsesTheKey", ["*"], { ...notLike(publishers), Bool: { "aws:PrincipalIsAWSService": "false" } }, keyUse);
    const r = [this.responseQueue.queueArn], d = [dlq.queueArn];
    deny(rq, "OnlyAdministratorsAdminister", r, notLike(a), undefined, queueData);
    deny(rq, "OnlyReadersConsume", r, notLike(publishers), consume);
    deny(rq, "OnlyReadersAndAdministratorsReadAttributes", r, notLike([...publishers, ...a]), ["sqs:GetQueueAttributes"]);
    deny(dq, "OnlyAdministratorsAdminister", d, notLike(a), undefined, [...consume, "sqs:GetQueueAttributes"]);
    deny(dq, "NoOneSendsDeadLetters", d, undefined, ["sqs:SendMessage"]);
    deny(dq, "OnlyReadersAndAdministratorsConsume", d, notLike([...publishers, ...a]), [...consume, "sqs:GetQueueAttributes"]);
    deny(rk, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(rk, "OnlyTheDataPathUsesTheKey", ["*"], notLike([...roles, ...publishers]), keyUse);
  }
}

class Subscriber extends Construct {
  constructor(scope: Construct, id: string, name: string, channel: Channel, asset: string) {
    super(scope, id);
    const key = new kms.Key(this, "Key", { enableKeyRotation: true });
    const dlq = new sqs.Queue(this, "DeadLetterQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention });
    const queue = new sqs.Queue(this, "Queue", { queueName: `erasure-requests-${name}`, encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention,
      visibilityTimeout: cdk.Duration.seconds(v("visibilityTimeoutMultiplier") * T), deadLetterQueue: { queue: dlq, maxReceiveCount: N } });
    channel.topic.addSubscription(new subs.SqsSubscription(queue, { rawMessageDelivery: true }));
    const logGroup = new logs.LogGroup(this, "HandlerLogs", { retention: logs.RetentionDays.ONE_MONTH });
    const role = new iam.Role(this, "HandlerRole", { assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"), roleName: `erasure-handler-${name}` });
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }));
    const fn = new lambda.Function(this, "Handler", { functionName: `erasure-handler-${name}`, runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64, handler: "bootstrap",
      code: lambda.Code.fromAsset(asset), timeout: cdk.Duration.seconds(T), role, logGroup,
      environment: { ERASURE_SUBSCRIBER: name, ERASURE_QUEUE_URL: queue.queueUrl, ERASURE_RESPONSE_QUEUE_URL: channel.responseQueue.queueUrl,
        ERASURE_PASS_TWO_DELAY_SECONDS: String(v("passTwoDelayCapSeconds")), ERASURE_BATCH_TIMEOUT_SECONDS: String(v("batchTimeoutCapSeconds")),
        ERASURE_HANDLER_ROLE_ID: (role.node.defaultChild as iam.CfnRole).attrRoleId } });
    fn.addEventSource(new les.SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
    for (const q of [channel.responseQueue, queue]) {
      q.grant(fn, "sqs:SendMessage");
      q.encryptionMasterKey?.grant(fn, "kms:GenerateDataKey", "kms:Decrypt");
    }
    queue.addToResourcePolicy(new iam.PolicyStatement({ sid: "OnlyTheHandlerConsumes", effect: iam.Effect.DENY,
      actions: ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"], principals: [new iam.AnyPrincipal()],
      resources: [queue.queueArn], conditions: { ArnNotEquals: { "aws:PrincipalArn": role.roleArn } } }));
    // The rest of the lockdown, as ErasureSubscriber writes it.
    const a = admins(cdk.Stack.of(this).account), q = [queue.queueArn], d = [dlq.queueArn], topics = [channel.topic.topicArn];
    const qa = (st: iam.PolicyStatement) => { queue.addToResourcePolicy(st); };
    const da = (st: iam.PolicyStatement) => { dlq.addToResourcePolicy(st); };
    const ka = (st: iam.PolicyStatement) => { key.addToResourcePolicy(st); };
    deny(qa, "OnlyAdministratorsAdminister", q, notLike(a), undefined, queueData);
    deny(qa, "OnlyTheTopicAndTheHandlerSend", q, notLike([role.roleArn], topics), ["sqs:SendMessage"]);
    deny(qa, "OnlyTheHandlerAndAdministratorsReadAttributes", q, notLike([role.roleArn, ...a]), ["sqs:GetQueueAttributes"]);
    deny(da, "OnlyAdministratorsAdminister", d, notLike(a), undefined, [...consume, "sqs:GetQueueAttributes"]);
    deny(da, "NoOneSendsDeadLetters", d, undefined, ["sqs:SendMessage"]);
    deny(da, "OnlyAdministratorsConsume", d, notLike(a), [...consume, "sqs:GetQueueAttributes"]);
    deny(ka, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(ka, "OnlyTheDataPathUsesTheKey", ["*"], notLike([role.roleArn], topics), keyUse);
    new cdk.CfnOutput(this, "HandlerRoleId", { value: cdk.Fn.join("", [`${name}=`, (role.node.defaultChild as iam.CfnRole).attrRoleId]) });
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
