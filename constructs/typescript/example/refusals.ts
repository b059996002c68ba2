// Every refusal row, tried from TypeScript: the subscribers of
// test/testdata/subscriber-refusals.json (props past the caps) built with the
// erasure-channel-constructs package, in the stacks and with the ids the Go
// test builds them with (test/ts_subscriber_test.go). The synth must fail;
// this prints its error, whose lines the Go test compares with the Go app's.
// Usage: node --experimental-strip-types refusals.ts SPEC OUTDIR
import * as cdk from "aws-cdk-lib";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { readFileSync } from "node:fs";
import { ErasureSubscriber, type ErasureSubscriberProps } from "erasure-channel-constructs";

const [specFile, outdir] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specFile, "utf8"));
const file = JSON.parse(readFileSync(new URL("../../../schema/erasure-channel-constants.json", import.meta.url), "utf8"));
const constant = (name: string): number => (file.constants[name] ?? file.awsLimits[name]).value;

const context = JSON.parse(readFileSync(new URL("../../../cdk.json", import.meta.url), "utf8")).context;
const app = new cdk.App({ outdir, context });
const channel = new cdk.Stack(app, "Channel");
const responseKey = new kms.Key(channel, "ResponseKey", { enableKeyRotation: true });
const topic = new sns.Topic(channel, "Topic");
const responses = new sqs.Queue(channel, "ResponseQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: responseKey });
const handlerProps = (): lambda.FunctionProps => ({ runtime: lambda.Runtime.NODEJS_22_X, handler: "index.handler",
  code: lambda.Code.fromInline("exports.handler = async () => ({ batchItemFailures: [] })") });

spec.cases.forEach((c: any, i: number) => {
  const stack = new cdk.Stack(app, `Case${String(i).padStart(2, "0")}`);
  let token: number | undefined;
  const tok = () => (token ??= new cdk.CfnParameter(stack, "Tok", { type: "Number" }).valueAsNumber);
  const seconds = (d: any): number => (d.of !== undefined ? constant(d.of) * (d.times ?? 1) + (d.plus ?? 0) : d.seconds);
  const duration = (d: any) => (d === "token" ? cdk.Duration.seconds(tok()) : d.millis !== undefined ? cdk.Duration.millis(d.millis) : cdk.Duration.seconds(seconds(d)));
  const number = (n: any) => (n === "token" ? tok() : n.of !== undefined ? constant(n.of) + (n.plus ?? 0) : n.value);
  const p = c.props;
  const props: { -readonly [K in keyof ErasureSubscriberProps]: ErasureSubscriberProps[K] } = { name: c.name, topic, responseQueue: responses, handlerProps: handlerProps() };
  if (p.topic === "fifo") props.topic = new sns.Topic(stack, "Fifo", { fifo: true, topicName: "erasure.fifo" });
  if (p.responseQueue === "fifo") props.responseQueue = new sqs.Queue(stack, "Fifo", { fifo: true });
  if (p.responseQueue === "withoutKey") props.responseQueue = sqs.Queue.fromQueueArn(stack, "Responses", "arn:aws:sqs:eu-west-1:111111111111:erasure-responses");
  if (p.handler === "none") props.handlerProps = undefined;
  else if (p.handler) {
    props.handler = new lambda.Function(stack, "Own", { ...handlerProps(), timeout: duration(p.handler.timeout) });
    if (!p.handlerPropsToo) props.handlerProps = undefined;
  }
  if (p.handlerPropsTimeout) props.handlerProps = { ...handlerProps(), timeout: duration(p.handlerPropsTimeout) };
  for (const k of ["handlerTimeout", "visibilityTimeout", "passTwoDelay", "batchTimeout", "maxBatchingWindow", "retentionPeriod"] as const) {
    if (p[k] !== undefined) props[k] = duration(p[k]);
  }
  for (const k of ["maxReceiveCount", "batchSize"] as const) {
    if (p[k] !== undefined) props[k] = number(p[k]);
  }
  new ErasureSubscriber(stack, "ErasureSubscriber", props);
});

try {
  app.synth();
} catch (e) {
  console.log(String((e as Error).message));
  process.exit(0);
}
console.log("the synth passed");
process.exit(2);
