package com.linncloud.erasure.handlerkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/** The handler table: every step of the protocol against a fake SQS client, a fixed clock and captured output. */
class HandlerTest {
    static final Instant NOW = Instant.parse("2026-11-30T08:00:00Z");
    static final String ROLE = "AROAEXAMPLEROLEID0001";
    static final String FUNCTION = "erasure-handler-space";
    static final String SELF = ROLE + ":" + FUNCTION;
    static final String QUEUE = "https://sqs.eu-west-1.amazonaws.com/000000000000/space";
    static final String RESPONSES = "https://sqs.eu-west-1.amazonaws.com/000000000000/responses";
    static final Constants C = Constants.channel();

    // Every personal value holds "secret": no captured line may.
    static final Instant LATER = NOW.plus(Duration.ofHours(1));
    static final Request ERASE_ACCOUNT = new Request(MessageType.ERASE, "req-secret-01", 1, LATER, KeyKind.ACCOUNT,
            "acct-secret-7731", null, null, null);
    static final Request ERASE_ADDRESS = new Request(MessageType.ERASE, "req-secret-02", 2, LATER, KeyKind.ADDRESS,
            "secret.person@example.invalid", null, null, null);
    static final Request REFILE = new Request(MessageType.REFILE, "req-secret-03", 1, LATER, KeyKind.ADDRESS, null,
            "old.secret@example.invalid", "new.secret@example.invalid", "acct-secret-7731");
    static final Request CLASSIFY_ACCOUNT = new Request(MessageType.CLASSIFY, "req-secret-04", 0, LATER,
            KeyKind.ACCOUNT, "acct-secret-7731", null, null, null);
    static final Request CLASSIFY_ADDRESS = new Request(MessageType.CLASSIFY, "req-secret-05", 0, LATER,
            KeyKind.ADDRESS, "secret.person@example.invalid", null, null, null);
    static final Request CHECK_ACCOUNT = new Request(MessageType.CHECK, "req-secret-06", 0, LATER, KeyKind.ACCOUNT,
            "acct-secret-7731", null, null, null);
    static final Request CHECK_ADDRESS = new Request(MessageType.CHECK, "req-secret-07", 0, LATER, KeyKind.ADDRESS,
            "secret.person@example.invalid", null, null, null);
    static final List<Request> ALL = List.of(ERASE_ACCOUNT, ERASE_ADDRESS, REFILE, CLASSIFY_ACCOUNT,
            CLASSIFY_ADDRESS, CHECK_ACCOUNT, CHECK_ADDRESS);

    /** Everything captured by every rig of a test, checked for personal values after it. */
    private final List<Rig> rigs = new ArrayList<>();

    static HandlerEnvironment env(Duration batchTimeout) {
        return new HandlerEnvironment(Duration.ofSeconds(C.passTwoDelayCapSeconds()), batchTimeout, "space",
                RESPONSES, QUEUE, ROLE);
    }

    /** A kit with captured output. */
    final class Rig {
        final FakeSqs sqs = new FakeSqs();
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        final ByteArrayOutputStream metrics = new ByteArrayOutputStream();
        final ErasureHandler kit;

        Rig(Map<Pair, StoreFunction> impls) {
            this(impls, Duration.ofSeconds(C.batchTimeoutCapSeconds()));
        }

        Rig(Map<Pair, StoreFunction> impls, Duration batchTimeout) {
            kit = ErasureHandler.builder().environment(env(batchTimeout)).functionName(FUNCTION)
                    .implementations(impls).sqs(sqs).clock(Clock.fixed(NOW, ZoneOffset.UTC))
                    .log(new PrintStream(log, true, StandardCharsets.UTF_8))
                    .metrics(new PrintStream(metrics, true, StandardCharsets.UTF_8)).build();
            rigs.add(this);
        }

        /** Runs one batch; returns the ids of the failed records. */
        List<String> run(Context ctx, SQSEvent.SQSMessage... records) {
            SQSEvent e = new SQSEvent();
            e.setRecords(List.of(records));
            SQSBatchResponse r = kit.handle(e, ctx);
            return r.getBatchItemFailures().stream().map(SQSBatchResponse.BatchItemFailure::getItemIdentifier).toList();
        }

