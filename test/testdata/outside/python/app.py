"""A store team's CDK app in Python, written outside the repository on the
released wheel alone (test/outside_in_test.go installs it in an empty
folder). The channel is another app's, imported by ARN. It builds:
  STORES=n           n stores (store-001 ...), each its own stack;
  BREAK=hatches      five stores, each broken after construction by one
                     escape hatch, which ErasureCheck must refuse at synth;
  BREAK=aspects      one store under organisation-wide Aspects (14-day
                     retention on every queue, 900 s on every function);
  BREAK=landing-zone one store under a permissions boundary defined outside
                     the app on every role (ACK=rule acknowledges it,
                     BOUNDARY_FILE gives ErasureCheck its document);
  SPEC=file          the stores of a refusal spec (CONSTANTS names the
                     channel constants file), as the Go test builds them;
  LZ_CASE=name       one store under a shape of the landing-zone corpus
                     (LZ_SPEC, test/testdata/landing-zone.json): boundaries,
                     role paths, a data perimeter, the synthesizer's
                     execution role; ORGANIZATION_ID goes to ErasureCheck.
HANDLER_ASSET is the directory of the handler's code."""
import json
import os
import sys

import jsii
import aws_cdk as cdk
from aws_cdk import aws_iam as iam, aws_kms as kms, aws_lambda as lambda_, aws_logs as logs, aws_sns as sns, aws_sqs as sqs
from constructs import IConstruct
from erasure_channel_constructs import ErasureCheck, ErasureSubscriber

TOPIC_ARN = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
RESPONSE_QUEUE_ARN = "arn:aws:sqs:eu-west-1:111111111111:erasure-responses"
RESPONSE_KEY_ARN = "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000"
ENV = cdk.Environment(account="222222222222", region="eu-west-1")
ASSET = os.environ.get("HANDLER_ASSET", "handler")


def handler_props(**extra):
    return lambda_.FunctionProps(runtime=lambda_.Runtime.PROVIDED_AL2023, architecture=lambda_.Architecture.ARM_64,
                                 handler="bootstrap", code=lambda_.Code.from_asset(ASSET), **extra)


app = cdk.App()
LANDING_ZONE_BOUNDARY = "arn:aws:iam::222222222222:policy/landing-zone"
BOUNDARY_FILE = os.environ.get("BOUNDARY_FILE")
cdk.Validations.of(app).add_plugins(ErasureCheck(topic_arns=[TOPIC_ARN], boundaries={LANDING_ZONE_BOUNDARY: BOUNDARY_FILE} if BOUNDARY_FILE else None,
                                                 organization_id=os.environ.get("ORGANIZATION_ID") or None))


def store(name, synthesizer=None, **extra):
    stack = cdk.Stack(app, "Store" + name[-3:], env=ENV, synthesizer=synthesizer)
    return ErasureSubscriber(stack, "ErasureSubscriber", name=name,
                             topic=sns.Topic.from_topic_arn(stack, "ErasureTopic", TOPIC_ARN),
                             response_queue=sqs.Queue.from_queue_attributes(stack, "ErasureResponses", queue_arn=RESPONSE_QUEUE_ARN, key_arn=RESPONSE_KEY_ARN),
                             handler_props=handler_props(), **extra)


@jsii.implements(cdk.IAspect)
class LandingZoneCase:
    """A shape of the landing-zone corpus, applied as a landing zone applies it: over every role, key and queue."""

    def __init__(self, case):
        self.case = case

    def perimeter(self, actions, resource):
        return iam.PolicyStatement(sid="DataPerimeter", effect=iam.Effect.DENY, principals=[iam.AnyPrincipal()], actions=[actions], resources=[resource],
                                   conditions={"StringNotEqualsIfExists": {"aws:PrincipalOrgID": self.case["perimeter"]},
                                               "BoolIfExists": {"aws:PrincipalIsAWSService": "false"}})

    def visit(self, node: IConstruct) -> None:
        c = self.case
        if isinstance(node, iam.CfnRole):
            if c.get("boundary"):
                node.permissions_boundary = LANDING_ZONE_BOUNDARY
            if c.get("lookupBoundary") and isinstance(node.role_name, str) and node.role_name.startswith("erasure-roleid-"):
                node.permissions_boundary = c["lookupBoundary"]
            if c.get("rolePath"):
                node.path = c["rolePath"]
        if c.get("perimeter") and isinstance(node, kms.Key):
            node.add_to_resource_policy(self.perimeter("kms:*", "*"))
        if c.get("perimeter") and isinstance(node, sqs.Queue):
            node.add_to_resource_policy(self.perimeter("sqs:*", node.queue_arn))


