// A store team's CDK app in Java, written outside the repository on the
// released Maven artifact alone (test/outside_in_test.go installs it in an
// empty folder). The channel is another app's, imported by ARN. It builds:
//   STORES=n           n stores (store-001 ...), each its own stack;
//   BREAK=hatches      five stores, each broken after construction by one
//                      escape hatch, which ErasureCheck must refuse at synth;
//   BREAK=aspects      one store under organisation-wide Aspects (14-day
//                      retention on every queue, 900 s on every function);
//   BREAK=landing-zone one store under a permissions boundary defined outside
//                      the app on every role (ACK=rule acknowledges it,
//                      BOUNDARY_FILE gives ErasureCheck its document);
//   SPEC=file          the stores of a refusal spec (CONSTANTS names the
//                      channel constants file), as the Go test builds them.
// HANDLER_ASSET is the directory of the handler's code.
package com.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linncloud.erasurechannel.constructs.ErasureCheck;
import com.linncloud.erasurechannel.constructs.ErasureCheckProps;
import com.linncloud.erasurechannel.constructs.ErasureSubscriber;
import com.linncloud.erasurechannel.constructs.ErasureSubscriberProps;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.IAspect;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.Validations;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kms.Key;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.CfnFunction;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.FunctionProps;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sns.ITopic;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.CfnQueue;
import software.amazon.awscdk.services.sqs.IQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueAttributes;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.IConstruct;

public final class App {
    static final String TOPIC_ARN = "arn:aws:sns:eu-west-1:111111111111:erasure-topic";
    static final String RESPONSE_QUEUE_ARN = "arn:aws:sqs:eu-west-1:111111111111:erasure-responses";
    static final String RESPONSE_KEY_ARN = "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000";
    static final Environment ENV = Environment.builder().account("222222222222").region("eu-west-1").build();
    static final String ASSET = System.getenv().getOrDefault("HANDLER_ASSET", "handler");

    static final software.amazon.awscdk.App app = new software.amazon.awscdk.App();

    static FunctionProps.Builder handlerProps() {
        return FunctionProps.builder().runtime(Runtime.PROVIDED_AL2023).architecture(Architecture.ARM_64)
            .handler("bootstrap").code(Code.fromAsset(ASSET));
    }

    static ErasureSubscriber store(String name) {
        Stack stack = new Stack(app, "Store" + name.substring(name.length() - 3), StackProps.builder().env(ENV).build());
        return new ErasureSubscriber(stack, "ErasureSubscriber", ErasureSubscriberProps.builder()
            .name(name)
            .topic(Topic.fromTopicArn(stack, "ErasureTopic", TOPIC_ARN))
            .responseQueue(Queue.fromQueueAttributes(stack, "ErasureResponses",
                QueueAttributes.builder().queueArn(RESPONSE_QUEUE_ARN).keyArn(RESPONSE_KEY_ARN).build()))
            .handlerProps(handlerProps().build())
            .build());
    }

    static CfnResource l1(IConstruct scope, String type) {
        for (IConstruct c : scope.getNode().findAll()) {
            if (c instanceof CfnResource && ((CfnResource) c).getCfnResourceType().equals(type)) {
                return (CfnResource) c;
            }
        }
        throw new IllegalStateException("no " + type);
    }