        List<String> run(SQSEvent.SQSMessage... records) {
            return run(new FakeContext(30_000), records);
        }

        String log() {
            return log.toString(StandardCharsets.UTF_8);
        }

        String metrics() {
            return metrics.toString(StandardCharsets.UTF_8);
        }

        List<Response> answers() throws ContractException {
            List<Response> out = new ArrayList<>();
            for (SendMessageRequest m : sqs.to(RESPONSES)) {
                assertTrue(m.messageAttributes().isEmpty(), "an answer carries no message attributes");
                out.add(Contract.parseResponse(m.messageBody().getBytes(StandardCharsets.UTF_8)));
            }
            return out;
        }

        List<SendMessageRequest> passTwos() {
            return sqs.to(QUEUE);
        }
    }

    static String body(Request r) {
        try {
            return new String(Contract.encodeRequest(r), StandardCharsets.UTF_8);
        } catch (ContractException e) {
            throw new AssertionError(e);
        }
    }

    static SQSEvent.SQSMessage record(String id, String body) {
        SQSEvent.SQSMessage m = new SQSEvent.SQSMessage();
        m.setMessageId(id);
        m.setBody(body);
        m.setAttributes(new HashMap<>(Map.of("SenderId", "AIDASNSSERVICE000001", "ApproximateReceiveCount", "1")));
        m.setMessageAttributes(new HashMap<>());
        return m;
    }

    static SQSEvent.SQSMessage record(String id, Request r) {
        return record(id, body(r));
    }

    static SQSEvent.MessageAttribute attr(String dataType, String value) {
        SQSEvent.MessageAttribute a = new SQSEvent.MessageAttribute();
        a.setDataType(dataType);
        a.setStringValue(value);
        return a;
    }

    /** A record carrying a pass-two marker: pass value, pass-one outcome (null: none) and SenderId. */
    static SQSEvent.SQSMessage marked(String id, Request r, String pass, String passOne, String sender) {
        SQSEvent.SQSMessage m = record(id, r);
        m.getMessageAttributes().put(ErasureHandler.ATTR_PASS, attr("Number", pass));
        if (passOne != null) {
            m.getMessageAttributes().put(ErasureHandler.ATTR_PASS_ONE_OUTCOME, attr("String", passOne));
        }
        m.getAttributes().put("SenderId", sender);
        return m;
    }

    /** The record SQS delivers for a pass two this handler enqueued. */
    static SQSEvent.SQSMessage delivered(String id, SendMessageRequest sent) {
        SQSEvent.SQSMessage m = record(id, sent.messageBody());
        for (Map.Entry<String, MessageAttributeValue> a : sent.messageAttributes().entrySet()) {
            m.getMessageAttributes().put(a.getKey(), attr(a.getValue().dataType(), a.getValue().stringValue()));
        }
        m.getAttributes().put("SenderId", SELF);
        return m;
    }

    static StoreFunction returning(String outcome) {
        return (req, pass, deadline) -> outcome;
    }

    static String outcomeFor(Request r) {
        switch (r.type()) {
            case ERASE:
                return "DONE";
            case REFILE:
                return "MOVED";
            default:
                return "HOLDS_DATA";
        }
    }

    static Map<Pair, StoreFunction> allPairs(AtomicInteger calls) {
        Map<Pair, StoreFunction> m = new LinkedHashMap<>();
        for (Request r : ALL) {
            m.put(r.pair(), (req, pass, deadline) -> {
                calls.incrementAndGet();
                return outcomeFor(req);
            });
        }
        return m;
    }

