package com.linncloud.erasure.handlerkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Parity with Go and the ajv twin: every file of schema/fixtures/manifest.json gets the manifest's validate and
 * parseRequest verdicts, read as raw bytes; and every capability pair's answers pass the kit's own validator.
 */
class ParityTest {

    static String validateVerdict(byte[] body) {
        try {
            Contract.validate(body);
            return "VALID";
        } catch (ContractException e) {
            return e.code().name();
        }
    }

    static String parseRequestVerdict(byte[] body) {
        try {
            Contract.parseRequest(body);
            return "OK";
        } catch (ContractException e) {
            return e.code().name();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyManifestFixture() throws Exception {
        Map<?, ?> manifest = (Map<?, ?>) MiniJson.read(Fixtures.read("fixtures/manifest.json"));
        List<?> cases = (List<?>) manifest.get("cases");
        assertTrue(cases.size() > 100, "the manifest lists the fixture set");
        List<DynamicTest> tests = new ArrayList<>();
        for (Object o : cases) {
            Map<?, ?> c = (Map<?, ?>) o;
            String file = (String) c.get("file");
            tests.add(DynamicTest.dynamicTest(file, () -> {
                byte[] body = Fixtures.read("fixtures/" + file);
                assertEquals(c.get("validate"), validateVerdict(body), "validate " + file + " (" + c.get("why") + ")");
                assertEquals(c.get("parseRequest"), parseRequestVerdict(body),
                        "parseRequest " + file + " (" + c.get("why") + ")");
            }));
        }
        return tests.stream();
    }

    @Test
    void everyCapabilityAnswerPassesTheValidator() throws Exception {
        Map<?, ?> doc = (Map<?, ?>) MiniJson.read(Fixtures.read("erasure-capability-fixtures.json"));
        List<?> pairs = (List<?>) doc.get("pairs");
        assertEquals(Pair.IMPLEMENTABLE.size(), pairs.size());
        for (Object o : pairs) {
            Map<?, ?> p = (Map<?, ?>) o;
            byte[] body = MiniJson.write(p.get("request")).getBytes(StandardCharsets.UTF_8);
            Request req = Contract.parseRequest(body);
            assertEquals(p.get("type"), req.type().wire());
            assertEquals(p.get("keyKind"), req.keyKind().name());
            assertEquals(p.get("responseType"), req.type().responseType().wire());
            List<String> outcomes = new ArrayList<>();
            for (Object x : (List<?>) p.get("implementedOutcomes")) {
                outcomes.add((String) x);
            }
            outcomes.add((String) p.get("notImplementedOutcome"));
            for (String outcome : outcomes) {
                byte[] answer = Contract.encodeResponse(Response.answerFor(req, "capability-check", outcome));
                Response back = Contract.parseResponse(answer);
                assertEquals(outcome, back.outcomeOrAnswer());
                assertEquals("capability-check", back.subscriber());
            }
            // An outcome of another type is refused before anything is sent.
            String wrong = req.type() == MessageType.ERASE ? "MOVED" : "DONE";
            ContractException e = assertThrows(ContractException.class,
                    () -> Contract.encodeResponse(Response.answerFor(req, "capability-check", wrong)));
            assertEquals(ContractException.Code.INVALID_MESSAGE, e.code());
            // The request round-trips through the kit's own encoder, byte for byte.
            assertArrayEquals(body, Contract.encodeRequest(req));
        }
    }

    @Test
    void answersAreWrittenInGoFieldOrder() throws Exception {
        Request erase = Contract.parseRequest(Fixtures.read("fixtures/valid/erase-account.json"));
        assertEquals("{\"type\":\"erasure/ACK\",\"requestId\":\"" + erase.requestId() + "\",\"sendNo\":"
                + erase.sendNo() + ",\"subscriber\":\"space\",\"outcome\":\"DONE\"}",
                new String(Contract.encodeResponse(Response.answerFor(erase, "space", "DONE")), StandardCharsets.UTF_8));
        Request check = Contract.parseRequest(Fixtures.read("fixtures/valid/check-address.json"));
        assertEquals("{\"type\":\"erasure/HOLDINGS\",\"requestId\":\"" + check.requestId()
                + "\",\"subscriber\":\"space\",\"keyKind\":\"ADDRESS\",\"key\":\"" + check.key()
                + "\",\"answer\":\"HOLDS_NONE\"}",
                new String(Contract.encodeResponse(Response.answerFor(check, "space", "HOLDS_NONE")),
                        StandardCharsets.UTF_8));
    }

    @Test
    void responseFixturesRoundTripThroughTheEncoder() throws Exception {
        Map<?, ?> manifest = (Map<?, ?>) MiniJson.read(Fixtures.read("fixtures/manifest.json"));
        int n = 0;
        for (Object o : (List<?>) manifest.get("cases")) {
            String file = (String) ((Map<?, ?>) o).get("file");
            if (file.startsWith("response/")) {
                Response r = Contract.parseResponse(Fixtures.read("fixtures/" + file));
                Contract.parseResponse(Contract.encodeResponse(r));
                n++;
            }
        }
        assertTrue(n > 0);
    }

    /** Edge cases past the fixtures, judged as Go's scanner judges them. */
    @Test
    void wireProfileEdges() {
        String ok = "{\"type\":\"erasure/CHECK\",\"requestId\":\"r\",\"expiresAt\":\"2099-01-01T00:00:00Z\","
                + "\"keyKind\":\"ACCOUNT\",\"key\":\"a\"}";
        assertEquals("VALID", validateVerdict(bytes(ok)));
        assertEquals("NOT_JSON", validateVerdict(bytes(ok + "\u0000")));
        assertEquals("NOT_JSON", validateVerdict(bytes("\u0000" + ok)));
        assertEquals("NOT_JSON", validateVerdict(bytes(ok + " x")));
        assertEquals("VALID", validateVerdict(bytes(" \t\r\n" + ok + " \t\r\n")));
        assertEquals("NOT_JSON", validateVerdict(bytes("\u000B" + ok))); // vertical tab is not JSON whitespace
        assertEquals("NOT_JSON", validateVerdict(bytes("\u00A0" + ok)));
        // Very deep nesting is read to its end: INVALID (a nested value), not NOT_JSON.
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(deep)));
        assertEquals("NOT_JSON", validateVerdict(bytes("[".repeat(100_000) + "]".repeat(99_999))));
        // Numbers: any length is syntax; only plain digits pass the profile.
        String sendNo = "{\"type\":\"erasure/ERASE\",\"requestId\":\"r\",\"sendNo\":%s,\"expiresAt\":"
                + "\"2099-01-01T00:00:00Z\",\"keyKind\":\"ACCOUNT\",\"key\":\"a\"}";
        assertEquals("VALID", validateVerdict(bytes(String.format(sendNo, "2147483647"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(String.format(sendNo, "2147483648"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(String.format(sendNo, "9".repeat(5000)))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(String.format(sendNo, "1.0"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(String.format(sendNo, "1e0"))));
        assertEquals("NOT_JSON", validateVerdict(bytes(String.format(sendNo, "1."))));
        assertEquals("NOT_JSON", validateVerdict(bytes(String.format(sendNo, "01"))));
        assertEquals("NOT_JSON", validateVerdict(bytes(String.format(sendNo, "-"))));
        assertEquals("NOT_JSON", validateVerdict(bytes(String.format(sendNo, "Infinity"))));
        // Escapes: a lone surrogate anywhere at the top level is INVALID; a bad escape is NOT_JSON.
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(ok.replace("\"r\"", "\"\\ud800\""))));
        assertEquals("VALID", validateVerdict(bytes(ok.replace("\"r\"", "\"\\ud83d\\ude00\""))));
        assertEquals("NOT_JSON", validateVerdict(bytes(ok.replace("\"r\"", "\"\\x41\""))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(ok.replace("{", "{\"\\ud83d\\ude00\":1,"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(ok.replace("{", "{\"x\":{\"\\udc00\\ud800\":[\"\\ud800\"]},"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(ok.replace("\"r\"", "\"\\ud800\\u0041\""))));
        assertEquals("VALID", validateVerdict(bytes(ok.replace("\"r\"", "\"\\\\ud800\""))));
        assertEquals("NOT_JSON", validateVerdict(bytes(ok.replace("{", "{\"\\ud800\":1,,"))));
        assertEquals("NOT_JSON", validateVerdict(bytes(ok.replace("\"r\"", "\"\\u12\""))));
        // A long unknown member name or string is judged by the schema, not a parser limit.
        assertEquals("INVALID_MESSAGE",
                validateVerdict(bytes(ok.replace("{", "{\"" + "n".repeat(200_000) + "\":1,"))));
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(ok.replace("\"r\"", "\"" + "r".repeat(200_000) + "\""))));
        // Many distinct unknown names (a hash-flooding shape) are still judged INVALID, not NOT_JSON.
        StringBuilder many = new StringBuilder("{\"x\":{");
        for (int i = 0; i < 50_000; i++) {
            many.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":0");
        }
        assertEquals("INVALID_MESSAGE", validateVerdict(bytes(many.append("}}").toString())));
    }

    @Test
    void timestamps() {
        assertEquals(Instant.parse("2000-02-29T23:59:59.123456789Z"), Contract.parseUtcZ("2000-02-29T23:59:59.123456789Z"));
        assertEquals(Instant.parse("2099-01-01T00:00:00.100Z"), Contract.parseUtcZ("2099-01-01T00:00:00.1Z"));
        assertEquals(null, Contract.parseUtcZ("2100-02-29T00:00:00Z"));
        assertEquals(null, Contract.parseUtcZ("2099-01-01T00:00:00.Z"));
        assertEquals("2099-01-01T00:00:00Z", Contract.formatTime(Instant.parse("2099-01-01T00:00:00Z")));
        assertEquals("2099-01-01T00:00:00.5Z", Contract.formatTime(Instant.parse("2099-01-01T00:00:00.500Z")));
        assertEquals("2099-01-01T00:00:00.000000001Z", Contract.formatTime(Instant.parse("2099-01-01T00:00:00.000000001Z")));
    }

    @Test
    void lonesurrogateInAnAnswerIsRefusedNotSent() {
        Request r = new Request(MessageType.CHECK, "r", 0, Instant.parse("2099-01-01T00:00:00Z"), KeyKind.ACCOUNT,
                "a\ud800", null, null, null);
        ContractException e = assertThrows(ContractException.class,
                () -> Contract.encodeResponse(Response.answerFor(r, "space", "HOLDS_DATA")));
        assertEquals(ContractException.Code.INVALID_MESSAGE, e.code());
        assertFalse(e.getMessage().contains("a\ud800"));
    }

    @Test
    void constantsComeFromTheSchemaFileAndTheirDerivationsHold() throws Exception {
        Constants fromRepo = Constants.parse(Fixtures.read("erasure-channel-constants.json"));
        Constants inJar = Constants.channel();
        for (String name : new String[] {"handlerTimeoutCapSeconds", "passTwoDelayCapSeconds",
            "batchTimeoutCapSeconds", "expiryPeriodSeconds", "visibilityTimeoutCapSeconds"}) {
            assertEquals(fromRepo.get(name), inJar.get(name), name);
        }
        assertEquals(fromRepo.get("visibilityTimeoutMultiplier") * fromRepo.get("handlerTimeoutCapSeconds"),
                fromRepo.get("visibilityTimeoutCapSeconds"));
        byte[] broken = new String(Fixtures.read("erasure-channel-constants.json"), StandardCharsets.UTF_8)
                .replace("\"value\": 360", "\"value\": 361").getBytes(StandardCharsets.UTF_8);
        assertThrows(java.io.IOException.class, () -> Constants.parse(broken));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
