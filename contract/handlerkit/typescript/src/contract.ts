/**
 * The contract's parser, validator and answer encoder: the TypeScript twin of
 * contract/parse.go and contract/encode.go. Verdicts agree with Go's on every
 * fixture of schema/fixtures/manifest.json (test/parity.test.js).
 */
import { SCHEMA } from "./generated/contract-data";
import { compileSchema } from "./schema";
import type {
  ErasureMessage, ErasureRequest, ErasureResponse, KeyKind, MessageType, RequestType, ResponseType,
} from "./types";
import { isRequestType, isResponseType } from "./types";
import { isWellFormed, readWire } from "./wire";

/** The codes a contract check fails with. */
export type ContractCode = "NOT_JSON" | "INVALID_MESSAGE" | "NOT_A_REQUEST" | "NOT_A_RESPONSE";

/**
 * ContractError is a message the contract refuses. Its message is the code
 * alone: it never carries the body, a key or a requestId.
 */
export class ContractError extends Error {
  override name = "ContractError";
  constructor(readonly code: ContractCode) {
    super(code);
  }
}

const schemaCheck = compileSchema(SCHEMA);

/**
 * validate checks any contract message, request or response, and returns it
 * as a typed object, or throws a ContractError (NOT_JSON, INVALID_MESSAGE).
 */
export function validate(body: Uint8Array | string): ErasureMessage {
  const w = readWire(body);
  if (!w.ok) throw new ContractError(w.code);
  if (!schemaCheck(w.value)) throw new ContractError("INVALID_MESSAGE");
  return toMessage(w.value);
}

/** parseRequest validates a request body; a valid response is NOT_A_REQUEST. Expiry is not judged: see isExpired. */
export function parseRequest(body: Uint8Array | string): ErasureRequest {
  const m = validate(body);
  if (!isRequestType(m.type)) throw new ContractError("NOT_A_REQUEST");
  return m as ErasureRequest;
}

/** parseResponse validates a response body; a valid request is NOT_A_RESPONSE. */
export function parseResponse(body: Uint8Array | string): ErasureResponse {
  const m = validate(body);
  if (!isResponseType(m.type)) throw new ContractError("NOT_A_RESPONSE");
  return m as ErasureResponse;
}

/** toMessage copies a schema-valid object into a frozen message with the contract's member order. */
function toMessage(v: Record<string, unknown>): ErasureMessage {
  const t = v.type as MessageType;
  const s = (n: string) => v[n] as string;
  let m: Record<string, unknown>;
  switch (t) {
    case "erasure/ERASE":
      m = { type: t, requestId: s("requestId"), sendNo: v.sendNo, expiresAt: s("expiresAt"), keyKind: s("keyKind"), key: s("key") };
      break;
    case "erasure/REFILE":
      m = { type: t, requestId: s("requestId"), sendNo: v.sendNo, expiresAt: s("expiresAt"), keyKind: s("keyKind"), from: s("from"), to: s("to"), accountId: s("accountId") };
      break;
    case "erasure/CLASSIFY":
    case "erasure/CHECK":
      m = { type: t, requestId: s("requestId"), expiresAt: s("expiresAt"), keyKind: s("keyKind"), key: s("key") };
      break;
    case "erasure/ACK":
    case "erasure/REFILE_ACK":
      m = { type: t, requestId: s("requestId"), sendNo: v.sendNo, subscriber: s("subscriber"), outcome: s("outcome") };
      break;
    case "erasure/HOLDINGS":
      m = { type: t, requestId: s("requestId"), subscriber: s("subscriber"), keyKind: s("keyKind"), key: s("key"), answer: s("answer") };
      break;
  }
  return Object.freeze(m) as unknown as ErasureMessage;
}

/** The response type that answers a request type. */
export function responseTypeFor(t: RequestType): ResponseType {
  switch (t) {
    case "erasure/ERASE": return "erasure/ACK";
    case "erasure/REFILE": return "erasure/REFILE_ACK";
    default: return "erasure/HOLDINGS";
  }
}

/**
 * An answer before validation: what answerFor builds from a request and the
 * store's outcome. encodeResponse is what proves it valid.
 */