def landing_zone(case):
    synthesizer = cdk.DefaultStackSynthesizer(cloud_formation_execution_role=case["execRole"]) if case.get("execRole") else None
    extra = {"administrators": case["administrators"]} if case.get("administrators") else {}
    store("store-001", synthesizer, **extra)
    cdk.Aspects.of(app).add(LandingZoneCase(case))


def l1(scope, resource_type):
    return next(c for c in scope.node.find_all() if isinstance(c, cdk.CfnResource) and c.cfn_resource_type == resource_type)


@jsii.implements(cdk.IAspect)
class OrganisationDefaults:
    """An organisation-wide Aspect: 14-day retention on every queue, 900 s on every function."""

    def visit(self, node: IConstruct) -> None:
        if isinstance(node, sqs.CfnQueue):
            node.message_retention_period = 1209600
        if isinstance(node, lambda_.CfnFunction):
            node.timeout = 900


@jsii.implements(cdk.IAspect)
class LandingZoneBoundary:
    """A landing zone's Aspect: a permissions boundary defined outside the app on every role."""

    def visit(self, node: IConstruct) -> None:
        if isinstance(node, iam.CfnRole):
            node.permissions_boundary = LANDING_ZONE_BOUNDARY


def spec(spec_file, constants_file):
    """The stores of a refusal spec (test/testdata/subscriber-refusals.json)."""
    with open(spec_file) as f:
        cases = json.load(f)["cases"]
    with open(constants_file) as f:
        file = json.load(f)

    def constant(name):
        return (file["constants"].get(name) or file["awsLimits"][name])["value"]

    ch = cdk.Stack(app, "Channel")
    topic = sns.Topic(ch, "Topic")
    responses = sqs.Queue(ch, "ResponseQueue", encryption=sqs.QueueEncryption.KMS,
                          encryption_master_key=kms.Key(ch, "ResponseKey", enable_key_rotation=True))
    for i, c in enumerate(cases):
        p = c["props"]
        stack = cdk.Stack(app, "Case%02d" % i, env=cdk.Environment(**p["env"]) if "env" in p else None)
        token = []

        def tok():
            if not token:
                token.append(cdk.CfnParameter(stack, "Tok", type="Number").value_as_number)
            return token[0]

        def duration(d):
            if d == "token":
                return cdk.Duration.seconds(tok())
            if "millis" in d:
                return cdk.Duration.millis(d["millis"])
            if "of" in d:
                return cdk.Duration.seconds(constant(d["of"]) * d.get("times", 1) + d.get("plus", 0))
            return cdk.Duration.seconds(d["seconds"])

        def number(n):
            if n == "token":
                return tok()
            return constant(n["of"]) + n.get("plus", 0) if "of" in n else n["value"]

        def role(r):
            if r == "imported":
                return iam.Role.from_role_arn(stack, "Imported", "arn:aws:iam::222222222222:role/their-handler")
            return iam.Role(stack, "Given", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))

        props = dict(name=c["name"], topic=topic, response_queue=responses, handler_props=handler_props())
        if p.get("topic") == "fifo":
            props["topic"] = sns.Topic(stack, "Fifo", fifo=True, topic_name="erasure.fifo")
        elif isinstance(p.get("topic"), dict):
            props["topic"] = sns.Topic.from_topic_arn(stack, "ErasureTopic", p["topic"]["arn"])
        rq = p.get("responseQueue")
        if rq == "fifo":
            props["response_queue"] = sqs.Queue(stack, "Fifo", fifo=True)
        elif rq == "withoutKey":
            props["response_queue"] = sqs.Queue.from_queue_arn(stack, "Responses", "arn:aws:sqs:eu-west-1:111111111111:erasure-responses")
        elif isinstance(rq, dict):
            props["response_queue"] = sqs.Queue.from_queue_attributes(stack, "Responses", queue_arn=rq["arn"], key_arn=rq["keyArn"])
        h = p.get("handler")
        if h == "none":
            props["handler_props"] = None
        elif isinstance(h, dict):
            extra = {"role": role(h["role"])} if "role" in h else {}
            own = handler_props(timeout=duration(h["timeout"]), **extra)
            props["handler"] = lambda_.Function(stack, "Own", runtime=own.runtime, architecture=own.architecture,
                                                handler=own.handler, code=own.code, timeout=own.timeout, role=own.role)
            if not p.get("handlerPropsToo"):
                props["handler_props"] = None
        if "handlerPropsTimeout" in p:
            props["handler_props"] = handler_props(timeout=duration(p["handlerPropsTimeout"]))
        hp = p.get("handlerProps")
        if hp:
            extra = {}
            if "role" in hp:
                extra["role"] = role(hp["role"])
            if hp.get("logGroup"):
                extra["log_group"] = logs.LogGroup(stack, "Logs", retention=logs.RetentionDays.ONE_WEEK)
            props["handler_props"] = handler_props(**extra)
        if "administrators" in p:
            props["administrators"] = p["administrators"]
        for k, py in [("handlerTimeout", "handler_timeout"), ("visibilityTimeout", "visibility_timeout"), ("passTwoDelay", "pass_two_delay"),
                      ("batchTimeout", "batch_timeout"), ("maxBatchingWindow", "max_batching_window"), ("retentionPeriod", "retention_period")]:
            if k in p:
                props[py] = duration(p[k])
        for k, py in [("maxReceiveCount", "max_receive_count"), ("batchSize", "batch_size")]:
            if k in p:
                props[py] = number(p[k])
        ErasureSubscriber(stack, "ErasureSubscriber", **props)


