package com.linncloud.erasure.handlerkit;

import java.io.PrintStream;
import java.time.Clock;
import java.util.Arrays;

/**
 * The kit's two outputs besides SQS: JSON log lines on stderr holding only level, msg, code, type, pass,
 * outcome and delaySeconds (never a body, key, address, accountId or requestId), and CloudWatch embedded-metric
 * lines on stdout, byte for byte what Go's {@code storehandler.emitMetric} writes (members sorted by name).
 */
final class Telemetry {
    private final PrintStream log;
    private final PrintStream metrics;
    private final Clock clock;
    private final String subscriber;

    Telemetry(PrintStream log, PrintStream metrics, Clock clock, String subscriber) {
        this.log = log;
        this.metrics = metrics;
        this.clock = clock;
        this.subscriber = subscriber;
    }

    /** One log line; {@code code}, {@code type}, {@code outcome} and {@code delaySeconds} may be null, {@code pass} 0. */
    void log(String level, String msg, String code, MessageType type, int pass, String outcome, Integer delaySeconds) {
        StringBuilder b = new StringBuilder(128);
        b.append("{\"level\":");
        Contract.appendString(b, level);
        b.append(",\"msg\":");
        Contract.appendString(b, msg);
        if (code != null) {
            b.append(",\"code\":");
            Contract.appendString(b, code);
        }
        if (type != null) {
            b.append(",\"type\":");
            Contract.appendString(b, type.wire());
        }
        if (pass > 0) {
            b.append(",\"pass\":").append(pass);
        }
        if (outcome != null) {
            b.append(",\"outcome\":");
            Contract.appendString(b, outcome);
        }
        if (delaySeconds != null) {
            b.append(",\"delaySeconds\":").append(delaySeconds);
        }
        b.append('}');
        line(log, b);
    }

    /** Counts one NOT_APPLICABLE answer of {@code type}: ErasureNotApplicable by Subscriber. */
    void notApplicable(MessageType type) {
        metric("ErasureNotApplicable", "MessageType", type.wire(), false);
    }

    /** Counts one answer sent: ErasureAnswers by Subscriber and Outcome. */
    void answer(String outcome) {
        metric("ErasureAnswers", "Outcome", outcome, true);
    }

    private void metric(String name, String extraKey, String extraValue, boolean extraIsDimension) {
        // Go's json.Marshal of a map: members sorted by name (upper case before "_aws").
        StringBuilder b = new StringBuilder(256);
        b.append('{');
        String[][] top = {{name, null}, {extraKey, extraValue}, {"Subscriber", subscriber}};
        Arrays.sort(top, (x, y) -> x[0].compareTo(y[0]));
        for (String[] m : top) {
            Contract.appendString(b, m[0]);
            b.append(':');
            if (m[1] == null) {
                b.append('1');
            } else {
                Contract.appendString(b, m[1]);
            }
            b.append(',');
        }
        b.append("\"_aws\":{\"CloudWatchMetrics\":[{\"Dimensions\":[[\"Subscriber\"");
        if (extraIsDimension) {
            b.append(',');
            Contract.appendString(b, extraKey);
        }
        b.append("]],\"Metrics\":[{\"Name\":");
        Contract.appendString(b, name);
        b.append(",\"Unit\":\"Count\"}],\"Namespace\":\"ErasureChannel\"}],\"Timestamp\":")
                .append(clock.millis()).append("}}");
        line(metrics, b);
    }

    private static void line(PrintStream out, StringBuilder b) {
        b.append('\n');
        synchronized (out) {
            out.print(b);
            out.flush();
        }
    }
}
