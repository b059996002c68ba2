package com.linncloud.erasure.handlerkit;

import java.util.List;
import java.util.Objects;

/** A (type, key kind) pair: the unit a store implements. */
public record Pair(MessageType type, KeyKind keyKind) {
    /** Every pair a store can implement (REFILE only by ADDRESS), in the contract's order. */
    public static final List<Pair> IMPLEMENTABLE = List.of(
            new Pair(MessageType.ERASE, KeyKind.ACCOUNT), new Pair(MessageType.ERASE, KeyKind.ADDRESS),
            new Pair(MessageType.REFILE, KeyKind.ADDRESS),
            new Pair(MessageType.CLASSIFY, KeyKind.ACCOUNT), new Pair(MessageType.CLASSIFY, KeyKind.ADDRESS),
            new Pair(MessageType.CHECK, KeyKind.ACCOUNT), new Pair(MessageType.CHECK, KeyKind.ADDRESS));

    /** Checks both parts are present. */
    public Pair {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(keyKind, "keyKind");
    }

    /** The pair (type, keyKind). */
    public static Pair of(MessageType type, KeyKind keyKind) {
        return new Pair(type, keyKind);
    }

    /** Whether a store can implement this pair: a request type, and REFILE only by ADDRESS. */
    public boolean implementable() {
        return IMPLEMENTABLE.contains(this);
    }

    @Override
    public String toString() {
        return type.wire() + " with " + keyKind;
    }
}