    @AfterEach
    void noPersonalValueInAnyOutput() throws Exception {
        Set<String> allowed = Set.of("level", "msg", "code", "type", "pass", "outcome", "delaySeconds");
        for (Rig rig : rigs) {
            String all = rig.log() + rig.metrics();
            assertFalse(all.contains("secret"), "a personal value reached the output:\n" + all);
            assertFalse(all.contains("sqs.eu-west-1"), "a queue URL reached the output");
            for (String line : rig.log().split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                Map<?, ?> m = (Map<?, ?>) MiniJson.read(line.getBytes(StandardCharsets.UTF_8));
                assertTrue(allowed.containsAll(m.keySet()), "log fields " + m.keySet());
                assertNotNull(m.get("level"));
                assertNotNull(m.get("msg"));
            }
            for (String line : rig.metrics().split("\n")) {
                if (!line.isEmpty()) {
                    assertTrue(MiniJson.read(line.getBytes(StandardCharsets.UTF_8)) instanceof Map);
                }
            }
        }
    }

    @Test
    void everyImplementedPairAnswersAfterItsPasses() throws Exception {
        for (Request r : ALL) {
            AtomicInteger calls = new AtomicInteger();
            Rig rig = new Rig(allPairs(calls));
            assertEquals(List.of(), rig.run(record("m1", r)), r.type() + " pass one");
            if (r.type().isDestructive()) {
                assertEquals(0, rig.answers().size(), "pass one does not answer");
                assertEquals(1, rig.passTwos().size());
                SendMessageRequest two = rig.passTwos().get(0);
                assertEquals(body(r), two.messageBody(), "pass two re-sends the same body");
                assertEquals(C.passTwoDelayCapSeconds(), two.delaySeconds());
                assertEquals("Number", two.messageAttributes().get(ErasureHandler.ATTR_PASS).dataType());
                assertEquals("2", two.messageAttributes().get(ErasureHandler.ATTR_PASS).stringValue());
                assertEquals("String", two.messageAttributes().get(ErasureHandler.ATTR_PASS_ONE_OUTCOME).dataType());
                assertEquals(outcomeFor(r),
                        two.messageAttributes().get(ErasureHandler.ATTR_PASS_ONE_OUTCOME).stringValue());
                assertTrue(rig.log().contains("\"msg\":\"erasure pass two enqueued\",\"type\":\"" + r.type().wire()
                        + "\",\"pass\":1,\"delaySeconds\":" + C.passTwoDelayCapSeconds()), rig.log());
                assertEquals(List.of(), rig.run(delivered("m2", two)), r.type() + " pass two");
                assertEquals(2, calls.get());
            } else {
                assertEquals(0, rig.passTwos().size());
                assertEquals(1, calls.get());
            }
            List<Response> answers = rig.answers();
            assertEquals(1, answers.size());
            Response a = answers.get(0);
            assertEquals(r.type().responseType(), a.type());
            assertEquals(r.requestId(), a.requestId());
            assertEquals("space", a.subscriber());
            assertEquals(outcomeFor(r), a.outcomeOrAnswer());
            if (a.type() == MessageType.HOLDINGS) {
                assertEquals(r.key(), a.key());
                assertEquals(r.keyKind(), a.keyKind());
            } else {
                assertEquals(r.sendNo(), a.sendNo());
            }
            assertEquals("{\"ErasureAnswers\":1,\"Outcome\":\"" + outcomeFor(r) + "\",\"Subscriber\":\"space\","
                    + "\"_aws\":{\"CloudWatchMetrics\":[{\"Dimensions\":[[\"Subscriber\",\"Outcome\"]],"
                    + "\"Metrics\":[{\"Name\":\"ErasureAnswers\",\"Unit\":\"Count\"}],\"Namespace\":\"ErasureChannel\"}],"
                    + "\"Timestamp\":" + NOW.toEpochMilli() + "}}\n", rig.metrics());
            assertTrue(rig.log().contains("{\"level\":\"INFO\",\"msg\":\"erasure answer sent\",\"type\":\""
                    + a.type().wire() + "\",\"outcome\":\"" + outcomeFor(r) + "\"}"), rig.log());
        }
    }

