package com.linncloud.erasure.handlerkit;

/** The seven message types of the contract; {@link #wire()} is the body's {@code type}. */
public enum MessageType {
    ERASE("erasure/ERASE"),
    REFILE("erasure/REFILE"),
    CLASSIFY("erasure/CLASSIFY"),
    CHECK("erasure/CHECK"),
    ACK("erasure/ACK"),
    REFILE_ACK("erasure/REFILE_ACK"),
    HOLDINGS("erasure/HOLDINGS");

    private final String wire;

    MessageType(String wire) {
        this.wire = wire;
    }

    /** The type as written in a body, e.g. {@code erasure/ERASE}. */
    public String wire() {
        return wire;
    }

    /** The type whose wire name is exactly {@code s}, or null. */
    public static MessageType fromWire(String s) {
        for (MessageType t : values()) {
            if (t.wire.equals(s)) {
                return t;
            }
        }
        return null;
    }

    /** Whether the account service sends this type. */
    public boolean isRequest() {
        return this == ERASE || this == REFILE || this == CLASSIFY || this == CHECK;
    }

    /** Whether a store sends this type. */
    public boolean isResponse() {
        return !isRequest();
    }

    /** Whether a request of this type changes a store's data, and so runs a second pass. */
    public boolean isDestructive() {
        return this == ERASE || this == REFILE;
    }

    /** Whether messages of this type carry a sendNo. */
    public boolean hasSendNo() {
        return this == ERASE || this == REFILE || this == ACK || this == REFILE_ACK;
    }

    /** The type a store answers this request type with, or null for a response type. */
    public MessageType responseType() {
        switch (this) {
            case ERASE:
                return ACK;
            case REFILE:
                return REFILE_ACK;
            case CLASSIFY:
            case CHECK:
                return HOLDINGS;
            default:
                return null;
        }
    }

    @Override
    public String toString() {
        return wire;
    }
}
