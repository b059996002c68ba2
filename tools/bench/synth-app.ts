// The plain TypeScript twin of the Go CDK app for tools/bench-synth: a
// channel stack and STORES store stacks whose templates are the Go app's
// (ErasureChannel and ErasureSubscriber with their lockdown and the scale
// design's shared policies: keys, topic, queues, subscription, log group,
// role, function from the same asset, event source, alarms, outputs), which
// tools/bench/compare.mjs proves; no cdk-nag (the Go run turns it off too)
// and no metadata. Run with Node 22's type stripping.
//
// With SUBSCRIBER=package the stores are the erasure-channel-constructs
// package's ErasureSubscriber (constructs/typescript, installed from its
// packed tarball as a store team installs it) instead of the hand-written
// Subscriber below: the Go decisions run as WebAssembly, which must build the
// Go app's templates too. CHECK=1 adds the package's ErasureCheck plugin.
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
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const constants = JSON.parse(readFileSync(new URL("../../schema/erasure-channel-constants.json", import.meta.url), "utf8")).constants;
const v = (name: string): number => constants[name].value;
const T = v("handlerTimeoutCapSeconds");
const N = v("maxReceiveCount");
const retention = cdk.Duration.seconds(v("queueRetentionSeconds"));

// As channelpolicy.DefaultAdministrators, for the stack's own account and region.
const admins = (scope: Construct) => { const st = cdk.Stack.of(scope);
  return [`arn:${cdk.Aws.PARTITION}:iam::${st.account}:role/cdk-*-cfn-exec-role-${st.account}-${st.region}`]; };
// Every roster store's handler, in any account: the handler path (contract.HandlerRolePattern).
const rosterHandlers = () => `arn:${cdk.Aws.PARTITION}:iam::*:role/erasure-channel/erasure-handler-*`;
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

function alarm(scope: Construct, id: string, metric: cw.IMetric, threshold: number, alarmDescription: string,
  comparisonOperator = cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD) {
  return new cw.Alarm(scope, id, { metric, threshold, evaluationPeriods: 1, alarmDescription,
    comparisonOperator, treatMissingData: cw.TreatMissingData.NOT_BREACHING });
}
const minute = { period: cdk.Duration.minutes(1) };
const counted = (metricName: string, code: string) => new cw.Metric({ namespace: "ErasureChannel", metricName,
  dimensionsMap: { Code: code }, statistic: "Sum", period: cdk.Duration.minutes(5) });