    @Test
    void aPairNotImplementedOrNotApplicableIsAnsweredAtOnceAndCounted() throws Exception {
        for (Request r : ALL) {
            for (boolean implemented : new boolean[] {false, true}) {
                Rig rig = new Rig(implemented ? Map.of(r.pair(), returning("NOT_APPLICABLE")) : Map.of());
                assertEquals(List.of(), rig.run(record("m1", r)));
                assertEquals(0, rig.passTwos().size(), "NOT_APPLICABLE needs no pass two");
                List<Response> answers = rig.answers();
                assertEquals(1, answers.size());
                assertEquals("NOT_APPLICABLE", answers.get(0).outcomeOrAnswer());
                String[] lines = rig.metrics().split("\n");
                assertEquals(2, lines.length);
                assertEquals("{\"ErasureNotApplicable\":1,\"MessageType\":\"" + r.type().wire()
                        + "\",\"Subscriber\":\"space\",\"_aws\":{\"CloudWatchMetrics\":[{\"Dimensions\":[[\"Subscriber\"]],"
                        + "\"Metrics\":[{\"Name\":\"ErasureNotApplicable\",\"Unit\":\"Count\"}],"
                        + "\"Namespace\":\"ErasureChannel\"}],\"Timestamp\":" + NOW.toEpochMilli() + "}}", lines[0]);
                assertTrue(lines[1].startsWith("{\"ErasureAnswers\":1,\"Outcome\":\"NOT_APPLICABLE\""), lines[1]);
            }
        }
    }

    @Test
    void refileCombinesBothPasses() throws Exception {
        String[][] table = {
            {"MOVED", "MOVED", "MOVED"}, {"MOVED", "NONE_OWNED", "MOVED"}, {"NONE_OWNED", "MOVED", "MOVED"},
            {"NONE_OWNED", "NONE_OWNED", "NONE_OWNED"}, {"NOT_MOVED", "MOVED", "NOT_MOVED"},
            {"MOVED", "NOT_MOVED", "NOT_MOVED"}, {"NONE_OWNED", "NOT_MOVED", "NOT_MOVED"},
            {"NOT_MOVED", "NONE_OWNED", "NOT_MOVED"},
        };
        for (String[] row : table) {
            AtomicInteger pass = new AtomicInteger();
            Rig rig = new Rig(Map.of(REFILE.pair(), (req, p, d) -> {
                assertEquals(pass.incrementAndGet(), p);
                return row[p - 1];
            }));
            rig.run(record("m1", REFILE));
            rig.run(delivered("m2", rig.passTwos().get(0)));
            assertEquals(row[2], rig.answers().get(0).outcome(), String.join(",", row));
        }
    }

    @Test
    void aMarkerNotFromSelfOrWithBadValuesIsRefusedBeforeExpiryAndTheStore() throws Exception {
        Request expired = ERASE_ACCOUNT.withExpiresAt(NOW.minusSeconds(1));
        List<SQSEvent.SQSMessage> bad = List.of(
                marked("forged-sender", ERASE_ACCOUNT, "2", "DONE", "AROAOTHERROLE0000001:" + FUNCTION),
                marked("forged-function", ERASE_ACCOUNT, "2", "DONE", ROLE + ":another-function"),
                marked("sender-prefix", ERASE_ACCOUNT, "2", "DONE", SELF + "x"),
                marked("sns-sender", ERASE_ACCOUNT, "2", "DONE", "AIDASNSSERVICE000001"),
                marked("pass-one", ERASE_ACCOUNT, "1", "DONE", SELF),
                marked("pass-word", ERASE_ACCOUNT, "two", "DONE", SELF),
                marked("pass-space", ERASE_ACCOUNT, "2 ", "DONE", SELF),
                marked("no-outcome", ERASE_ACCOUNT, "2", null, SELF),
                marked("refile-outcome-on-erase", ERASE_ACCOUNT, "2", "MOVED", SELF),
                marked("not-applicable-outcome", ERASE_ACCOUNT, "2", "NOT_APPLICABLE", SELF),
                marked("done-on-refile", REFILE, "2", "DONE", SELF),
                marked("marker-on-check", CHECK_ACCOUNT, "2", "HOLDS_DATA", SELF),
                marked("forged-on-expired", expired, "2", "DONE", "AROAOTHERROLE0000001:" + FUNCTION));
        SQSEvent.SQSMessage noSender = marked("no-sender", ERASE_ACCOUNT, "2", "DONE", SELF);
        noSender.getAttributes().remove("SenderId");
        List<SQSEvent.SQSMessage> all = new ArrayList<>(bad);
        all.add(noSender);
        AtomicInteger calls = new AtomicInteger();
        Rig rig = new Rig(allPairs(calls));
        List<String> failed = rig.run(all.toArray(new SQSEvent.SQSMessage[0]));
        assertEquals(all.stream().map(SQSEvent.SQSMessage::getMessageId).toList(), failed);
        assertEquals(0, calls.get(), "no store call on a bad marker");
        assertEquals(0, rig.sqs.sent.size());
        assertEquals(all.size(), rig.log().split("\"code\":\"BAD_PASS_MARKER\"").length - 1, rig.log());
        assertFalse(rig.log().contains("expired"), "the marker is checked before expiry");
    }

