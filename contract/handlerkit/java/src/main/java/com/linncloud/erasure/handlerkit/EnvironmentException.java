package com.linncloud.erasure.handlerkit;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The handler environment is wrong: every problem, each naming a variable and the rule it breaks, never its
 * value. Thrown at init (from a static initializer it becomes Lambda's init error, and nothing is answered).
 */
public final class EnvironmentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** One variable that is missing or out of bounds: the variable and the rule, never the value. */
    public record Problem(String variable, String problem) {
        @Override
        public String toString() {
            return variable + ": " + problem;
        }
    }

    private final List<Problem> problems;

    /** An error listing {@code problems}. */
    public EnvironmentException(List<Problem> problems) {
        super("erasure handler environment: "
                + problems.stream().map(Problem::toString).collect(Collectors.joining("; ")), null, false, false);
        this.problems = List.copyOf(problems);
    }

    /** Every problem, in the order the variables are read. */
    public List<Problem> problems() {
        return problems;
    }

    /** Whether {@code variable} has a problem. */
    public boolean has(String variable) {
        return problems.stream().anyMatch(p -> p.variable().equals(variable));
    }
}
