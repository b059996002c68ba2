// The subscribers of a spec (test/testdata/subscriber-refusals.json: props
// past the caps; subscriber-shapes.json: every way a store may be wired),
// built with the erasure-channel-constructs package in the stacks and with
// the ids the Go test builds them with (test/ts_subscriber_test.go), which
// compares what the two synths did: the same refusal lines, or the same
// templates. It prints a refused synth's error; exit 0 once synth ran.
// Usage: node --experimental-strip-types subscribers.ts SPEC OUTDIR
import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { readFileSync } from "node:fs";
import { ErasureSubscriber, type ErasureSubscriberProps } from "erasure-channel-constructs";

const [specFile, outdir] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specFile, "utf8"));
const file = JSON.parse(readFileSync(new URL("../../../schema/erasure-channel-constants.json", import.meta.url), "utf8"));
const constant = (name: string): number => (file.constants[name] ?? file.awsLimits[name]).value;

const context = { ...JSON.parse(readFileSync(new URL("../../../cdk.json", import.meta.url), "utf8")).context, ...(spec.context ?? {}) };
const app = new cdk.App({ outdir, context });
const channel = new cdk.Stack(app, "Channel");
const responseKey = new kms.Key(channel, "ResponseKey", { enableKeyRotation: true });
const topic = new sns.Topic(channel, "Topic");
const responses = new sqs.Queue(channel, "ResponseQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey });
const handlerProps = (): lambda.FunctionProps => ({ runtime: lambda.Runtime.NODEJS_22_X, handler: "index.handler",
  code: lambda.Code.fromInline("exports.handler = async () => ({ batchItemFailures: [] })") });

spec.cases.forEach((c: any, i: number) => {
  const p = c.props;
  const stack = new cdk.Stack(app, `Case${String(i).padStart(2, "0")}`, p.env ? { env: p.env } : undefined);
  let token: number | undefined;
  const tok = () => (token ??= new cdk.CfnParameter(stack, "Tok", { type: "Number" }).valueAsNumber);
  const seconds = (d: any): number => (d.of !== undefined ? constant(d.of) * (d.times ?? 1) + (d.plus ?? 0) : d.seconds);
  const duration = (d: any) => (d === "token" ? cdk.Duration.seconds(tok()) : d.millis !== undefined ? cdk.Duration.millis(d.millis) : cdk.Duration.seconds(seconds(d)));
  const number = (n: any) => (n === "token" ? tok() : n.of !== undefined ? constant(n.of) + (n.plus ?? 0) : n.value);
  const role = (r: string) => (r === "imported" ? iam.Role.fromRoleArn(stack, "Imported", "arn:aws:iam::222222222222:role/their-handler")
    : new iam.Role(stack, "Given", { assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com") }));
  const props: { -readonly [K in keyof ErasureSubscriberProps]: ErasureSubscriberProps[K] } = { name: c.name, topic, responseQueue: responses, handlerProps: handlerProps() };
  if (p.topic === "fifo") props.topic = new sns.Topic(stack, "Fifo", { fifo: true, topicName: "erasure.fifo" });
  else if (p.topic?.arn) props.topic = sns.Topic.fromTopicArn(stack, "ErasureTopic", p.topic.arn);
  if (p.responseQueue === "fifo") props.responseQueue = new sqs.Queue(stack, "Fifo", { fifo: true });
  else if (p.responseQueue === "withoutKey") props.responseQueue = sqs.Queue.fromQueueArn(stack, "Responses", "arn:aws:sqs:eu-west-1:111111111111:erasure-responses");
  else if (p.responseQueue?.arn) props.responseQueue = sqs.Queue.fromQueueAttributes(stack, "Responses", { queueArn: p.responseQueue.arn, keyArn: p.responseQueue.keyArn });
  if (p.handler === "none") props.handlerProps = undefined;
  else if (p.handler) {
    props.handler = new lambda.Function(stack, "Own", { ...handlerProps(), timeout: duration(p.handler.timeout), ...(p.handler.role ? { role: role(p.handler.role) } : {}) });
    if (!p.handlerPropsToo) props.handlerProps = undefined;
  }
  if (p.handlerPropsTimeout) props.handlerProps = { ...handlerProps(), timeout: duration(p.handlerPropsTimeout) };
  const hp = p.handlerProps;
  if (hp) {
    props.handlerProps = { ...handlerProps(),
      ...(hp.role ? { role: role(hp.role) } : {}),
      ...(hp.logGroup ? { logGroup: new logs.LogGroup(stack, "Logs", { retention: logs.RetentionDays.ONE_WEEK }) } : {}),
      ...(hp.functionName ? { functionName: hp.functionName } : {}),
      ...(hp.memorySize ? { memorySize: hp.memorySize } : {}),
      ...(hp.environment ? { environment: hp.environment } : {}) };
  }
  if (p.administrators) props.administrators = p.administrators;
  for (const k of ["handlerTimeout", "visibilityTimeout", "passTwoDelay", "batchTimeout", "maxBatchingWindow", "retentionPeriod"] as const) {
    if (p[k] !== undefined) props[k] = duration(p[k]);
  }
  for (const k of ["maxReceiveCount", "batchSize"] as const) {
    if (p[k] !== undefined) props[k] = number(p[k]);
  }
  const s = new ErasureSubscriber(stack, "ErasureSubscriber", props);
  if (p.notApplicableAlarm) s.addNotApplicableAlarm("NotApplicableAlarm", p.notApplicableAlarm);
});

try {
  app.synth();
} catch (e) {
  console.log(String((e as Error).message));
}