    @Test
    void anExpiredRequestIsConsumedWithoutAnAnswer() throws Exception {
        for (Instant at : new Instant[] {NOW, NOW.minusSeconds(3600)}) {
            AtomicInteger calls = new AtomicInteger();
            Rig rig = new Rig(allPairs(calls));
            List<SQSEvent.SQSMessage> recs = new ArrayList<>();
            for (Request r : ALL) {
                recs.add(record(r.requestId().replace("secret", "x"), r.withExpiresAt(at)));
            }
            assertEquals(List.of(), rig.run(recs.toArray(new SQSEvent.SQSMessage[0])));
            assertEquals(0, calls.get());
            assertEquals(0, rig.sqs.sent.size());
            assertEquals(ALL.size(), rig.log().split("erasure request expired: consumed without an answer").length - 1);
            assertEquals("", rig.metrics());
        }
        // A true pass two that has expired is consumed too.
        Rig rig = new Rig(allPairs(new AtomicInteger()));
        assertEquals(List.of(), rig.run(marked("m", ERASE_ACCOUNT.withExpiresAt(NOW), "2", "DONE", SELF)));
        assertEquals(0, rig.sqs.sent.size());
    }

    @Test
    void anInvalidBodyFailsTheRecordWithItsCode() throws Exception {
        Rig rig = new Rig(allPairs(new AtomicInteger()));
        String ack = new String(Contract.encodeResponse(Response.answerFor(ERASE_ACCOUNT, "space", "DONE")),
                StandardCharsets.UTF_8);
        String invalid = body(CHECK_ACCOUNT).replace("\"key\"", "\"Key\"");
        List<String> failed = rig.run(record("not-json", "secret {"), record("empty", ""), record("null-body", (String) null),
                record("invalid", invalid), record("response", ack), record("sns-envelope",
                        "{\"Type\":\"Notification\",\"Message\":" + MiniJson.write(body(CHECK_ACCOUNT)) + "}"));
        assertEquals(List.of("not-json", "empty", "null-body", "invalid", "response", "sns-envelope"), failed);
        String log = rig.log();
        assertEquals(3, log.split("\"code\":\"NOT_JSON\"").length - 1, log);
        assertEquals(2, log.split("\"code\":\"INVALID_MESSAGE\"").length - 1, log);
        assertEquals(1, log.split("\"code\":\"NOT_A_REQUEST\"").length - 1, log);
        assertTrue(log.startsWith("{\"level\":\"WARN\",\"msg\":\"erasure request refused\",\"code\":\"NOT_JSON\"}\n"));
        assertEquals(0, rig.sqs.sent.size());
    }

    @Test
    void aStoreCallThatThrowsFailsTheRecord() throws Exception {
        Rig rig = new Rig(Map.of(ERASE_ACCOUNT.pair(), (req, pass, deadline) -> {
            throw new IllegalStateException("store failed for " + req.key() + " " + req.requestId());
        }));
        assertEquals(List.of("m1"), rig.run(record("m1", ERASE_ACCOUNT)));
        assertTrue(rig.log().contains("\"code\":\"STORE_CALL_FAILED\",\"type\":\"erasure/ERASE\",\"pass\":1"));
        assertEquals(0, rig.sqs.sent.size());
    }