export type Answer =
  | { type: "erasure/ACK" | "erasure/REFILE_ACK"; requestId: string; sendNo: number; subscriber: string; outcome: string }
  | { type: "erasure/HOLDINGS"; requestId: string; subscriber: string; keyKind: KeyKind; key: string; answer: string };

/**
 * answerFor builds the response a store named subscriber gives to req
 * (contract.AnswerFor): ACK and REFILE_ACK carry the outcome, HOLDINGS the
 * answer, with the request's key.
 */
export function answerFor(req: ErasureRequest, subscriber: string, outcome: string): Answer {
  if (req.type === "erasure/ERASE" || req.type === "erasure/REFILE") {
    return { type: responseTypeFor(req.type) as "erasure/ACK", requestId: req.requestId, sendNo: req.sendNo, subscriber, outcome };
  }
  return { type: "erasure/HOLDINGS", requestId: req.requestId, subscriber, keyKind: req.keyKind, key: req.key, answer: outcome };
}

/**
 * encodeResponse writes an answer with Go's member order and escaping
 * (contract/encode.go) and validates the result with parseResponse: it
 * returns a body that passes, or throws a ContractError (INVALID_MESSAGE).
 */
export function encodeResponse(a: Answer): string {
  let b = `{"type":${jsonString(a.type)},"requestId":${jsonString(a.requestId)}`;
  if (a.type === "erasure/HOLDINGS") {
    b += `,"subscriber":${jsonString(a.subscriber)},"keyKind":${jsonString(a.keyKind)},"key":${jsonString(a.key)},"answer":${jsonString(a.answer)}}`;
  } else {
    b += `,"sendNo":${plainInt(a.sendNo)},"subscriber":${jsonString(a.subscriber)},"outcome":${jsonString(a.outcome)}}`;
  }
  try {
    parseResponse(b);
  } catch {
    throw new ContractError("INVALID_MESSAGE");
  }
  return b;
}

const HEX = "0123456789abcdef";

/**
 * jsonString writes s as a JSON string as Go's encoder does: only `"`, `\` and
 * control characters escaped (\u00XX). A lone surrogate is written as an
 * escape, so validation refuses it, as Go refuses invalid UTF-8. A value that
 * is not a string is written as an empty string, which no field accepts.
 */
export function jsonString(s: unknown): string {
  if (typeof s !== "string") return '""';
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c === 0x22 || c === 0x5c) esc = "\\" + s[i];
    else if (c < 0x20) esc = "\\u00" + HEX[c >> 4] + HEX[c & 15];
    else if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      esc = "\\u" + c.toString(16);
    }
    if (esc !== undefined) {
      out += s.slice(from, i) + esc;
      from = i + 1;
    }
  }
  return out + s.slice(from) + '"';
}

function plainInt(n: unknown): string {
  return typeof n === "number" && Number.isSafeInteger(n) ? String(n) : '""';
}

/** Re-exported for callers that check a string before encoding it. */
export { isWellFormed };

/**
 * expiresAtMillis reads a valid expiresAt as epoch milliseconds: `ms` is the
 * whole milliseconds, `partial` whether a fraction below a millisecond
 * remains (the contract allows nine fraction digits, a JavaScript clock has
 * three). Years 0000 to 9999 are read as written, not as 19xx.
 */
export function expiresAtMillis(s: string): { ms: number; partial: boolean } {
  const n = (a: number, b: number) => Number(s.slice(a, b));
  const days = daysFromCivil(n(0, 4), n(5, 7), n(8, 10));
  const frac = s.length > 20 ? s.slice(20, -1) : "";
  const ms = (((days * 24 + n(11, 13)) * 60 + n(14, 16)) * 60 + n(17, 19)) * 1000 + Number((frac + "000").slice(0, 3));
  return { ms, partial: /[1-9]/.test(frac.slice(3)) };
}

/**
 * isExpired says whether req has expired at nowMs, the store's own clock
 * (contract.Request.Expired): from expiresAt on, it is consumed without an
 * answer.
 */
export function isExpired(req: { expiresAt: string }, nowMs: number): boolean {
  const e = expiresAtMillis(req.expiresAt);
  return nowMs > e.ms || (nowMs === e.ms && !e.partial);
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
