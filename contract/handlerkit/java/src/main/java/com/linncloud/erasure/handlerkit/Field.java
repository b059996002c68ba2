package com.linncloud.erasure.handlerkit;

/** The top-level members the contract knows, by their exact (case-sensitive) wire names. */
enum Field {
    TYPE("type"),
    REQUEST_ID("requestId"),
    SEND_NO("sendNo"),
    EXPIRES_AT("expiresAt"),
    KEY_KIND("keyKind"),
    KEY("key"),
    FROM("from"),
    TO("to"),
    ACCOUNT_ID("accountId"),
    SUBSCRIBER("subscriber"),
    OUTCOME("outcome"),
    ANSWER("answer");

    final String wireName;

    Field(String wireName) {
        this.wireName = wireName;
    }

    /** The field named exactly {@code name}, or null. */
    static Field lookup(String name) {
        for (Field f : values()) {
            if (f.wireName.equals(name)) {
                return f;
            }
        }
        return null;
    }
}