    public static void main(final String[] args) throws Exception {
        String landingZoneBoundary = "arn:aws:iam::222222222222:policy/landing-zone";
        ErasureCheckProps.Builder check = ErasureCheckProps.builder().topicArns(List.of(TOPIC_ARN));
        if (System.getenv("BOUNDARY_FILE") != null) check.boundaries(java.util.Map.of(landingZoneBoundary, System.getenv("BOUNDARY_FILE")));
        Validations.of(app).addPlugins(new ErasureCheck(check.build()));
        String mode = System.getenv().getOrDefault("BREAK", "");
        if (mode.equals("hatches")) {
            l1(store("store-001").getQueue(), "AWS::SQS::Queue").addPropertyOverride("VisibilityTimeout", 30);
            ((CfnQueue) store("store-002").getDeadLetterQueue().getNode().getDefaultChild()).setMessageRetentionPeriod(1209600);
            l1(store("store-003"), "AWS::Lambda::EventSourceMapping").addPropertyOverride("BatchSize", 11);
            l1(store("store-004"), "AWS::Lambda::EventSourceMapping").addPropertyOverride("Enabled", false);
            l1(store("store-005").getQueue(), "AWS::SQS::Queue").addPropertyOverride("RedrivePolicy.maxReceiveCount", 10);
        } else if (mode.equals("aspects")) {
            store("store-001");
            Aspects.of(app).add(new IAspect() {
                @Override
                public void visit(IConstruct node) {
                    if (node instanceof CfnQueue) ((CfnQueue) node).setMessageRetentionPeriod(1209600);
                    if (node instanceof CfnFunction) ((CfnFunction) node).setTimeout(900);
                }
            });
        } else if (mode.equals("landing-zone")) {
            ErasureSubscriber s = store("store-001");
            Aspects.of(app).add(new IAspect() {
                @Override
                public void visit(software.constructs.IConstruct node) {
                    if (node instanceof software.amazon.awscdk.services.iam.CfnRole) ((software.amazon.awscdk.services.iam.CfnRole) node).setPermissionsBoundary(landingZoneBoundary);
                }
            });
            if (System.getenv("ACK") != null) ErasureCheck.acknowledge(s, System.getenv("ACK"), "the landing zone's boundary allows every action the handler needs");
        } else if (System.getenv("SPEC") != null) {
            spec(System.getenv("SPEC"), System.getenv("CONSTANTS"));
        } else {
            int n = Integer.parseInt(System.getenv().getOrDefault("STORES", "1"));
            for (int i = 1; i <= n; i++) store(String.format("store-%03d", i));
        }
        try {
            app.synth();
        } catch (RuntimeException e) { // a refused synth: print CDK's report, exit 1
            System.out.println(e.getMessage());
            System.exit(1);
        }
    }