    @Test
    void aStoreCallThatOverrunsIsAbandonedAtItsEndAndInterrupted() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Instant> given = new AtomicReference<>();
        Rig rig = new Rig(Map.of(CHECK_ACCOUNT.pair(), (req, pass, deadline) -> {
            given.set(deadline);
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
            return "HOLDS_DATA";
        }), Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        assertEquals(List.of("m1"), rig.run(record("m1", CHECK_ACCOUNT)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 900 && ms < 5_000, "waited " + ms + " ms for a 1 s batch timeout");
        assertTrue(interrupted.await(5, TimeUnit.SECONDS), "the overrunning call is interrupted");
        assertEquals(NOW.plusSeconds(1), given.get());
        assertTrue(rig.log().contains("\"code\":\"BATCH_TIMEOUT\",\"type\":\"erasure/CHECK\",\"pass\":1"));
        assertEquals(0, rig.sqs.sent.size());
    }

    @Test
    void theStoreCallEndsBeforeTheLambdaDeadlineLessTheReserve() throws Exception {
        AtomicReference<Instant> given = new AtomicReference<>();
        Map<Pair, StoreFunction> impls = Map.of(CHECK_ACCOUNT.pair(), (req, pass, deadline) -> {
            given.set(deadline);
            return "HOLDS_NONE";
        });
        Rig rig = new Rig(impls);
        rig.run(new FakeContext(10_000), record("m1", CHECK_ACCOUNT)); // reserve min(2 s, 1 s) = 1 s
        assertEquals(NOW.plusMillis(9_000), given.get());
        rig.run(new FakeContext(3_600_000), record("m2", CHECK_ACCOUNT)); // the batch timeout comes first
        assertEquals(NOW.plusSeconds(C.batchTimeoutCapSeconds()), given.get());
        rig.run((Context) null, record("m3", CHECK_ACCOUNT)); // no context: the batch timeout alone
        assertEquals(NOW.plusSeconds(C.batchTimeoutCapSeconds()), given.get());
        assertEquals(3, rig.answers().size());
    }

    @Test
    void noTimeLeftFailsTheRecordWithoutACall() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Rig rig = new Rig(allPairs(calls));
        assertEquals(List.of("m1", "m2"), rig.run(new FakeContext(0), record("m1", ERASE_ACCOUNT),
                record("m2", CHECK_ADDRESS)));
        assertEquals(0, calls.get());
        assertEquals(2, rig.log().split("\"code\":\"NO_TIME_LEFT\"").length - 1);
        assertEquals(0, rig.sqs.sent.size());
    }

    @Test
    void sendFailuresFailTheRecord() throws Exception {
        Rig rig = new Rig(allPairs(new AtomicInteger()));
        rig.sqs.failing.add(RESPONSES);
        assertEquals(List.of("m1"), rig.run(record("m1", CHECK_ADDRESS)));
        assertTrue(rig.log().contains("\"code\":\"SEND_FAILED\""), rig.log());
        assertEquals("", rig.metrics(), "an answer not sent is not counted");

        Rig rig2 = new Rig(allPairs(new AtomicInteger()));
        rig2.sqs.failing.add(QUEUE);
        assertEquals(List.of("m1"), rig2.run(record("m1", ERASE_ADDRESS)));
        assertTrue(rig2.log().contains("\"code\":\"PASS_TWO_ENQUEUE_FAILED\",\"type\":\"erasure/ERASE\""));
        assertEquals(0, rig2.sqs.sent.size());

        Rig rig3 = new Rig(Map.of());
        rig3.sqs.failing.add(RESPONSES);
        assertEquals(List.of("m1"), rig3.run(record("m1", ERASE_ADDRESS)), "a NOT_APPLICABLE send failure too");
    }

