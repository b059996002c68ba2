package com.linncloud.erasure.handlerkit;

import java.time.Instant;

/**
 * A store's work for one implemented pair. It returns the outcome: DONE for ERASE; MOVED, NONE_OWNED or NOT_MOVED
 * for REFILE; HOLDS_DATA, HOLDS_NONE or CANNOT_ANSWER for CHECK and CLASSIFY. Returning NOT_APPLICABLE answers
 * NOT_APPLICABLE at once. Throwing fails the record (SQS retries it).
 *
 * <p>The call runs on a kit thread and must end by {@code deadline} (the batch timeout, never past the Lambda
 * deadline less a reserve): at that instant the kit stops waiting, interrupts the thread and fails the record
 * (BATCH_TIMEOUT). Pass {@code deadline} on to the store's own client timeouts.
 */
@FunctionalInterface
public interface StoreFunction {
    /**
     * Does the work for {@code request}.
     *
     * @param request  the validated request; its fields are personal data, never log them
     * @param pass     1, or 2 for the second run of an ERASE or REFILE
     * @param deadline when the call must have ended
     * @return the outcome or answer
     * @throws Exception to fail the record
     */
    String apply(Request request, int pass, Instant deadline) throws Exception;
}
