package com.linncloud.erasure.handlerkit;

/** What a key is: an account id or an address already passed through addressKey. */
public enum KeyKind {
    /** The key is an account id. */
    ACCOUNT,
    /** The key is an email address, already passed through addressKey (no A to Z). */
    ADDRESS
}