    @Test
    void anOutcomeTheContractRefusesIsNeverSent() throws Exception {
        Rig rig = new Rig(Map.of(ERASE_ACCOUNT.pair(), returning("MOVED"), CHECK_ACCOUNT.pair(), returning("DONE"),
                CHECK_ADDRESS.pair(), returning(null), REFILE.pair(), returning("acct-secret-7731")));
        List<String> failed = rig.run(record("m1", ERASE_ACCOUNT), record("m2", CHECK_ACCOUNT),
                record("m3", CHECK_ADDRESS), record("m4", REFILE));
        assertEquals(List.of("m1", "m2", "m3", "m4"), failed);
        assertEquals(0, rig.sqs.sent.size());
        assertEquals(2, rig.log().split("\"code\":\"INVALID_RESPONSE\"").length - 1, rig.log());
        assertEquals(2, rig.log().split("\"code\":\"INVALID_MESSAGE\"").length - 1, rig.log());
    }

    @Test
    void aBatchMixingGoodAndBadRecordsFailsOnlyTheBadOnes() throws Exception {
        Rig rig = new Rig(Map.of(CHECK_ACCOUNT.pair(), returning("HOLDS_NONE"), ERASE_ACCOUNT.pair(),
                returning("DONE"), CLASSIFY_ACCOUNT.pair(), (req, pass, deadline) -> {
                    throw new RuntimeException("boom " + req.key());
                }));
        List<String> failed = rig.run(record("good-check", CHECK_ACCOUNT), record("not-json", "{"),
                record("good-erase", ERASE_ACCOUNT), record("throws", CLASSIFY_ACCOUNT),
                record("expired", CHECK_ACCOUNT.withExpiresAt(NOW.minusSeconds(5))),
                record("not-implemented", CHECK_ADDRESS),
                marked("forged", ERASE_ACCOUNT, "2", "DONE", "AROAOTHERROLE0000001:" + FUNCTION));
        assertEquals(List.of("not-json", "throws", "forged"), failed);
        assertEquals(2, rig.answers().size());
        assertEquals(1, rig.passTwos().size());
    }

    @Test
    void handleNeverThrows() {
        Rig rig = new Rig(Map.of());
        assertEquals(0, rig.kit.handle(null, null).getBatchItemFailures().size());
        assertEquals(0, rig.kit.handle(new SQSEvent(), null).getBatchItemFailures().size());
        SQSEvent.SQSMessage bare = new SQSEvent.SQSMessage();
        bare.setMessageId("bare");
        bare.setBody(body(ERASE_ACCOUNT));
        assertEquals(List.of(), rig.run(bare), "no attribute maps at all: pass one, answered NOT_APPLICABLE");
    }

