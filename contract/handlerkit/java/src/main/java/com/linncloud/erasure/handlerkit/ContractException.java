package com.linncloud.erasure.handlerkit;

/**
 * Why a body was refused. {@link #getMessage()} is the code alone: no part of the input ever reaches it.
 * {@link #field()} is a contract field name or "", {@link #reason()} a fixed word; neither is copied from input.
 */
public final class ContractException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The codes a parser returns. */
    public enum Code {
        /** Not one RFC 8259 JSON text in UTF-8 (syntax, invalid UTF-8, a BOM, trailing data, empty). */
        NOT_JSON,
        /** Well-formed JSON that breaks the strict wire profile or the schema. */
        INVALID_MESSAGE,
        /** A valid contract message that is a response, given to the request parser. */
        NOT_A_REQUEST,
        /** A valid contract message that is a request, given to the response parser. */
        NOT_A_RESPONSE
    }

    private final Code code;
    private final String field;
    private final String reason;

    ContractException(Code code, String field, String reason) {
        super(code.name(), null, false, false);
        this.code = code;
        this.field = field;
        this.reason = reason;
    }

    static ContractException invalid(String field, String reason) {
        return new ContractException(Code.INVALID_MESSAGE, field, reason);
    }

    static ContractException notJson(String reason) {
        return new ContractException(Code.NOT_JSON, "", reason);
    }

    /** The code. */
    public Code code() {
        return code;
    }

    /** The contract field at fault, or "". */
    public String field() {
        return field;
    }

    /** A fixed word such as "pattern" or "duplicate-member"; never input. */
    public String reason() {
        return reason;
    }
}
