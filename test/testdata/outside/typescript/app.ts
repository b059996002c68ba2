// A store team's CDK app in TypeScript, written outside the repository on the
// released npm artifact alone (test/outside_in_test.go installs it in an
// empty folder). The channel is another app's, imported by ARN. It builds:
//   STORES=n           n stores (store-001 …), each its own stack;
//   BREAK=hatches      five stores, each broken after construction by one
//                      escape hatch, which ErasureCheck must refuse at synth;
//   BREAK=aspects      one store under organisation-wide Aspects (14-day
//                      retention on every queue, 900 s on every function);
//   SPEC=file          the stores of a refusal spec (CONSTANTS names the
//                      channel constants file), as the Go test builds them;
//   BREAK=landing-zone one store under a landing zone's Aspect that puts a
//                      permissions boundary defined outside the app on every
//                      role; ACK=rule acknowledges that rule on the store,
//                      BOUNDARY_FILE gives ErasureCheck the boundary's document.
//   LZ_CASE=name       one store under a shape of the landing-zone corpus
//                      (LZ_SPEC, test/testdata/landing-zone.json): boundaries,
//                      role paths, a data perimeter, the synthesizer's
//                      execution role; ORGANIZATION_ID goes to ErasureCheck.
// HANDLER_ASSET is the directory of the handler's code.
import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { readFileSync } from "node:fs";
import type { IConstruct } from "constructs";
import { ErasureCheck, ErasureSubscriber, type ErasureSubscriberProps } from "erasure-channel-constructs";

const channel = {
  topicArn: "arn:aws:sns:eu-west-1:111111111111:erasure-topic",
  responseQueueArn: "arn:aws:sqs:eu-west-1:111111111111:erasure-responses",
  responseKeyArn: "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000",
};
const env = { account: "222222222222", region: "eu-west-1" };
const asset = process.env.HANDLER_ASSET ?? "handler";
const handlerProps = (): lambda.FunctionProps => ({ runtime: lambda.Runtime.PROVIDED_AL2023, architecture: lambda.Architecture.ARM_64,
  handler: "bootstrap", code: lambda.Code.fromAsset(asset) });

const app = new cdk.App();
const landingZoneBoundary = "arn:aws:iam::222222222222:policy/landing-zone";
const boundaryFile = process.env.BOUNDARY_FILE;
cdk.Validations.of(app).addPlugins(new ErasureCheck({ topicArns: [channel.topicArn], ...(boundaryFile ? { boundaries: { [landingZoneBoundary]: boundaryFile } } : {}),
  ...(process.env.ORGANIZATION_ID ? { organizationId: process.env.ORGANIZATION_ID } : {}) }));

function store(name: string, stackProps: cdk.StackProps = {}, extra: Partial<ErasureSubscriberProps> = {}): ErasureSubscriber {
  const stack = new cdk.Stack(app, `Store${name.slice(-3)}`, { env, ...stackProps });
  return new ErasureSubscriber(stack, "ErasureSubscriber", {
    name,
    topic: sns.Topic.fromTopicArn(stack, "ErasureTopic", channel.topicArn),
    responseQueue: sqs.Queue.fromQueueAttributes(stack, "ErasureResponses", { queueArn: channel.responseQueueArn, keyArn: channel.responseKeyArn }),
    handlerProps: handlerProps(),
    ...extra,
  });
}

// One store under a shape of the landing-zone corpus, applied as a landing
// zone applies it: Aspects over every role, key and queue, and the stack's
// synthesizer.
function landingZone(c: any) {
  const synthesizer = c.execRole ? new cdk.DefaultStackSynthesizer({ cloudFormationExecutionRole: c.execRole }) : undefined;
  store("store-001", synthesizer ? { synthesizer } : {}, c.administrators ? { administrators: c.administrators } : {});
  const perimeter = (actions: string, resource: string) => new iam.PolicyStatement({ sid: "DataPerimeter", effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()], actions: [actions], resources: [resource],
    conditions: { StringNotEqualsIfExists: { "aws:PrincipalOrgID": c.perimeter }, BoolIfExists: { "aws:PrincipalIsAWSService": "false" } } });
  cdk.Aspects.of(app).add({ visit(n: IConstruct) {
    if (n instanceof iam.CfnRole) {
      if (c.boundary) n.permissionsBoundary = landingZoneBoundary;
      if (c.lookupBoundary && typeof n.roleName === "string" && n.roleName.startsWith("erasure-roleid-")) n.permissionsBoundary = c.lookupBoundary;
      if (c.rolePath) n.path = c.rolePath;
    }
    if (c.perimeter && n instanceof kms.Key) n.addToResourcePolicy(perimeter("kms:*", "*"));
    if (c.perimeter && n instanceof sqs.Queue) n.addToResourcePolicy(perimeter("sqs:*", n.queueArn));
  } });
}
const l1 = (scope: IConstruct, type: string): cdk.CfnResource =>
  scope.node.findAll().find((c) => cdk.CfnResource.isCfnResource(c) && c.cfnResourceType === type) as cdk.CfnResource;

