package com.linncloud.erasure.handlerkit;

import static com.linncloud.erasure.handlerkit.ContractException.invalid;

import com.linncloud.erasure.handlerkit.ContractException.Code;
import com.linncloud.erasure.handlerkit.WireScanner.Member;
import com.linncloud.erasure.handlerkit.WireScanner.WireObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The contract's validator and encoder, the twin of Go's {@code contract/parse.go} and {@code encode.go}: the
 * strict wire profile ({@link WireScanner}) and then every rule of {@code schema/erasure-contract.schema.json},
 * written by hand. The fixtures of {@code schema/fixtures/manifest.json} prove it agrees with Go and ajv.
 */
public final class Contract {
    private Contract() {
    }

    // The limits below mirror erasure-contract.schema.json; the parity test over the fixtures keeps them in step.
    private static final int REQUEST_ID_MAX = 128; // $defs/requestId maxLength
    private static final long SEND_NO_MAX = 2147483647L; // $defs/sendNo maximum
    private static final int ACCOUNT_ID_MAX = 128; // $defs/accountId maxLength
    private static final int ADDRESS_MIN = 3; // $defs/address minLength
    private static final int ADDRESS_MAX = 320; // $defs/address maxLength, $defs/key maxLength
    private static final int SUBSCRIBER_MAX = 64; // $defs/subscriber pattern

    /** The exact member set of each type (closed objects). */
    private static final Map<MessageType, Set<Field>> ALLOWED = new EnumMap<>(MessageType.class);

