package com.linncloud.erasure.handlerkit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

/**
 * The strict wire profile every twin applies before the schema (docs/contract.md), the twin of Go's
 * {@code contract/wire.go}:
 * <ul>
 *   <li>the body is valid UTF-8 with no byte order mark (else NOT_JSON);</li>
 *   <li>it is exactly one RFC 8259 JSON text with nothing after it (else NOT_JSON);</li>
 *   <li>that text is an object (else INVALID_MESSAGE);</li>
 *   <li>its member names are unique after unescaping, compared case-sensitively;</li>
 *   <li>no string holds a lone UTF-16 surrogate escape;</li>
 *   <li>every number is written as plain digits (no sign, fraction or exponent).</li>
 * </ul>
 * A profile break is INVALID_MESSAGE; syntax is judged first, so a body that breaks the profile and is also
 * malformed is NOT_JSON. Jackson's streaming parser reads the syntax (its defaults are RFC 8259 strict); its
 * size limits are lifted so only the contract's rules decide. Jackson refuses a lone surrogate escape in a
 * member name as a syntax error, where the profile calls it a profile break: {@link #dropLoneSurrogates}
 * replaces every lone surrogate escape by the escape of U+FFFD (same length, same syntax) before Jackson reads
 * the text, and records the break.
 */
final class WireScanner {
    private WireScanner() {
    }

    /** The value of one known top-level member: a string, a number, or anything else. */
    static final class Member {
        String str; // unescaped string value
        long num; // plain-digit number, or -1 past Long.MAX_VALUE
        boolean isStr;
        boolean isNum;
    }

    /** What the scanner keeps: the known members present, by field. */
    static final class WireObject {
        final Map<Field, Member> members = new EnumMap<>(Field.class);
    }

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES) // no shared symbol table to flood
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION) // no input in any exception text
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .build())
            .build();

    /** Applies the profile to {@code body}; returns the known members or throws NOT_JSON / INVALID_MESSAGE. */
    static WireObject scan(byte[] body) throws ContractException {
        if (body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF) {
            throw ContractException.notJson("byte-order-mark");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw ContractException.notJson("invalid-utf8");
        }
        boolean[] lone = new boolean[1];
        text = dropLoneSurrogates(text, lone);
        WireObject obj = new WireObject();
        ContractException broken;
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw ContractException.notJson("empty");
            }
            if (t == JsonToken.START_OBJECT) {
                broken = topObject(p, obj);
            } else {
                broken = ContractException.invalid("", "not-an-object");
                p.skipChildren(); // a container is read to its end, so its syntax is judged
            }
            if (p.nextToken() != null) {
                throw ContractException.notJson("trailing-data");
            }
        } catch (IOException e) { // JsonParseException and its kin: a syntax error
            throw ContractException.notJson("syntax");
        }
        if (lone[0]) {
            throw ContractException.invalid("", "lone-surrogate");
        }
        if (broken != null) {
            throw broken;
        }
        return obj;
    }

    /** Reads the top-level object after its '{'; returns the first profile or schema break, or null. */
    private static ContractException topObject(JsonParser p, WireObject obj) throws IOException {
        ContractException broken = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            t = p.nextToken();
            Field f = Field.lookup(name);
            ContractException b = null;
            if (f == null) {
                // Closed objects: an unknown name (one with a lone surrogate included) is a break. Its value
                // is still read for syntax.
                b = ContractException.invalid("", hasLoneSurrogate(name) ? "lone-surrogate" : "unknown-member");
                p.skipChildren();
            } else if (obj.members.containsKey(f)) {
                b = ContractException.invalid(f.wireName, "duplicate-member");
                p.skipChildren();
            } else {
                Member m = new Member();
                obj.members.put(f, m);
                b = memberValue(p, t, m, f);
            }
            if (broken == null) {
                broken = b;
            }
        }
        if (t != JsonToken.END_OBJECT) { // Jackson throws first; kept as a guard
            throw new IOException("not an object end");
        }
        return broken;
    }

    /** Keeps a known member's string or number; any other value is skipped (a type break found later). */
    private static ContractException memberValue(JsonParser p, JsonToken t, Member m, Field f) throws IOException {
        switch (t) {
            case VALUE_STRING: {
                m.str = p.getText();
                m.isStr = true;
                return hasLoneSurrogate(m.str) ? ContractException.invalid(f.wireName, "lone-surrogate") : null;
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT: {
                String lexeme = p.getText(); // the number as written
                m.isNum = true;
                if (t != JsonToken.VALUE_NUMBER_INT || !plainDigits(lexeme)) {
                    return ContractException.invalid(f.wireName, "number-not-plain-digits");
                }
                m.num = lexeme.length() > 18 ? -1 : Long.parseLong(lexeme);
                return null;
            }
            default:
                p.skipChildren();
                return null;
        }
    }

    private static boolean plainDigits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code s} holds a UTF-16 surrogate that is not half of a pair (only an escape can make one). */
    static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return true;
            }
            if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Replaces each u-escape (backslash, u, four hex digits) of a surrogate that is not half of an escaped pair
     * by the escape of U+FFFD and sets {@code found[0]}. Every backslash starts an escape: inside strings that is JSON's rule, and
     * outside them the backslash is a syntax error, which the replacement (hex digits for hex digits) keeps.
     */
    static String dropLoneSurrogates(String text, boolean[] found) {
        if (text.indexOf('\\') < 0) {
            return text;
        }
        char[] c = null;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            if (text.charAt(i) != '\\' || i + 1 >= n) {
                continue;
            }
            if (text.charAt(i + 1) != 'u') {
                i++; // a one-character escape such as \\ or \"
                continue;
            }
            int u = hex4(text, i + 2);
            if (u < 0 || !Character.isSurrogate((char) u)) {
                i += 1;
                continue;
            }
            if (Character.isHighSurrogate((char) u) && i + 7 < n && text.charAt(i + 6) == '\\'
                    && text.charAt(i + 7) == 'u') {
                int lo = hex4(text, i + 8);
                if (lo >= 0 && Character.isLowSurrogate((char) lo)) {
                    i += 11; // a pair: both escapes kept
                    continue;
                }
            }
            if (c == null) {
                c = text.toCharArray();
            }
            c[i + 2] = 'F';
            c[i + 3] = 'F';
            c[i + 4] = 'F';
            c[i + 5] = 'D';
            found[0] = true;
            i += 5;
        }
        return c == null ? text : new String(c);
    }

    /** The four hex digits at s[from, from+4) as a number, or -1. */
    private static int hex4(String s, int from) {
        if (from + 4 > s.length()) {
            return -1;
        }
        int v = 0;
        for (int i = from; i < from + 4; i++) {
            int d = Character.digit(s.charAt(i), 16);
            if (d < 0 || s.charAt(i) > 'f') {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }
}