const mode = process.env.BREAK ?? "";
if (mode === "hatches") {
  (l1(store("store-001").queue, "AWS::SQS::Queue") as sqs.CfnQueue).addPropertyOverride("VisibilityTimeout", 30);
  (store("store-002").deadLetterQueue.node.defaultChild as sqs.CfnQueue).messageRetentionPeriod = 1209600;
  l1(store("store-003"), "AWS::Lambda::EventSourceMapping").addPropertyOverride("BatchSize", 11);
  l1(store("store-004"), "AWS::Lambda::EventSourceMapping").addPropertyOverride("Enabled", false);
  l1(store("store-005").queue, "AWS::SQS::Queue").addPropertyOverride("RedrivePolicy.maxReceiveCount", 10);
} else if (mode === "aspects") {
  store("store-001");
  cdk.Aspects.of(app).add({ visit(n: IConstruct) {
    if (n instanceof sqs.CfnQueue) n.messageRetentionPeriod = 1209600;
    if (n instanceof lambda.CfnFunction) n.timeout = 900;
  } });
} else if (mode === "landing-zone") {
  const s = store("store-001");
  cdk.Aspects.of(app).add({ visit(n: IConstruct) {
    if (n instanceof iam.CfnRole) n.permissionsBoundary = landingZoneBoundary;
  } });
  if (process.env.ACK) ErasureCheck.acknowledge(s, process.env.ACK, "the landing zone's boundary allows every action the handler needs");
} else if (process.env.LZ_CASE) {
  landingZone(JSON.parse(readFileSync(process.env.LZ_SPEC!, "utf8")).cases.find((c: any) => c.name === process.env.LZ_CASE));
} else if (process.env.SPEC) {
  spec(process.env.SPEC, process.env.CONSTANTS!);
} else {
  for (let i = 1; i <= Number(process.env.STORES ?? "1"); i++) store(`store-${String(i).padStart(3, "0")}`);
}

try {
  app.synth();
} catch (e) {
  console.log(String((e as Error).message));
  process.exitCode = 1;
}

// The stores of a refusal spec (test/testdata/subscriber-refusals.json).
function spec(specFile: string, constantsFile: string) {
  const cases = JSON.parse(readFileSync(specFile, "utf8")).cases;
  const file = JSON.parse(readFileSync(constantsFile, "utf8"));
  const constant = (name: string): number => (file.constants[name] ?? file.awsLimits[name]).value;
  const ch = new cdk.Stack(app, "Channel");
  const topic = new sns.Topic(ch, "Topic");
  const responses = new sqs.Queue(ch, "ResponseQueue", { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: new kms.Key(ch, "ResponseKey", { enableKeyRotation: true }) });
  cases.forEach((c: any, i: number) => {
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
        ...(hp.logGroup ? { logGroup: new logs.LogGroup(stack, "Logs", { retention: logs.RetentionDays.ONE_WEEK }) } : {}) };
    }
    if (p.administrators) props.administrators = p.administrators;
    for (const k of ["handlerTimeout", "visibilityTimeout", "passTwoDelay", "batchTimeout", "maxBatchingWindow", "retentionPeriod"] as const) {
      if (p[k] !== undefined) props[k] = duration(p[k]);
    }
    for (const k of ["maxReceiveCount", "batchSize"] as const) {
      if (p[k] !== undefined) props[k] = number(p[k]);
    }
    new ErasureSubscriber(stack, "ErasureSubscriber", props);
  });
}