    // The stores of a refusal spec (test/testdata/subscriber-refusals.json).
    static void spec(String specFile, String constantsFile) throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode cases = json.readTree(new File(specFile)).get("cases");
        JsonNode file = json.readTree(new File(constantsFile));
        java.util.function.Function<String, Double> constant = name ->
            (file.get("constants").has(name) ? file.get("constants") : file.get("awsLimits")).get(name).get("value").asDouble();
        Stack ch = new Stack(app, "Channel");
        ITopic topic = new Topic(ch, "Topic");
        IQueue responses = Queue.Builder.create(ch, "ResponseQueue").encryption(QueueEncryption.KMS)
            .encryptionMasterKey(Key.Builder.create(ch, "ResponseKey").enableKeyRotation(true).build()).build();
        for (int i = 0; i < cases.size(); i++) {
            JsonNode c = cases.get(i), p = c.get("props");
            StackProps sp = p.has("env") ? StackProps.builder().env(Environment.builder()
                .account(p.get("env").get("account").asText()).region(p.get("env").get("region").asText()).build()).build() : null;
            Stack stack = new Stack(app, String.format("Case%02d", i), sp);
            List<Number> token = new ArrayList<>();
            java.util.function.Supplier<Number> tok = () -> {
                if (token.isEmpty()) token.add(CfnParameter.Builder.create(stack, "Tok").type("Number").build().getValueAsNumber());
                return token.get(0);
            };
            java.util.function.Function<JsonNode, Duration> duration = d -> {
                if (d.isTextual()) return Duration.seconds(tok.get());
                if (d.has("millis")) return Duration.millis(d.get("millis").asDouble());
                if (d.has("of")) return Duration.seconds(constant.apply(d.get("of").asText()) * (d.has("times") ? d.get("times").asDouble() : 1)
                    + (d.has("plus") ? d.get("plus").asDouble() : 0));
                return Duration.seconds(d.get("seconds").asDouble());
            };
            java.util.function.Function<JsonNode, Number> number = n -> {
                if (n.isTextual()) return tok.get();
                if (n.has("of")) return constant.apply(n.get("of").asText()) + (n.has("plus") ? n.get("plus").asDouble() : 0);
                return n.get("value").asDouble();
            };
            java.util.function.Function<String, IRole> role = r -> r.equals("imported")
                ? Role.fromRoleArn(stack, "Imported", "arn:aws:iam::222222222222:role/their-handler")
                : Role.Builder.create(stack, "Given").assumedBy(new ServicePrincipal("lambda.amazonaws.com")).build();
            ErasureSubscriberProps.Builder props = ErasureSubscriberProps.builder().name(c.get("name").asText())
                .topic(topic).responseQueue(responses).handlerProps(handlerProps().build());
            JsonNode t = p.get("topic");
            if (t != null && t.isTextual()) props.topic(Topic.Builder.create(stack, "Fifo").fifo(true).topicName("erasure.fifo").build());
            else if (t != null) props.topic(Topic.fromTopicArn(stack, "ErasureTopic", t.get("arn").asText()));
            JsonNode rq = p.get("responseQueue");
            if (rq != null && rq.isTextual() && rq.asText().equals("fifo")) props.responseQueue(Queue.Builder.create(stack, "Fifo").fifo(true).build());
            else if (rq != null && rq.isTextual()) props.responseQueue(Queue.fromQueueArn(stack, "Responses", "arn:aws:sqs:eu-west-1:111111111111:erasure-responses"));
            else if (rq != null) props.responseQueue(Queue.fromQueueAttributes(stack, "Responses",
                QueueAttributes.builder().queueArn(rq.get("arn").asText()).keyArn(rq.get("keyArn").asText()).build()));
            JsonNode h = p.get("handler");
            if (h != null && h.isTextual()) props.handlerProps(null);
            else if (h != null) {
                Function.Builder own = Function.Builder.create(stack, "Own").runtime(Runtime.PROVIDED_AL2023).architecture(Architecture.ARM_64)
                    .handler("bootstrap").code(Code.fromAsset(ASSET)).timeout(duration.apply(h.get("timeout")));
                if (h.has("role")) own.role(role.apply(h.get("role").asText()));
                props.handler(own.build());
                if (!p.path("handlerPropsToo").asBoolean(false)) props.handlerProps(null);
            }
            if (p.has("handlerPropsTimeout")) props.handlerProps(handlerProps().timeout(duration.apply(p.get("handlerPropsTimeout"))).build());
            JsonNode hp = p.get("handlerProps");
            if (hp != null) {
                FunctionProps.Builder fp = handlerProps();
                if (hp.has("role")) fp.role(role.apply(hp.get("role").asText()));
                if (hp.path("logGroup").asBoolean(false)) fp.logGroup(LogGroup.Builder.create(stack, "Logs").retention(RetentionDays.ONE_WEEK).build());
                props.handlerProps(fp.build());
            }
            if (p.has("administrators")) {
                List<String> admins = new ArrayList<>();
                p.get("administrators").forEach(a -> admins.add(a.asText()));
                props.administrators(admins);
            }
            if (p.has("handlerTimeout")) props.handlerTimeout(duration.apply(p.get("handlerTimeout")));
            if (p.has("visibilityTimeout")) props.visibilityTimeout(duration.apply(p.get("visibilityTimeout")));
            if (p.has("passTwoDelay")) props.passTwoDelay(duration.apply(p.get("passTwoDelay")));
            if (p.has("batchTimeout")) props.batchTimeout(duration.apply(p.get("batchTimeout")));
            if (p.has("maxBatchingWindow")) props.maxBatchingWindow(duration.apply(p.get("maxBatchingWindow")));
            if (p.has("retentionPeriod")) props.retentionPeriod(duration.apply(p.get("retentionPeriod")));
            if (p.has("maxReceiveCount")) props.maxReceiveCount(number.apply(p.get("maxReceiveCount")));
            if (p.has("batchSize")) props.batchSize(number.apply(p.get("batchSize")));
            new ErasureSubscriber(stack, "ErasureSubscriber", props.build());
        }
    }
}