    static {
        ALLOWED.put(MessageType.ERASE, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.SEND_NO, Field.EXPIRES_AT,
                Field.KEY_KIND, Field.KEY));
        ALLOWED.put(MessageType.REFILE, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.SEND_NO, Field.EXPIRES_AT,
                Field.KEY_KIND, Field.FROM, Field.TO, Field.ACCOUNT_ID));
        ALLOWED.put(MessageType.CLASSIFY, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.EXPIRES_AT, Field.KEY_KIND,
                Field.KEY));
        ALLOWED.put(MessageType.CHECK, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.EXPIRES_AT, Field.KEY_KIND,
                Field.KEY));
        ALLOWED.put(MessageType.ACK, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.SEND_NO, Field.SUBSCRIBER,
                Field.OUTCOME));
        ALLOWED.put(MessageType.REFILE_ACK, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.SEND_NO, Field.SUBSCRIBER,
                Field.OUTCOME));
        ALLOWED.put(MessageType.HOLDINGS, EnumSet.of(Field.TYPE, Field.REQUEST_ID, Field.SUBSCRIBER, Field.KEY_KIND,
                Field.KEY, Field.ANSWER));
    }

    /**
     * Parses and validates a request body (ERASE, REFILE, CLASSIFY or CHECK). Throws NOT_JSON, INVALID_MESSAGE or
     * NOT_A_REQUEST. It does not judge expiry: see {@link Request#expired}.
     */
    public static Request parseRequest(byte[] body) throws ContractException {
        Object m = parse(body);
        if (!(m instanceof Request r)) {
            throw new ContractException(Code.NOT_A_REQUEST, "type", "response");
        }
        return r;
    }

    /** Parses and validates a response body (ACK, REFILE_ACK or HOLDINGS); throws NOT_A_RESPONSE for a request. */
    public static Response parseResponse(byte[] body) throws ContractException {
        Object m = parse(body);
        if (!(m instanceof Response r)) {
            throw new ContractException(Code.NOT_A_RESPONSE, "type", "request");
        }
        return r;
    }

    /** Validates any contract message and returns its type; throws NOT_JSON or INVALID_MESSAGE. */
    public static MessageType validate(byte[] body) throws ContractException {
        Object m = parse(body);
        return m instanceof Request r ? r.type() : ((Response) m).type();
    }

    /** A Request or a Response. */
    private static Object parse(byte[] body) throws ContractException {
        WireObject w = WireScanner.scan(body);
        Member typeMember = w.members.get(Field.TYPE);
        if (typeMember == null || !typeMember.isStr) {
            throw invalid("type", "missing-or-not-string");
        }
        MessageType t = MessageType.fromWire(typeMember.str);
        if (t == null) {
            throw invalid("type", "unknown-type");
        }
        Set<Field> want = ALLOWED.get(t);
        for (Field f : w.members.keySet()) {
            if (!want.contains(f)) {
                throw invalid(f.wireName, "not-allowed-for-type");
            }
        }
        for (Field f : want) {
            if (!w.members.containsKey(f)) {
                throw invalid(f.wireName, "missing");
            }
        }
        return t.isRequest() ? decodeRequest(t, w) : decodeResponse(t, w);
    }

    private static Request decodeRequest(MessageType t, WireObject w) throws ContractException {
        String requestId = string(w, Field.REQUEST_ID, Contract::isRequestId);
        int sendNo = t.hasSendNo() ? sendNo(w) : 0;
        Member ts = w.members.get(Field.EXPIRES_AT);
        if (!ts.isStr) {
            throw invalid("expiresAt", "not-string");
        }
        Instant expiresAt = parseUtcZ(ts.str);
        if (expiresAt == null) {
            throw invalid("expiresAt", "pattern");
        }
        KeyKind kind = keyKind(w);
        if (t == MessageType.REFILE) {
            if (kind != KeyKind.ADDRESS) {
                throw invalid("keyKind", "refile-needs-address");
            }
            String from = string(w, Field.FROM, Contract::isAddress);
            String to = string(w, Field.TO, Contract::isAddress);
            String accountId = string(w, Field.ACCOUNT_ID, Contract::isAccountId);
            return new Request(t, requestId, sendNo, expiresAt, kind, null, from, to, accountId);
        }
        return new Request(t, requestId, sendNo, expiresAt, kind, key(w, kind), null, null, null);
    }

    private static Response decodeResponse(MessageType t, WireObject w) throws ContractException {
        String requestId = string(w, Field.REQUEST_ID, Contract::isRequestId);
        String subscriber = string(w, Field.SUBSCRIBER, Contract::isSubscriberName);
        if (t == MessageType.HOLDINGS) {
            KeyKind kind = keyKind(w);
            String key = key(w, kind);
            String answer = string(w, Field.ANSWER, a -> isAnswer(a));
            return new Response(t, requestId, 0, subscriber, null, kind, key, answer);
        }
        int sendNo = sendNo(w);
        String outcome = string(w, Field.OUTCOME, o -> isOutcomeOf(t, o));
        return new Response(t, requestId, sendNo, subscriber, outcome, null, null, null);
    }

    private interface Rule {
        boolean ok(String s);
    }

    private static String string(WireObject w, Field f, Rule rule) throws ContractException {
        Member m = w.members.get(f);
        if (!m.isStr) {
            throw invalid(f.wireName, "not-string");
        }
        if (!rule.ok(m.str)) {
            throw invalid(f.wireName, "pattern");
        }
        return m.str;
    }

    private static int sendNo(WireObject w) throws ContractException {
        Member m = w.members.get(Field.SEND_NO);
        if (!m.isNum) {
            throw invalid("sendNo", "not-integer");
        }
        if (m.num < 1 || m.num > SEND_NO_MAX) {
            throw invalid("sendNo", "range");
        }
        return (int) m.num;
    }

    private static KeyKind keyKind(WireObject w) throws ContractException {
        Member m = w.members.get(Field.KEY_KIND);
        if (!m.isStr) {
            throw invalid("keyKind", "not-string");
        }
        if (m.str.equals("ACCOUNT")) {
            return KeyKind.ACCOUNT;
        }
        if (m.str.equals("ADDRESS")) {
            return KeyKind.ADDRESS;
        }
        throw invalid("keyKind", "enum");
    }

    private static String key(WireObject w, KeyKind kind) throws ContractException {
        return string(w, Field.KEY, kind == KeyKind.ADDRESS ? Contract::isAddress : Contract::isAccountId);
    }

    /** Whether {@code o} is an outcome a response of type {@code t} (ACK or REFILE_ACK) may carry. */
    static boolean isOutcomeOf(MessageType t, String o) {
        switch (o) {
            case "NOT_APPLICABLE":
                return true;
            case "DONE":
                return t == MessageType.ACK;
            case "MOVED":
            case "NONE_OWNED":
            case "NOT_MOVED":
                return t == MessageType.REFILE_ACK;
            default:
                return false;
        }
    }

    private static boolean isAnswer(String a) {
        return a.equals("HOLDS_DATA") || a.equals("HOLDS_NONE") || a.equals("CANNOT_ANSWER")
                || a.equals("NOT_APPLICABLE");
    }

    /** $defs/requestId: 1 to 128 code points, none a control character. */
    static boolean isRequestId(String s) {
        return isPrintable(s, REQUEST_ID_MAX);
    }

    /** $defs/accountId: 1 to 128 code points, none a control character (U+0000-U+001F, U+007F). */
    static boolean isAccountId(String s) {
        return isPrintable(s, ACCOUNT_ID_MAX);
    }

    private static boolean isControl(char c) {
        return c < 0x20 || c == 0x7F;
    }

    private static boolean isPrintable(String s, int max) {
        int n = s.codePointCount(0, s.length());
        if (n < 1 || n > max) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (isControl(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** $defs/address: 3 to 320 code points, no A to Z, no control character, an @ with something on each side. */
    static boolean isAddress(String s) {
        int n = s.codePointCount(0, s.length());
        if (n < ADDRESS_MIN || n > ADDRESS_MAX) {
            return false;
        }
        boolean at = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c >= 'A' && c <= 'Z') || isControl(c)) {
                return false;
            }
            if (c == '@' && i > 0 && i < s.length() - 1) {
                at = true;
            }
        }
        return at;
    }

    /**
     * Whether {@code name} is a valid ErasureSubscriber name ($defs/subscriber): 1 to 64 of a-z, 0-9 and -,
     * starting with a letter and not ending with -.
     */
    public static boolean isSubscriberName(String name) {
        int n = name.length();
        if (n == 0 || n > SUBSCRIBER_MAX || name.charAt(0) < 'a' || name.charAt(0) > 'z' || name.charAt(n - 1) == '-') {
            return false;
        }
        for (int i = 1; i < n; i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-') {
                return false;
            }
        }
        return true;
    }

    /**
     * $defs/expiresAt: YYYY-MM-DDThh:mm:ss[.f{1,9}]Z with a real calendar date (leap years included), hours
     * 00-23 and no leap second; null when it does not match.
     */
    static Instant parseUtcZ(String b) {
        int n = b.length();
        if (n < 20 || b.charAt(n - 1) != 'Z' || b.charAt(4) != '-' || b.charAt(7) != '-' || b.charAt(10) != 'T'
                || b.charAt(13) != ':' || b.charAt(16) != ':') {
            return null;
        }
        int year = digits(b, 0, 4);
        int month = digits(b, 5, 7);
        int day = digits(b, 8, 10);
        int hour = digits(b, 11, 13);
        int minute = digits(b, 14, 16);
        int sec = digits(b, 17, 19);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 || hour > 23
                || minute < 0 || minute > 59 || sec < 0 || sec > 59) {
            return null;
        }
        int nanos = 0;
        int fracLen = n - 1 - 19; // the fraction with its '.'
        if (fracLen > 0) {
            if (b.charAt(19) != '.' || fracLen < 2 || fracLen > 10) {
                return null;
            }
            int f = digits(b, 20, n - 1);
            if (f < 0) {
                return null;
            }
            for (int i = fracLen - 1; i < 9; i++) {
                f *= 10;
            }
            nanos = f;
        }
        return LocalDateTime.of(year, month, day, hour, minute, sec, nanos).toInstant(ZoneOffset.UTC);
    }

    /** The ASCII decimal digits b[from, to) as a number, or -1. */
    private static int digits(String b, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            char c = b.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static int daysIn(int year, int month) {
        switch (month) {
            case 2:
                return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    /**
     * Writes {@code r} as its wire body (members in Go's order) and validates the result with the rules
     * {@link #parseResponse} applies: the check made before every send. Throws INVALID_MESSAGE (or
     * NOT_A_RESPONSE for a request type) for an answer that would not pass.
     */
    public static byte[] encodeResponse(Response r) throws ContractException {
        if (r.type() == null || !r.type().isResponse()) {
            throw new ContractException(Code.NOT_A_RESPONSE, "type", "request");
        }
        StringBuilder b = new StringBuilder(192);
        member(b, "type", r.type().wire(), true);
        member(b, "requestId", r.requestId(), false);
        if (r.type().hasSendNo()) {
            b.append(",\"sendNo\":").append(r.sendNo());
        }
        member(b, "subscriber", r.subscriber(), false);
        if (r.type() == MessageType.HOLDINGS) {
            member(b, "keyKind", r.keyKind() == null ? null : r.keyKind().name(), false);
            member(b, "key", r.key(), false);
            member(b, "answer", r.answer(), false);
        } else {
            member(b, "outcome", r.outcome(), false);
        }
        b.append('}');
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        try {
            parseResponse(body);
        } catch (ContractException e) {
            throw e.code() == Code.NOT_JSON ? invalid("", "not-utf8") : e;
        }
        return body;
    }

    /**
     * Writes {@code r} as its wire body (members in Go's order) and validates it with {@link #parseRequest}'s
     * rules; expiresAt is written with only as many fraction digits as it needs.
     */
    public static byte[] encodeRequest(Request r) throws ContractException {
        if (r.type() == null || !r.type().isRequest()) {
            throw new ContractException(Code.NOT_A_REQUEST, "type", "response");
        }
        StringBuilder b = new StringBuilder(256);
        member(b, "type", r.type().wire(), true);
        member(b, "requestId", r.requestId(), false);
        if (r.type().hasSendNo()) {
            b.append(",\"sendNo\":").append(r.sendNo());
        }
        member(b, "expiresAt", r.expiresAt() == null ? null : formatTime(r.expiresAt()), false);
        member(b, "keyKind", r.keyKind() == null ? null : r.keyKind().name(), false);
        if (r.type() == MessageType.REFILE) {
            member(b, "from", r.from(), false);
            member(b, "to", r.to(), false);
            member(b, "accountId", r.accountId(), false);
        } else {
            member(b, "key", r.key(), false);
        }
        b.append('}');
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        try {
            parseRequest(body);
        } catch (ContractException e) {
            throw e.code() == Code.NOT_JSON ? invalid("", "not-utf8") : e;
        }
        return body;
    }

    /** The contract's UTC timestamp: ISO-8601 in UTC ending in Z, with only the fraction digits it needs. */
    public static String formatTime(Instant t) {
        String s = DateTimeFormatter.ISO_INSTANT.format(t); // 2026-01-02T03:04:05[.fff[fff[fff]]]Z
        int dot = s.indexOf('.');
        if (dot < 0) {
            return s;
        }
        int end = s.length() - 1;
        while (end > dot + 1 && s.charAt(end - 1) == '0') {
            end--;
        }
        return end == dot + 1 ? s.substring(0, dot) + "Z" : s.substring(0, end) + "Z";
    }

    /** Appends {@code "name":value}; a null value is written as JSON null, so validation refuses it. */
    private static void member(StringBuilder b, String name, String value, boolean first) {
        b.append(first ? '{' : ',').append('"').append(name).append("\":");
        if (value == null) {
            b.append("null");
        } else {
            appendString(b, value);
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Writes {@code s} as a JSON string, escaping only what JSON requires. A lone surrogate is written as its
     * escape, so validation refuses it (a Java string can hold one; UTF-8 cannot).
     */
    static void appendString(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF])
                        .append(HEX[c & 0xF]);
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
