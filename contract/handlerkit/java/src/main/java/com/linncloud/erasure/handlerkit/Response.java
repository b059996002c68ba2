package com.linncloud.erasure.handlerkit;

/**
 * A message a store sends: ACK, REFILE_ACK or HOLDINGS. ACK and REFILE_ACK carry sendNo and outcome;
 * HOLDINGS carries keyKind, key and answer. It is not validated until {@link Contract#encodeResponse} writes it.
 */
public record Response(MessageType type, String requestId, int sendNo, String subscriber, String outcome,
                       KeyKind keyKind, String key, String answer) {

    /** The answer {@code subscriber} gives to {@code req}: {@code outcome} is the outcome or the HOLDINGS answer. */
    public static Response answerFor(Request req, String subscriber, String outcome) {
        MessageType t = req.type().responseType();
        if (t == MessageType.HOLDINGS) {
            return new Response(t, req.requestId(), 0, subscriber, null, req.keyKind(), req.key(), outcome);
        }
        return new Response(t, req.requestId(), req.sendNo(), subscriber, outcome, null, null, null);
    }

    /** The outcome, or the answer of a HOLDINGS: the value of the ErasureAnswers metric's Outcome. */
    public String outcomeOrAnswer() {
        return type == MessageType.HOLDINGS ? answer : outcome;
    }

    /** Never shows requestId or key. */
    @Override
    public String toString() {
        return "Response[" + type.wire() + " " + outcomeOrAnswer() + "]";
    }
}
