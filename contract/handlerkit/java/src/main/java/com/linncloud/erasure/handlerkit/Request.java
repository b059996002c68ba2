package com.linncloud.erasure.handlerkit;

import java.time.Instant;

/**
 * A request the account service sends: ERASE, REFILE, CLASSIFY or CHECK. Fields a type does not carry are
 * zero or null (sendNo for CLASSIFY and CHECK; key for REFILE; from, to and accountId for all but REFILE).
 * Its fields are personal data: never log them.
 */
public record Request(MessageType type, String requestId, int sendNo, Instant expiresAt, KeyKind keyKind,
                      String key, String from, String to, String accountId) {

    /** The request's (type, keyKind) pair. */
    public Pair pair() {
        return new Pair(type, keyKind);
    }

    /** Whether the request has expired by {@code now}: from expiresAt on it is consumed without an answer. */
    public boolean expired(Instant now) {
        return !now.isBefore(expiresAt);
    }

    /** A copy with another expiresAt (tests and capability checks restamp the placeholder). */
    public Request withExpiresAt(Instant at) {
        return new Request(type, requestId, sendNo, at, keyKind, key, from, to, accountId);
    }

    /** Never shows a field value: a Request is personal data. */
    @Override
    public String toString() {
        return "Request[" + type.wire() + "]";
    }
}