class Channel extends Construct {
  readonly topic: sns.Topic;
  readonly responseQueue: sqs.Queue;
  constructor(scope: Construct, id: string, roster: string[]) {
    super(scope, id);
    const topicKey = new kms.Key(this, "TopicKey", { enableKeyRotation: true, description: "Erasure topic" });
    this.topic = new sns.Topic(this, "Topic", { masterKey: topicKey, enforceSSL: true, topicName: "erasure-topic" });
    const responseKey = new kms.Key(this, "ResponseKey", { enableKeyRotation: true, description: "Erasure response queue and its dead-letter queue" });
    const dlq = new sqs.Queue(this, "ResponseDeadLetterQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey, enforceSSL: true, retentionPeriod: retention });
    this.responseQueue = new sqs.Queue(this, "ResponseQueue", { queueName: "erasure-responses", encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey, enforceSSL: true,
      retentionPeriod: retention, deadLetterQueue: { queue: dlq, maxReceiveCount: N } });
    alarm(this, "ResponseDeadLetterAlarm", dlq.metricApproximateNumberOfMessagesVisible({ ...minute, statistic: "Maximum" }), 1,
      "Store answers reached the response dead-letter queue: the account service failed to process them.");
    alarm(this, "OldestResponseAlarm", this.responseQueue.metricApproximateAgeOfOldestMessage({ ...minute, statistic: "Maximum" }), v("expiryPeriodSeconds"),
      `An answer has waited on the response queue longer than R = ${v("expiryPeriodSeconds")} s (expiryPeriodSeconds): the account service is not reading answers.`,
      cw.ComparisonOperator.GREATER_THAN_THRESHOLD);
    // The roster: only handlers under the handler path answer.
    this.responseQueue.addToResourcePolicy(new iam.PolicyStatement({ sid: "OnlyRosterHandlersAnswer", effect: iam.Effect.DENY,
      actions: ["sqs:SendMessage"], principals: [new iam.AnyPrincipal()], resources: [this.responseQueue.queueArn],
      conditions: { ArnNotLike: { "aws:PrincipalArn": rosterHandlers() } } }));
    alarm(this, "RefusedAnswersAlarm", counted("ErasureAnswersRefused", "SENDER_NOT_ON_ROSTER"), 1,
      "The response reader refused an answer whose sender is not the handler of the store it names: a forged or misrouted answer was kept for investigation, and that store's round is still open.");
    alarm(this, "ConflictingAnswersAlarm", counted("ErasureAnswersConflicting", "CONFLICTING_ANSWER"), 1,
      "A store's answer contradicted its earlier answer to the same round (DONE after NOT_APPLICABLE, or the reverse): the first answer stands; find out which one the store means.");
    // The ledger's alarms, as ErasureChannel writes them.
    const ledgerCodes = ["UNKNOWN_REQUEST", "UNKNOWN_ROUND", "WRONG_TYPE", "WRONG_KEY", "NOT_ON_ROSTER", "NOT_AN_OUTCOME"];
    const usingMetrics: Record<string, cw.IMetric> = {};
    ledgerCodes.forEach((code, i) => { usingMetrics[`r${i}`] = counted("ErasureAnswersRefused", code); });
    alarm(this, "LedgerRefusedAnswersAlarm", new cw.MathExpression({ expression: Object.keys(usingMetrics).join("+"), usingMetrics,
      label: "refused by the ledger", period: cdk.Duration.minutes(5) }), 1,
      "The account service's ledger refused an authenticated answer: to a request or broadcast it never recorded, of a type that does not answer its request, about another key, or from a store off the request's roster. It is recorded in the ledger (REFUSED#<day>) with its code and never counted.");
    alarm(this, "ExhaustedRebroadcastsAlarm", counted("ErasureRebroadcastsExhausted", "EXHAUSTED"), 1,
      `An erasure's broadcast ${v("maxBroadcasts")} (maxBroadcasts) expired without every roster store's answer: the ledger re-broadcasts it no more; find the store that does not answer.`);
    alarm(this, "OverdueRequestsAlarm", counted("ErasureRequestsOverdue", "OVERDUE"), 1,
      `An erasure is still incomplete ${v("erasureDeadlineWarningSeconds") / 86400} days before its one-month deadline (GDPR Art. 12(3)): erasureDeadlineWarningSeconds.`);
    alarm(this, "ReceiptLogRefusedAlarm", counted("ErasureReceiptLogRefused", "LOG_FORGED"), 1,
      "The ledger refused to sign a record of its receipt log that it did not write (LOG_FORGED): someone who can write the ledger's table put a receipt at the log's next index. It is left for investigation; no receipt is appended until it is removed.");
    alarm(this, "ReceiptLogRolledBackAlarm", counted("ErasureReceiptLogRefused", "LOG_ROLLED_BACK"), 1,
      "The ledger's receipt log does not extend the latest signed head in its anchor bucket (LOG_ROLLED_BACK): the table was restored from a backup or its log rewritten. Erasures go on; no receipt is appended until an operator restores the log the anchor holds.");
    // The lockdown, as ErasureChannel writes it (constructs/erasure/channel.go).
    const a = admins(this);
    const topic = (st: iam.PolicyStatement) => { this.topic.addToResourcePolicy(st); };
    const tk = (st: iam.PolicyStatement) => { topicKey.addToResourcePolicy(st); };
    const rq = (st: iam.PolicyStatement) => { this.responseQueue.addToResourcePolicy(st); };
    const dq = (st: iam.PolicyStatement) => { dlq.addToResourcePolicy(st); };
    const rk = (st: iam.PolicyStatement) => { responseKey.addToResourcePolicy(st); };
    const t = [this.topic.topicArn];
    deny(topic, "OnlyAdministratorsAdminister", t, notLike(a), undefined, ["sns:Publish", "sns:Subscribe"]);
    deny(topic, "EveryActionOverTLSOnly", t, { Bool: { "aws:SecureTransport": "false" } }, undefined, ["sns:Publish"]);
    deny(tk, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(topic, "OnlyPublishersPublish", t, notLike(publishers), ["sns:Publish"]);
    deny(tk, "OnlyTheDataPathUsesTheKey", ["*"], { ...notLike(publishers), Bool: { "aws:PrincipalIsAWSService": "false" } }, keyUse);
    deny(topic, "OnlyAdministratorsSubscribe", t, notLike(a), ["sns:Subscribe"]);
    deny(topic, "SubscribeOnlySqs", t, { StringNotEquals: { "sns:Protocol": "sqs" } }, ["sns:Subscribe"]);
    deny(topic, "SubscribeOnlyStoreQueuesOfTheSubscribersAccount", t,
      { StringNotLike: { "sns:Endpoint": `arn:${cdk.Aws.PARTITION}:sqs:*:\${aws:PrincipalAccount}:erasure-requests-*` } }, ["sns:Subscribe"]);
    const r = [this.responseQueue.queueArn], d = [dlq.queueArn];
    deny(rq, "OnlyAdministratorsAdminister", r, notLike(a), undefined, queueData);
    deny(dq, "OnlyAdministratorsAdminister", d, notLike(a), undefined, [...consume, "sqs:GetQueueAttributes"]);
    deny(dq, "NoOneSendsDeadLetters", d, undefined, ["sqs:SendMessage"]);
    deny(dq, "OnlyReadersAndAdministratorsConsume", d, notLike([...publishers, ...a]), [...consume, "sqs:GetQueueAttributes"]);
    deny(rk, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(rq, "OnlyReadersConsume", r, notLike(publishers), consume);
    deny(rq, "OnlyReadersAndAdministratorsReadAttributes", r, notLike([...publishers, ...a]), ["sqs:GetQueueAttributes"]);
    deny(rk, "OnlyTheDataPathUsesTheKey", ["*"], notLike([rosterHandlers(), ...publishers]), keyUse);
    const out = (id: string, value: string, description: string) => new cdk.CfnOutput(cdk.Stack.of(this), id, { value, description });
    out("ErasureTopicArn", this.topic.topicArn, "The erasure topic: stores subscribe their queue to it");
    out("ErasureResponseQueueUrl", this.responseQueue.queueUrl, "The response queue stores answer on");
    out("ErasureResponseQueueArn", this.responseQueue.queueArn, "The response queue's ARN");
    out("ErasureResponseKeyArn", responseKey.keyArn, "The response queue's KMS key: stores import the queue with it");
    out("ErasureTopicKeyArn", topicKey.keyArn, "The erasure topic's KMS key: a store app's check keeps its bitmap bucket off it (erasurectl check --topic-key-arn)");
  }
}

class Subscriber extends Construct {
  constructor(scope: Construct, id: string, name: string, channel: Channel, asset: string) {
    super(scope, id);
    const key = new kms.Key(this, "Key", { enableKeyRotation: true, description: `Erasure queue and dead-letter queue of subscriber ${name}` });
    const dlq = new sqs.Queue(this, "DeadLetterQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention });
    const queue = new sqs.Queue(this, "Queue", { queueName: `erasure-requests-${name}`, encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: retention,
      visibilityTimeout: cdk.Duration.seconds(v("visibilityTimeoutMultiplier") * T), deadLetterQueue: { queue: dlq, maxReceiveCount: N } });
    channel.topic.addSubscription(new subs.SqsSubscription(queue, { rawMessageDelivery: true }));
    const logGroup = new logs.LogGroup(this, "HandlerLogs", { retention: logs.RetentionDays.ONE_MONTH });
    const role = new iam.Role(this, "HandlerRole", { assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"), roleName: `erasure-handler-${name}`,
      path: "/erasure-channel/", description: `Erasure handler of subscriber ${name}` });
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }));
    const fn = new lambda.Function(this, "Handler", { functionName: `erasure-handler-${name}`, runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64, handler: "bootstrap",
      description: `Erasure handler of store ${name}`, memorySize: 256, code: lambda.Code.fromAsset(asset), timeout: cdk.Duration.seconds(T), role, logGroup,
      environment: { ERASURE_SUBSCRIBER: name, ERASURE_QUEUE_URL: queue.queueUrl, ERASURE_RESPONSE_QUEUE_URL: channel.responseQueue.queueUrl,
        ERASURE_PASS_TWO_DELAY_SECONDS: String(v("passTwoDelayCapSeconds")), ERASURE_BATCH_TIMEOUT_SECONDS: String(v("batchTimeoutCapSeconds")),
        ERASURE_HANDLER_ROLE_ID: (role.node.defaultChild as iam.CfnRole).attrRoleId } });
    fn.addEventSource(new les.SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
    for (const q of [channel.responseQueue, queue]) {
      q.grant(fn, "sqs:SendMessage");
      q.encryptionMasterKey?.grant(fn, "kms:GenerateDataKey", "kms:Decrypt");
    }
    // The lockdown, as ErasureSubscriber writes it (constructs/erasure/subscriber.go).
    const a = admins(this), q = [queue.queueArn], d = [dlq.queueArn], topics = [channel.topic.topicArn];
    const qa = (st: iam.PolicyStatement) => { queue.addToResourcePolicy(st); };
    const da = (st: iam.PolicyStatement) => { dlq.addToResourcePolicy(st); };
    const ka = (st: iam.PolicyStatement) => { key.addToResourcePolicy(st); };
    deny(qa, "OnlyAdministratorsAdminister", q, notLike(a), undefined, queueData);
    deny(qa, "OnlyTheHandlerConsumes", q, { ArnNotEquals: { "aws:PrincipalArn": role.roleArn } }, consume);
    deny(qa, "OnlyTheTopicAndTheHandlerSend", q, notLike([role.roleArn], topics), ["sqs:SendMessage"]);
    deny(qa, "OnlyTheHandlerAndAdministratorsReadAttributes", q, notLike([role.roleArn, ...a]), ["sqs:GetQueueAttributes"]);
    deny(da, "OnlyAdministratorsAdminister", d, notLike(a), undefined, [...consume, "sqs:GetQueueAttributes"]);
    deny(da, "NoOneSendsDeadLetters", d, undefined, ["sqs:SendMessage"]);
    deny(da, "OnlyAdministratorsConsume", d, notLike(a), [...consume, "sqs:GetQueueAttributes"]);
    deny(ka, "OnlyAdministratorsAdminister", ["*"], notLike(a), undefined, keyUse);
    deny(ka, "OnlyTheDataPathUsesTheKey", ["*"], notLike([role.roleArn], topics), keyUse);
    const out = new cdk.CfnOutput(this, "HandlerRoleId", { value: cdk.Fn.join("", [`${name}=`, role.roleId]),
      description: `Erasure store ${name}: <store>=<its handler role's unique id>, for the account service's roster` });
    out.overrideLogicalId("ErasureHandlerRoleId" + createHash("sha256").update(name).digest("hex").slice(0, 8)); // contract.NameDigest
    alarm(this, "DeadLetterAlarm", dlq.metricApproximateNumberOfMessagesVisible({ ...minute, statistic: "Maximum" }), 1,
      `Erasure requests for subscriber ${name} reached the dead-letter queue: they were not handled and need an operator.`);
    const worst = 2 * ((N - 1) * 6 * T + T) + v("passTwoDelayCapSeconds");
    alarm(this, "OldestMessageAlarm", queue.metricApproximateAgeOfOldestMessage({ ...minute, statistic: "Maximum" }), worst,
      `A message on subscriber ${name}'s erasure queue is older than the store's worst case of ${worst} s: the handler is not consuming.`,
      cw.ComparisonOperator.GREATER_THAN_THRESHOLD);
  }
}

// The package's construct, imported only when asked for: the plain twin
// needs nothing but aws-cdk-lib.
const usePackage = process.env.SUBSCRIBER === "package";
const pkg = usePackage ? await import("erasure-channel-constructs") : undefined;

const stores = Number(process.env.STORES ?? "1");
const asset = process.env.HANDLER_ASSET;
if (!asset) throw new Error("HANDLER_ASSET is required");
const app = new cdk.App();
// CHECK=1 (with SUBSCRIBER=package): the package's ErasureCheck plugin judges the synthesized app too.
if (pkg && process.env.CHECK === "1") cdk.Validations.of(app).addPlugins(new pkg.ErasureCheck({ topicArns: ["arn:aws:sns:eu-west-1:111111111111:erasure-topic"] }));
const env = { account: "111111111111", region: "eu-west-1" };
const channelStack = new cdk.Stack(app, "ErasureChannel", { env });
const names = Array.from({ length: stores }, (_, i) => `store-${String(i + 1).padStart(3, "0")}`);
const channel = new Channel(channelStack, "ErasureChannel", names);
for (let i = 1; i <= stores; i++) {
  const id = String(i).padStart(3, "0");
  const stack = new cdk.Stack(app, `Store${id}`, { env });
  if (pkg) {
    new pkg.ErasureSubscriber(stack, "ErasureSubscriber", { name: `store-${id}`, topic: channel.topic, responseQueue: channel.responseQueue,
      handlerProps: { runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64, handler: "bootstrap",
        code: lambda.Code.fromAsset(asset), description: `Erasure handler of store store-${id}` } });
  } else {
    new Subscriber(stack, "ErasureSubscriber", `store-${id}`, channel, asset);
  }
}
app.synth();