mode = os.environ.get("BREAK", "")
if mode == "hatches":
    l1(store("store-001").queue, "AWS::SQS::Queue").add_property_override("VisibilityTimeout", 30)
    store("store-002").dead_letter_queue.node.default_child.message_retention_period = 1209600
    l1(store("store-003"), "AWS::Lambda::EventSourceMapping").add_property_override("BatchSize", 11)
    l1(store("store-004"), "AWS::Lambda::EventSourceMapping").add_property_override("Enabled", False)
    l1(store("store-005").queue, "AWS::SQS::Queue").add_property_override("RedrivePolicy.maxReceiveCount", 10)
elif mode == "aspects":
    store("store-001")
    cdk.Aspects.of(app).add(OrganisationDefaults())
elif mode == "landing-zone":
    s = store("store-001")
    cdk.Aspects.of(app).add(LandingZoneBoundary())
    if os.environ.get("ACK"):
        ErasureCheck.acknowledge(s, os.environ["ACK"], "the landing zone's boundary allows every action the handler needs")
elif os.environ.get("LZ_CASE"):
    with open(os.environ["LZ_SPEC"]) as f:
        landing_zone(next(c for c in json.load(f)["cases"] if c["name"] == os.environ["LZ_CASE"]))
elif os.environ.get("SPEC"):
    spec(os.environ["SPEC"], os.environ["CONSTANTS"])
else:
    for i in range(1, int(os.environ.get("STORES", "1")) + 1):
        store("store-%03d" % i)

try:
    app.synth()
except Exception as e:  # a refused synth: print CDK's report, exit 1
    print(str(e))
    sys.exit(1)
