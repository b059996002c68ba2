package com.linncloud.erasurechannel.constructs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * Runs a CDK app's main class so that a refusal of the erasure channel's
 * constructs prints once, as CDK words it: each construct path, rule, line
 * and fix. jsii gives a refusal to Java as an exception whose message holds
 * it twice (CDK's error, then the kernel's copy with its JavaScript stack),
 * and Maven prints that under its own trace: the quickstart's
 * {@code exec:java} runs the app through this class instead
 * ({@code <mainClass>com.linncloud.erasurechannel.constructs.RunApp</mainClass>},
 * the app's main class as its first argument). CDK's "Validation failed"
 * after a policy validation report (printed above it: the check's findings,
 * or any other plugin's) is printed as its one line. Any other exception is thrown on unchanged; {@code ERASURE_CHANNEL_TRACE=1} throws a refusal on
 * too. Added to the jsii jar by tools/release/java_artifacts.py.
 */
public final class RunApp {
    private static final Pattern REFUSAL = Pattern.compile("(?m)^\\s*\\[[^\\]\\n]+\\] EC\\d{3} (?:ErasureSubscriber|BitmapStoreBucket)\\[");
    private static final Pattern REPORTED = Pattern.compile("^ValidationFailed: Validation failed\\.");

    private RunApp() {
    }

    /**
     * Runs {@code args[0]}'s main with the remaining arguments.
     *
     * @param args the app's main class, then its arguments
     * @throws Throwable whatever the app throws, but a refusal
     */
    public static void main(final String[] args) throws Throwable {
        if (args.length == 0) {
            System.err.println("RunApp: give the CDK app's main class, e.g. com.example.OrdersApp");
            System.exit(2);
        }
        Method main = Class.forName(args[0], true, Thread.currentThread().getContextClassLoader()).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            String refusal = refusal(e.getCause());
            if (refusal == null || "1".equals(System.getenv("ERASURE_CHANNEL_TRACE"))) {
                throw e.getCause();
            }
            System.err.println(refusal);
            System.err.flush();
            System.exit(1);
        }
    }

    /** The refusal t or a cause of it carries, without the kernel's copy and stack; null when none does. */
    static String refusal(Throwable t) {
        for (; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && REPORTED.matcher(m).find()) {
                return m.lines().findFirst().orElse(m);
            }
            if (m == null || !REFUSAL.matcher(m).find()) {
                continue;
            }
            int cut = m.length();
            for (String end : new String[] {"\n@jsii/kernel.", "\n    at "}) {
                int i = m.indexOf(end);
                if (i >= 0 && i < cut) {
                    cut = i;
                }
            }
            return m.substring(0, cut).stripTrailing();
        }
        return null;
    }
}
