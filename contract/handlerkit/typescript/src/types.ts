/**
 * The contract's messages as TypeScript types (contract/messages.go): four
 * requests the account service sends, three responses a store answers with.
 */

/** The type discriminator of a request. */
export type RequestType = "erasure/ERASE" | "erasure/REFILE" | "erasure/CLASSIFY" | "erasure/CHECK";
/** The type discriminator of a response. */
export type ResponseType = "erasure/ACK" | "erasure/REFILE_ACK" | "erasure/HOLDINGS";
/** Any message type. */
export type MessageType = RequestType | ResponseType;

/** ACCOUNT: the key is an account id. ADDRESS: the key is an address already passed through addressKey. */
export type KeyKind = "ACCOUNT" | "ADDRESS";

/** The answer "I hold nothing of this kind": every request type can get it. */
export type NotApplicable = "NOT_APPLICABLE";
/** What a store's ERASE function returns (besides NOT_APPLICABLE). */
export type EraseOutcome = "DONE";
/** What a store's REFILE function returns (besides NOT_APPLICABLE). */
export type RefileOutcome = "MOVED" | "NONE_OWNED" | "NOT_MOVED";
/** What a store's CLASSIFY and CHECK functions return (besides NOT_APPLICABLE). */
export type HoldingsAnswer = "HOLDS_DATA" | "HOLDS_NONE" | "CANNOT_ANSWER";

/** erasure/ERASE: erase everything held under key. Runs twice (pass 1, then pass 2). */
export interface EraseRequest<K extends KeyKind = KeyKind> {
  readonly type: "erasure/ERASE";
  readonly requestId: string;
  readonly sendNo: number;
  readonly expiresAt: string;
  readonly keyKind: K;
  readonly key: string;
}

/** erasure/REFILE: move accountId's address-keyed rows from `from` to `to`. Runs twice. */
export interface RefileRequest {
  readonly type: "erasure/REFILE";
  readonly requestId: string;
  readonly sendNo: number;
  readonly expiresAt: string;
  readonly keyKind: "ADDRESS";
  readonly from: string;
  readonly to: string;
  readonly accountId: string;
}

/** erasure/CLASSIFY: say whether anything is held under key. Runs once. */
export interface ClassifyRequest<K extends KeyKind = KeyKind> {
  readonly type: "erasure/CLASSIFY";
  readonly requestId: string;
  readonly expiresAt: string;
  readonly keyKind: K;
  readonly key: string;
}

/** erasure/CHECK: say whether anything is still held under key. Runs once. */
export interface CheckRequest<K extends KeyKind = KeyKind> {
  readonly type: "erasure/CHECK";
  readonly requestId: string;
  readonly expiresAt: string;
  readonly keyKind: K;
  readonly key: string;
}

/** A request, discriminated on `type`. */
export type ErasureRequest = EraseRequest | RefileRequest | ClassifyRequest | CheckRequest;

/** erasure/ACK: a store's answer to ERASE. */
export interface AckResponse {
  readonly type: "erasure/ACK";
  readonly requestId: string;
  readonly sendNo: number;
  readonly subscriber: string;
  readonly outcome: EraseOutcome | NotApplicable;
}

/** erasure/REFILE_ACK: a store's answer to REFILE. */
export interface RefileAckResponse {
  readonly type: "erasure/REFILE_ACK";
  readonly requestId: string;
  readonly sendNo: number;
  readonly subscriber: string;
  readonly outcome: RefileOutcome | NotApplicable;
}

/** erasure/HOLDINGS: a store's answer to CLASSIFY or CHECK. */
export interface HoldingsResponse {
  readonly type: "erasure/HOLDINGS";
  readonly requestId: string;
  readonly subscriber: string;
  readonly keyKind: KeyKind;
  readonly key: string;
  readonly answer: HoldingsAnswer | NotApplicable;
}

/** A response, discriminated on `type`. */
export type ErasureResponse = AckResponse | RefileAckResponse | HoldingsResponse;

/** Any valid contract message. */
export type ErasureMessage = ErasureRequest | ErasureResponse;

/** 1 for the first run of a request, 2 for the second run of ERASE or REFILE. */
export type Pass = 1 | 2;

/**
 * One store function: does the store's work for one (type, keyKind) pair and
 * returns the outcome. `signal` aborts when the call's time is up (the batch
 * timeout, or just before the Lambda deadline): stop then; the record fails and
 * SQS retries it. Throwing (or rejecting) fails the record too. Returning
 * NOT_APPLICABLE answers NOT_APPLICABLE at once, as if the pair were not
 * implemented.
 *
 * The type asks for a Promise (write an async function): with a union of a
 * Promise and a plain value TypeScript widens `return "DONE"` to string. The
 * kit itself also takes a plain value, as a JavaScript store may return.
 */
export type StoreFunction<R, O extends string> = (request: R, pass: Pass, signal: AbortSignal) => Promise<O | NotApplicable>;

/**
 * The functions a store implements, one per (type, keyKind) pair, keyed
 * "<type> <keyKind>". A pair left out is answered NOT_APPLICABLE and counted
 * in the ErasureNotApplicable metric.
 */
export interface StoreFunctions {
  "erasure/ERASE ACCOUNT"?: StoreFunction<EraseRequest<"ACCOUNT">, EraseOutcome>;
  "erasure/ERASE ADDRESS"?: StoreFunction<EraseRequest<"ADDRESS">, EraseOutcome>;
  "erasure/REFILE ADDRESS"?: StoreFunction<RefileRequest, RefileOutcome>;
  "erasure/CLASSIFY ACCOUNT"?: StoreFunction<ClassifyRequest<"ACCOUNT">, HoldingsAnswer>;
  "erasure/CLASSIFY ADDRESS"?: StoreFunction<ClassifyRequest<"ADDRESS">, HoldingsAnswer>;
  "erasure/CHECK ACCOUNT"?: StoreFunction<CheckRequest<"ACCOUNT">, HoldingsAnswer>;
  "erasure/CHECK ADDRESS"?: StoreFunction<CheckRequest<"ADDRESS">, HoldingsAnswer>;
}

/** A pair's key in StoreFunctions. */
export type PairKey = keyof StoreFunctions;

/** Every pair a store can implement, in the contract's order. */
export const PAIRS: readonly PairKey[] = [
  "erasure/ERASE ACCOUNT",
  "erasure/ERASE ADDRESS",
  "erasure/REFILE ADDRESS",
  "erasure/CLASSIFY ACCOUNT",
  "erasure/CLASSIFY ADDRESS",
  "erasure/CHECK ACCOUNT",
  "erasure/CHECK ADDRESS",
];

/** The request types. */
export const REQUEST_TYPES: readonly RequestType[] = ["erasure/ERASE", "erasure/REFILE", "erasure/CLASSIFY", "erasure/CHECK"];
/** The response types. */
export const RESPONSE_TYPES: readonly ResponseType[] = ["erasure/ACK", "erasure/REFILE_ACK", "erasure/HOLDINGS"];

/** Whether t is a request type. */
export function isRequestType(t: string): t is RequestType {
  return (REQUEST_TYPES as readonly string[]).includes(t);
}

/** Whether t is a response type. */
export function isResponseType(t: string): t is ResponseType {
  return (RESPONSE_TYPES as readonly string[]).includes(t);
}

/** Whether a request of type t changes a store's data, and so runs twice. */
export function isDestructive(t: RequestType): t is "erasure/ERASE" | "erasure/REFILE" {
  return t === "erasure/ERASE" || t === "erasure/REFILE";
}
