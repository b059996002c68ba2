package com.linncloud.erasure.handlerkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The channel's constants, read from {@code schema/erasure-channel-constants.json}, which the build copies into
 * the jar: no cap is ever retyped here. Every entry with a derivation is checked against it when loaded.
 */
public final class Constants {
    private static final String RESOURCE = "erasure-channel-constants.json";
    private static volatile Constants channel;

    private final Map<String, Long> values;

    private Constants(Map<String, Long> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /** The constants the kit was built with (the jar's copy of the repository's file). */
    public static Constants channel() {
        Constants c = channel;
        if (c == null) {
            try (InputStream in = Constants.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("erasure kit: " + RESOURCE + " is missing from the jar");
                }
                c = parse(in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            channel = c;
        }
        return c;
    }

    /** Reads a constants document and checks every derivation in it. */
    static Constants parse(byte[] json) throws IOException {
        Object doc = MiniJson.read(json);
        Map<String, Long> values = new LinkedHashMap<>();
        Map<String, String> derivations = new LinkedHashMap<>();
        for (String section : new String[] {"constants", "awsLimits"}) {
            Map<?, ?> entries = (Map<?, ?>) ((Map<?, ?>) doc).get(section);
            if (entries == null) {
                throw new IOException("constants: no " + section);
            }
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                Map<?, ?> entry = (Map<?, ?>) e.getValue();
                if (!(entry.get("value") instanceof Long v)) {
                    throw new IOException("constants: " + e.getKey() + " has no whole value");
                }
                values.put((String) e.getKey(), v);
                if (entry.get("derivation") instanceof String d) {
                    derivations.put((String) e.getKey(), d);
                }
            }
        }
        Constants c = new Constants(values);
        for (Map.Entry<String, String> d : derivations.entrySet()) {
            if (c.evaluate(d.getValue()) != c.get(d.getKey())) {
                throw new IOException("constants: " + d.getKey() + " is not " + d.getValue());
            }
        }
        return c;
    }

    /** Evaluates a derivation: names joined by + and * (with * binding tighter). */
    long evaluate(String expr) {
        long sum = 0;
        for (String term : expr.split("\\+")) {
            long product = 1;
            for (String factor : term.split("\\*")) {
                product *= get(factor.trim());
            }
            sum += product;
        }
        return sum;
    }

    /** The value of a constant or AWS limit by its name in the file, e.g. {@code batchTimeoutCapSeconds}. */
    public long get(String name) {
        Long v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("erasure kit: no constant " + name);
        }
        return v;
    }

    /** T: the longest a store's erasure handler may run. */
    public int handlerTimeoutCapSeconds() {
        return (int) get("handlerTimeoutCapSeconds");
    }

    /** X: the longest delay before pass two. */
    public int passTwoDelayCapSeconds() {
        return (int) get("passTwoDelayCapSeconds");
    }

    /** b: the client-side limit on one store call. */
    public int batchTimeoutCapSeconds() {
        return (int) get("batchTimeoutCapSeconds");
    }

    /** R: a request expires this long after it is published. */
    public int expiryPeriodSeconds() {
        return (int) get("expiryPeriodSeconds");
    }
}