    @Test
    void environmentProblemsNameTheVariableNeverTheValue() {
        Map<Pair, StoreFunction> impls = allPairs(new AtomicInteger());
        EnvironmentException missing = assertThrows(EnvironmentException.class,
                () -> ErasureHandler.fromEnvironment(impls, name -> null, new FakeSqs()));
        for (String v : HandlerEnvironment.VARIABLES) {
            assertTrue(missing.has(v), v);
            assertTrue(missing.getMessage().contains(v + ": missing"), missing.getMessage());
        }
        assertTrue(missing.has(ErasureHandler.FUNCTION_NAME_VARIABLE));

        Map<String, String> bad = Map.of(
                "ERASURE_PASS_TWO_DELAY_SECONDS", String.valueOf(C.passTwoDelayCapSeconds() + 1),
                "ERASURE_BATCH_TIMEOUT_SECONDS", "0",
                "ERASURE_SUBSCRIBER", "Secret-Store",
                "ERASURE_RESPONSE_QUEUE_URL", "sqs://secret-queue",
                "ERASURE_QUEUE_URL", "secret-own-queue",
                "ERASURE_HANDLER_ROLE_ID", "AKIASECRETKEY00000001",
                "AWS_LAMBDA_FUNCTION_NAME", FUNCTION);
        EnvironmentException e = assertThrows(EnvironmentException.class,
                () -> ErasureHandler.fromEnvironment(impls, bad::get, new FakeSqs()));
        assertEquals("erasure handler environment: "
                + "ERASURE_PASS_TWO_DELAY_SECONDS: above the cap of " + C.passTwoDelayCapSeconds()
                + " s (passTwoDelayCapSeconds); "
                + "ERASURE_BATCH_TIMEOUT_SECONDS: below the minimum of 1 s; "
                + "ERASURE_SUBSCRIBER: not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter); "
                + "ERASURE_RESPONSE_QUEUE_URL: not an http(s) queue URL; "
                + "ERASURE_QUEUE_URL: not an http(s) queue URL; "
                + "ERASURE_HANDLER_ROLE_ID: not an IAM role's unique id (AROA followed by upper-case letters and digits)",
                e.getMessage());
        assertFalse(e.getMessage().toLowerCase().contains("secret"));

        Map<String, String> good = new HashMap<>(bad);
        good.putAll(Map.of("ERASURE_PASS_TWO_DELAY_SECONDS", "0",
                "ERASURE_BATCH_TIMEOUT_SECONDS", String.valueOf(Math.min(C.batchTimeoutCapSeconds(),
                        C.handlerTimeoutCapSeconds()) + 1),
                "ERASURE_SUBSCRIBER", "space", "ERASURE_RESPONSE_QUEUE_URL", RESPONSES, "ERASURE_QUEUE_URL", QUEUE,
                "ERASURE_HANDLER_ROLE_ID", ROLE));
        EnvironmentException cap = assertThrows(EnvironmentException.class,
                () -> ErasureHandler.fromEnvironment(impls, good::get, new FakeSqs()));
        assertEquals(List.of(new EnvironmentException.Problem("ERASURE_BATCH_TIMEOUT_SECONDS",
                "above the cap of " + Math.min(C.batchTimeoutCapSeconds(), C.handlerTimeoutCapSeconds())
                        + " s (batchTimeoutCapSeconds)")), cap.problems());
        for (String notSeconds : new String[] {"+5", "5s", "1e1", " 5", "0x10", "1234567", "٥"}) {
            good.put("ERASURE_BATCH_TIMEOUT_SECONDS", notSeconds);
            EnvironmentException n = assertThrows(EnvironmentException.class,
                    () -> ErasureHandler.fromEnvironment(impls, good::get, new FakeSqs()));
            assertEquals("ERASURE_BATCH_TIMEOUT_SECONDS: not a whole number of seconds",
                    n.problems().get(0).toString(), notSeconds);
        }
        good.put("ERASURE_BATCH_TIMEOUT_SECONDS", "5");
        good.remove("AWS_LAMBDA_FUNCTION_NAME");
        EnvironmentException fn = assertThrows(EnvironmentException.class,
                () -> ErasureHandler.fromEnvironment(impls, good::get, new FakeSqs()));
        assertEquals(List.of(ErasureHandler.FUNCTION_NAME_VARIABLE),
                fn.problems().stream().map(EnvironmentException.Problem::variable).toList());
        // Without a destructive pair the function name is not needed; with everything right the kit builds.
        assertNotNull(ErasureHandler.fromEnvironment(Map.of(CHECK_ACCOUNT.pair(), returning("HOLDS_NONE")),
                good::get, new FakeSqs()));
        good.put("AWS_LAMBDA_FUNCTION_NAME", FUNCTION);
        assertNotNull(ErasureHandler.fromEnvironment(impls, good::get, new FakeSqs()));
    }

    @Test
    void aPairAStoreCannotImplementIsRefusedAtBuild() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Rig(Map.of(
                Pair.of(MessageType.REFILE, KeyKind.ACCOUNT), returning("MOVED"),
                Pair.of(MessageType.ACK, KeyKind.ACCOUNT), returning("DONE"))));
        assertTrue(e.getMessage().contains("erasure/REFILE with ACCOUNT: not a pair a store can implement"));
        assertTrue(e.getMessage().contains("erasure/ACK with ACCOUNT: not a pair a store can implement"));
    }
}
