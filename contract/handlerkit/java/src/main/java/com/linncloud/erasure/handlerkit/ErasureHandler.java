package com.linncloud.erasure.handlerkit;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * The kit: the Java twin of Go's {@code contract/storehandler}. Build it once at init with
 * {@link #fromEnvironment} and call {@link #handle} from the Lambda handler. For every record of a batch, in
 * order: validate the body; check the pass-two marker (before expiry); consume an expired request without an
 * answer; dispatch by (type, keyKind) (no function, or NOT_APPLICABLE, answers NOT_APPLICABLE at once and counts
 * ErasureNotApplicable); call the store under the batch timeout, never past the Lambda deadline less a reserve;
 * run ERASE and REFILE twice (pass one re-sends the body to the store's own queue, pass two answers); validate
 * and send the answer, counting ErasureAnswers. A failed record is reported in batchItemFailures; nothing
 * throws out of {@link #handle}.
 */
public final class ErasureHandler {
    /** The message attribute marking pass two (Number "2"); never part of the contract body. */
    public static final String ATTR_PASS = "erasure-pass";
    /** The message attribute carrying pass one's outcome (String). */
    public static final String ATTR_PASS_ONE_OUTCOME = "erasure-pass-one-outcome";
    /** The most time kept before the Lambda deadline to answer: at most a tenth of the time left. */
    public static final Duration DEADLINE_RESERVE = Duration.ofSeconds(2);
    /** The variable Lambda sets to the function's name: the session half of the handler's own SenderId. */
    public static final String FUNCTION_NAME_VARIABLE = "AWS_LAMBDA_FUNCTION_NAME";

    private final HandlerEnvironment env;
    private final Map<Pair, StoreFunction> impls;
    private final SqsClient sqs;
    private final Clock clock;
    private final Telemetry out;
    private final String self;
    private final ExecutorService calls;

    private ErasureHandler(Builder b) {
        this.env = b.env;
        this.impls = Map.copyOf(b.impls);
        this.sqs = b.sqs;
        this.clock = b.clock;
        this.self = b.functionName == null ? "" : HandlerEnvironment.senderId(env.roleId(), b.functionName);
        this.out = new Telemetry(b.log, b.metrics, b.clock, env.subscriber());
        this.calls = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "erasure-store-call");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Builds the kit from the process environment and the AWS SDK's default SQS client (region, credentials and
     * endpoint from the environment, so AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_SQS are honoured). Call it from a
     * static initializer: an {@link EnvironmentException} (naming variables, never values) then fails Lambda's
     * init and nothing is answered.
     *
     * @throws EnvironmentException     a handler variable is missing or out of bounds
     * @throws IllegalArgumentException {@code implementations} names a pair a store cannot implement
     */
    public static ErasureHandler fromEnvironment(Map<Pair, StoreFunction> implementations) {
        return fromEnvironment(implementations, System::getenv, null);
    }

    /**
     * As {@link #fromEnvironment(Map)}, reading variables through {@code lookup} and sending with {@code sqs}
     * (null: the SDK's default client).
     */
    public static ErasureHandler fromEnvironment(Map<Pair, StoreFunction> implementations,
                                                 Function<String, String> lookup, SqsClient sqs) {
        List<EnvironmentException.Problem> problems = new ArrayList<>();
        HandlerEnvironment env = null;
        try {
            env = HandlerEnvironment.load(lookup, Constants.channel());
        } catch (EnvironmentException e) {
            problems.addAll(e.problems());
        }
        String function = lookup.apply(FUNCTION_NAME_VARIABLE);
        boolean destructive = implementations.keySet().stream().anyMatch(p -> p.type().isDestructive());
        if (destructive && (function == null || function.isEmpty() || function.contains(":"))) {
            problems.add(new EnvironmentException.Problem(FUNCTION_NAME_VARIABLE,
                    "missing or not a function name (pass two is recognised by <role id>:<function name>)"));
        }
        if (!problems.isEmpty()) {
            throw new EnvironmentException(problems);
        }
        Builder b = builder().environment(env).functionName(function).implementations(implementations);
        b.sqs(sqs != null ? sqs : defaultClient());
        return b.build();
    }

    /** The SDK's default SQS client on the JDK's URL connection HTTP client (no Netty, for cold start). */
    private static SqsClient defaultClient() {
        try {
            return SqsClient.builder().httpClient(UrlConnectionHttpClient.create()).build();
        } catch (RuntimeException e) { // e.g. no region: name the cause's class, never its message
            throw new EnvironmentException(List.of(new EnvironmentException.Problem("AWS_REGION",
                    "the AWS SDK could not build an SQS client (" + e.getClass().getSimpleName() + ")")));
        }
    }

    /** A builder for tests and for stores that build their own client or environment. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures an {@link ErasureHandler}. */
    public static final class Builder {
        private HandlerEnvironment env;
        private String functionName;
        private Map<Pair, StoreFunction> impls = Map.of();
        private SqsClient sqs;
        private Clock clock = Clock.systemUTC();
        private PrintStream log = System.err;
        private PrintStream metrics = System.out;

        private Builder() {
        }

        /** The checked handler environment ({@link HandlerEnvironment#load}). */
        public Builder environment(HandlerEnvironment e) {
            this.env = e;
            return this;
        }

        /** The function's own name (AWS_LAMBDA_FUNCTION_NAME): pass two is accepted only from role id:name. */
        public Builder functionName(String name) {
            this.functionName = name;
            return this;
        }

        /** The store's function for each pair it implements. */
        public Builder implementations(Map<Pair, StoreFunction> m) {
            this.impls = new LinkedHashMap<>(m);
            return this;
        }

        /** The SQS client answers and pass two are sent with. */
        public Builder sqs(SqsClient client) {
            this.sqs = client;
            return this;
        }

        /** The store's clock, for expiry and metric timestamps. */
        public Builder clock(Clock c) {
            this.clock = c;
            return this;
        }

        /** Where JSON log lines go (default stderr). */
        public Builder log(PrintStream p) {
            this.log = p;
            return this;
        }

        /** Where embedded-metric lines go (default stdout). */
        public Builder metrics(PrintStream p) {
            this.metrics = p;
            return this;
        }

        /**
         * Checks the configuration and builds the kit.
         *
         * @throws IllegalArgumentException naming the pairs or settings that are wrong
         */
        public ErasureHandler build() {
            Objects.requireNonNull(env, "environment");
            Objects.requireNonNull(sqs, "sqs");
            List<String> problems = new ArrayList<>();
            for (Map.Entry<Pair, StoreFunction> e : impls.entrySet()) {
                if (!e.getKey().implementable()) {
                    problems.add(e.getKey() + ": not a pair a store can implement");
                }
                if (e.getValue() == null) {
                    problems.add(e.getKey() + ": no function");
                }
            }
            boolean destructive = impls.keySet().stream().anyMatch(p -> p.type().isDestructive());
            if (destructive && !validSender(HandlerEnvironment.senderId(env.roleId(), String.valueOf(functionName)))) {
                problems.add("functionName: required for pass two (SenderId <role id>:<function name>)");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("erasure handler: " + String.join("; ", problems));
            }
            return new ErasureHandler(this);
        }
    }

    /** Processes every record of the batch and reports the ones that failed, so SQS retries only those. */
    public SQSBatchResponse handle(SQSEvent event, Context context) {
        List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
        List<SQSEvent.SQSMessage> records = event == null || event.getRecords() == null ? List.of() : event.getRecords();
        for (SQSEvent.SQSMessage rec : records) {
            boolean ok;
            try {
                ok = record(rec, context);
            } catch (RuntimeException e) { // a bug must fail one record, never the batch
                out.log("ERROR", "erasure record failed", "INTERNAL_ERROR", null, 0, null, null);
                ok = false;
            }
            if (!ok) {
                failures.add(new SQSBatchResponse.BatchItemFailure(rec.getMessageId()));
            }
        }
        return new SQSBatchResponse(failures);
    }

    /** One record; true when it is done (answered, enqueued or consumed), false when SQS must retry it. */
    private boolean record(SQSEvent.SQSMessage rec, Context context) {
        // Step 1: validate first.
        Request req;
        try {
            req = Contract.parseRequest(utf8(rec.getBody()));
        } catch (ContractException e) {
            out.log("WARN", "erasure request refused", e.code().name(), null, 0, null, null);
            return false;
        }
        // Step 2: the pass-two marker, before expiry.
        int pass = 1;
        String passOne = null;
        Map<String, SQSEvent.MessageAttribute> attrs = rec.getMessageAttributes();
        if (attrs != null && attrs.containsKey(ATTR_PASS)) {
            passOne = passOneOutcome(rec, req.type());
            if (passOne == null) {
                out.log("WARN", "erasure request refused", "BAD_PASS_MARKER", req.type(), 0, null, null);
                return false;
            }
            pass = 2;
        }
        // Step 3: expiry by the store's own clock.
        Instant now = clock.instant();
        if (req.expired(now)) {
            out.log("INFO", "erasure request expired: consumed without an answer", null, req.type(), pass, null, null);
            return true;
        }
        // Step 4: dispatch.
        StoreFunction fn = impls.get(req.pair());
        if (fn == null) {
            return notApplicable(req, context);
        }
        Instant end = callEnd(context, now);
        if (end == null) {
            out.log("WARN", "erasure request deferred", "NO_TIME_LEFT", req.type(), pass, null, null);
            return false;
        }
        String outcome;
        final int p = pass;
        final Request r = req;
        Future<String> call = calls.submit(() -> fn.apply(r, p, end));
        try {
            outcome = call.get(Math.max(0, Duration.between(now, end).toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            out.log("WARN", "erasure store call failed", "BATCH_TIMEOUT", req.type(), pass, null, null);
            return false;
        } catch (ExecutionException e) {
            out.log("WARN", "erasure store call failed", "STORE_CALL_FAILED", req.type(), pass, null, null);
            return false;
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            out.log("WARN", "erasure store call failed", "STORE_CALL_FAILED", req.type(), pass, null, null);
            return false;
        }
        if ("NOT_APPLICABLE".equals(outcome)) {
            return notApplicable(req, context);
        }
        if (req.type().isDestructive() && pass == 1) {
            try {
                Contract.encodeResponse(Response.answerFor(req, env.subscriber(), outcome));
            } catch (ContractException e) {
                out.log("WARN", "erasure store call returned an outcome the contract refuses", e.code().name(),
                        req.type(), pass, null, null);
                return false;
            }
            return enqueuePassTwo(rec, req, outcome, context);
        }
        if (pass == 2) {
            outcome = combine(req.type(), passOne, outcome);
        }
        // Step 5: answer.
        return answer(Response.answerFor(req, env.subscriber(), outcome), context);
    }

    /** The body as UTF-8 bytes; a string UTF-8 cannot hold (a lone surrogate) gives bytes the parser refuses. */
    private static byte[] utf8(String body) {
        if (body == null) {
            return new byte[0];
        }
        try {
            ByteBuffer b = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(body));
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        } catch (CharacterCodingException e) {
            return new byte[] {(byte) 0xFF}; // invalid UTF-8: NOT_JSON
        }
    }

    /**
     * When a store call starting at {@code now} must end: now + batch timeout, and never past the Lambda
     * deadline less the reserve (min(2 s, a tenth of the time left)); null when no time is left to start one.
     */
    private Instant callEnd(Context context, Instant now) {
        Instant end = now.plus(env.batchTimeout());
        if (context == null) {
            return end;
        }
        long left = context.getRemainingTimeInMillis();
        long reserve = Math.min(DEADLINE_RESERVE.toMillis(), left / 10);
        if (left - reserve <= 0) {
            return null;
        }
        Instant last = now.plusMillis(left - reserve);
        return last.isBefore(end) ? last : end;
    }

    private boolean notApplicable(Request req, Context context) {
        out.notApplicable(req.type());
        return answer(Response.answerFor(req, env.subscriber(), "NOT_APPLICABLE"), context);
    }

    /** Validates and sends an answer to the response queue, with no message attributes. */
    private boolean answer(Response r, Context context) {
        byte[] body;
        try {
            body = Contract.encodeResponse(r);
        } catch (ContractException e) {
            out.log("ERROR", "erasure response send failed", "INVALID_RESPONSE", r.type(), 0, null, null);
            return false;
        }
        SendMessageRequest.Builder m = SendMessageRequest.builder()
                .queueUrl(env.responseQueueUrl())
                .messageBody(new String(body, StandardCharsets.UTF_8));
        if (!send(m, context)) {
            out.log("ERROR", "erasure response send failed", "SEND_FAILED", r.type(), 0, null, null);
            return false;
        }
        out.log("INFO", "erasure answer sent", null, r.type(), 0, r.outcomeOrAnswer(), null);
        out.answer(r.outcomeOrAnswer());
        return true;
    }

    /** Re-sends the same body to the store's own queue, marked as pass two, after the pass-two delay. */
    private boolean enqueuePassTwo(SQSEvent.SQSMessage rec, Request req, String outcome, Context context) {
        int delay = (int) env.passTwoDelay().toSeconds();
        SendMessageRequest.Builder m = SendMessageRequest.builder()
                .queueUrl(env.queueUrl())
                .messageBody(rec.getBody())
                .delaySeconds(delay)
                .messageAttributes(Map.of(
                        ATTR_PASS, MessageAttributeValue.builder().dataType("Number").stringValue("2").build(),
                        ATTR_PASS_ONE_OUTCOME,
                        MessageAttributeValue.builder().dataType("String").stringValue(outcome).build()));
        if (!send(m, context)) {
            out.log("WARN", "erasure pass two not enqueued", "PASS_TWO_ENQUEUE_FAILED", req.type(), 1, null, null);
            return false;
        }
        out.log("INFO", "erasure pass two enqueued", null, req.type(), 1, null, delay);
        return true;
    }

    /** One SendMessage, bounded by the Lambda deadline; false on any failure (its text is never logged). */
    private boolean send(SendMessageRequest.Builder m, Context context) {
        if (context != null) {
            long left = Math.max(1, context.getRemainingTimeInMillis());
            m.overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMillis(left)));
        }
        try {
            sqs.sendMessage(m.build());
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Pass one's outcome when the record is a true pass two, or null: the marker is "2", the type is ERASE or
     * REFILE, the SenderId is exactly this handler's own, and pass one's outcome is one of that type.
     */
    private String passOneOutcome(SQSEvent.SQSMessage rec, MessageType type) {
        Map<String, SQSEvent.MessageAttribute> attrs = rec.getMessageAttributes();
        SQSEvent.MessageAttribute a = attrs.get(ATTR_PASS);
        if (a == null || !"2".equals(a.getStringValue()) || !type.isDestructive()) {
            return null;
        }
        Map<String, String> sys = rec.getAttributes();
        if (!validSender(self) || sys == null || !self.equals(sys.get("SenderId"))) {
            return null;
        }
        SQSEvent.MessageAttribute o = attrs.get(ATTR_PASS_ONE_OUTCOME);
        if (o == null || o.getStringValue() == null || !outcomeFor(type, o.getStringValue())) {
            return null;
        }
        return o.getStringValue();
    }

    private static boolean outcomeFor(MessageType t, String o) {
        if (t == MessageType.ERASE) {
            return o.equals("DONE");
        }
        return t == MessageType.REFILE && (o.equals("MOVED") || o.equals("NONE_OWNED") || o.equals("NOT_MOVED"));
    }

    /** Whether {@code s} is "<role id>:<session>" with exactly one colon. */
    static boolean validSender(String s) {
        int colon = s.indexOf(':');
        return colon > 0 && HandlerEnvironment.isRoleId(s.substring(0, colon)) && colon < s.length() - 1
                && s.indexOf(':', colon + 1) < 0;
    }

    /**
     * The answer after both passes: for REFILE, NOT_MOVED in either pass wins, then MOVED, then NONE_OWNED; ERASE
     * answers pass two's outcome (DONE only when both were).
     */
    static String combine(MessageType t, String passOne, String passTwo) {
        if (t != MessageType.REFILE) {
            return passTwo;
        }
        for (String o : new String[] {"NOT_MOVED", "MOVED"}) {
            if (o.equals(passOne) || o.equals(passTwo)) {
                return o;
            }
        }
        return passTwo;
    }
}
