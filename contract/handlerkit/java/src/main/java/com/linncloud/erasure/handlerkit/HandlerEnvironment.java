package com.linncloud.erasure.handlerkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A store handler's configuration, read from the six variables the ErasureSubscriber construct sets and checked
 * against the channel's caps with the same rules and wording as Go's {@code contract/env.go}.
 *
 * @param passTwoDelay     ERASURE_PASS_TWO_DELAY_SECONDS: the delay before pass two, 0 to X
 * @param batchTimeout     ERASURE_BATCH_TIMEOUT_SECONDS: the limit on one store call, 1 to min(b, T)
 * @param subscriber       ERASURE_SUBSCRIBER: the subscriber of every answer
 * @param responseQueueUrl ERASURE_RESPONSE_QUEUE_URL: the channel's response queue
 * @param queueUrl         ERASURE_QUEUE_URL: the store's own queue, where pass two is re-sent
 * @param roleId           ERASURE_HANDLER_ROLE_ID: the unique id (AROA…) of the handler's own role
 */
public record HandlerEnvironment(Duration passTwoDelay, Duration batchTimeout, String subscriber,
                                 String responseQueueUrl, String queueUrl, String roleId) {

    /** The delay before pass two. */
    public static final String PASS_TWO_DELAY_SECONDS = "ERASURE_PASS_TWO_DELAY_SECONDS";
    /** The client-side limit on one store call. */
    public static final String BATCH_TIMEOUT_SECONDS = "ERASURE_BATCH_TIMEOUT_SECONDS";
    /** The store's subscriber name. */
    public static final String SUBSCRIBER = "ERASURE_SUBSCRIBER";
    /** The channel's response queue. */
    public static final String RESPONSE_QUEUE_URL = "ERASURE_RESPONSE_QUEUE_URL";
    /** The store's own erasure queue. */
    public static final String QUEUE_URL = "ERASURE_QUEUE_URL";
    /** The unique id of the handler's own role. */
    public static final String HANDLER_ROLE_ID = "ERASURE_HANDLER_ROLE_ID";

    /** Every variable {@link #load} reads, in its order. */
    public static final List<String> VARIABLES = List.of(PASS_TWO_DELAY_SECONDS, BATCH_TIMEOUT_SECONDS, SUBSCRIBER,
            RESPONSE_QUEUE_URL, QUEUE_URL, HANDLER_ROLE_ID);

    /**
     * Reads the environment through {@code lookup} ({@code System::getenv} in a Lambda) and checks it against
     * {@code c}; every problem is reported together in one {@link EnvironmentException}.
     */
    public static HandlerEnvironment load(Function<String, String> lookup, Constants c) {
        List<EnvironmentException.Problem> problems = new ArrayList<>();
        String[] v = new String[VARIABLES.size()];
        for (int i = 0; i < v.length; i++) {
            String name = VARIABLES.get(i);
            String raw = lookup.apply(name);
            String p = raw == null || raw.isEmpty() ? "missing" : variableProblem(name, raw, c);
            if (p != null) {
                problems.add(new EnvironmentException.Problem(name, p));
            }
            v[i] = raw;
        }
        if (!problems.isEmpty()) {
            throw new EnvironmentException(problems);
        }
        return new HandlerEnvironment(Duration.ofSeconds(plainSeconds(v[0])), Duration.ofSeconds(plainSeconds(v[1])),
                v[2], v[3], v[4], v[5]);
    }

    /**
     * What is wrong with one variable's present, non-empty value, or null when nothing: Go's
     * {@code contract.HandlerVariableProblem}. It names the rule, never the value.
     */
    public static String variableProblem(String name, String value, Constants c) {
        switch (name) {
            case PASS_TWO_DELAY_SECONDS:
                return seconds(value, 0, c.passTwoDelayCapSeconds(), "passTwoDelayCapSeconds");
            case BATCH_TIMEOUT_SECONDS: {
                int cap = c.batchTimeoutCapSeconds();
                String capName = "batchTimeoutCapSeconds";
                if (c.handlerTimeoutCapSeconds() < cap) {
                    cap = c.handlerTimeoutCapSeconds();
                    capName = "handlerTimeoutCapSeconds";
                }
                return seconds(value, 1, cap, capName);
            }
            case SUBSCRIBER:
                return Contract.isSubscriberName(value) ? null
                        : "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)";
            case RESPONSE_QUEUE_URL:
            case QUEUE_URL:
                return value.startsWith("https://") || value.startsWith("http://") ? null
                        : "not an http(s) queue URL";
            case HANDLER_ROLE_ID:
                return isRoleId(value) ? null
                        : "not an IAM role's unique id (AROA followed by upper-case letters and digits)";
            default:
                return null;
        }
    }

    private static String seconds(String value, int min, int max, String capName) {
        int n = plainSeconds(value);
        if (n < 0) {
            return "not a whole number of seconds";
        }
        if (n < min) {
            return "below the minimum of " + min + " s";
        }
        if (n > max) {
            return "above the cap of " + max + " s (" + capName + ")";
        }
        return null;
    }

    /** 1 to 6 ASCII digits and nothing else, as a number; -1 otherwise. */
    private static int plainSeconds(String s) {
        if (s.isEmpty() || s.length() > 6) {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < '0' || ch > '9') {
                return -1;
            }
            n = n * 10 + (ch - '0');
        }
        return n;
    }

    /** Whether {@code s} is an IAM role's unique id: "AROA" then upper-case letters and digits, 16 to 128 long. */
    public static boolean isRoleId(String s) {
        if (s.length() < 16 || s.length() > 128 || !s.startsWith("AROA")) {
            return false;
        }
        for (int i = 4; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (!(ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9')) {
                return false;
            }
        }
        return true;
    }

    /** The SenderId SQS reports for a message this handler sends itself: {@code "<role id>:<function name>"}. */
    public static String senderId(String roleId, String functionName) {
        return roleId + ":" + functionName;
    }

    /** Never shows the queue URLs (they name the account). */
    @Override
    public String toString() {
        return "HandlerEnvironment[subscriber=" + subscriber + ", passTwoDelay=" + passTwoDelay + ", batchTimeout="
                + batchTimeout + "]";
    }
}
