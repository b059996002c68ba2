/**
 * The strict wire profile (docs/contract.md, contract/wire.go) every twin
 * applies before the schema:
 *
 *  - valid UTF-8 with no byte order mark, exactly one JSON text (else NOT_JSON);
 *  - that text is an object (else INVALID_MESSAGE);
 *  - member names unique after unescaping, compared case-sensitively;
 *  - no string holds a lone UTF-16 surrogate;
 *  - every number written as plain digits (no sign, fraction or exponent).
 *
 * JSON.parse judges the syntax; profileOK then walks the already-valid text
 * for what JSON.parse cannot see. Syntax is judged first, so a body that is
 * both malformed and off-profile is NOT_JSON.
 */

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Whether s holds no lone UTF-16 surrogate. */
export function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false; // a low surrogate with no high one before it
    const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (d < 0xdc00 || d > 0xdfff) return false;
    i++;
  }
  return true;
}

/** The outcome of reading a body: the parsed object and its text, or a code. */
export type WireResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; code: "NOT_JSON" | "INVALID_MESSAGE" };

/**
 * readWire applies the whole wire profile to a body, given as bytes (read
 * raw) or as a string (an SQS record's body, which the Lambda runtime has
 * already decoded: a byte order mark or a lone surrogate in it is what
 * invalid bytes would have been).
 */
export function readWire(body: Uint8Array | string): WireResult {
  let text: string;
  if (typeof body === "string") {
    if (body.charCodeAt(0) === 0xfeff || !isWellFormed(body)) return { ok: false, code: "NOT_JSON" };
    text = body;
  } else {
    if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { ok: false, code: "NOT_JSON" };
    try {
      text = decoder.decode(body);
    } catch {
      return { ok: false, code: "NOT_JSON" };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: "NOT_JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, code: "INVALID_MESSAGE" };
  if (!profileOK(text)) return { ok: false, code: "INVALID_MESSAGE" };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * profileOK checks a text JSON.parse accepted and whose value is an object:
 * unique member names after unescaping, no lone surrogates, top-level numbers
 * as plain digits. Nested values are skipped for their syntax only: no
 * contract field takes one, so the schema refuses them anyway.
 */
export function profileOK(text: string): boolean {
  let i = 0;
  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  // str reads the string token at i (a '"') and returns its unescaped value.
  const str = (): string => {
    const start = i;
    let escaped = false;
    for (i++; ; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i++;
      } else if (c === 0x22) {
        i++;
        break;
      }
    }
    const token = text.slice(start, i);
    return escaped ? (JSON.parse(token) as string) : token.slice(1, -1);
  };
  const skipNested = () => {
    let depth = 0;
    do {
      const c = text[i];
      if (c === '"') {
        str();
        continue;
      }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
      i++;
    } while (depth > 0);
  };
  const names = new Set<string>();
  ws();
  i++; // '{'
  ws();
  if (text[i] === "}") return true;
  for (;;) {
    ws();
    const name = str();
    if (!isWellFormed(name) || names.has(name)) return false;
    names.add(name);
    ws();
    i++; // ':'
    ws();
    const c = text[i]!;
    if (c === '"') {
      if (!isWellFormed(str())) return false;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const start = i;
      while (i < text.length && "-+.eE0123456789".includes(text[i]!)) i++;
      if (!/^[0-9]+$/.test(text.slice(start, i))) return false;
    } else if (c === "{" || c === "[") {
      skipNested();
    } else {
      i += c === "f" ? 5 : 4; // false, true, null
    }
    ws();
    if (text[i++] === "}") return true; // else ','
  }
}
