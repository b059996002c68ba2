// Parity with the Go contract: every fixture of schema/fixtures/manifest.json
// gets the manifest's validate and parseRequest verdicts, read as raw bytes
// and (where the bytes are UTF-8) as the string a Lambda event carries; every
// capability pair's answers pass the kit's own validator.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { kit, ROOT } = require("./helpers");

const dir = path.join(ROOT, "schema/fixtures");
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
const capability = JSON.parse(fs.readFileSync(path.join(ROOT, "schema/erasure-capability-fixtures.json"), "utf8"));

function verdicts(body) {
  let validate, parseRequest;
  try {
    kit.validate(body);
    validate = "VALID";
  } catch (e) {
    assert.ok(e instanceof kit.ContractError, `not a ContractError: ${e}`);
    assert.equal(e.message, e.code, "the error's text is the code alone");
    validate = e.code;
  }
  try {
    kit.parseRequest(body);
    parseRequest = "OK";
  } catch (e) {
    assert.ok(e instanceof kit.ContractError);
    parseRequest = e.code;
  }
  return { validate, parseRequest };
}

test("the manifest has fixtures of every verdict", () => {
  assert.ok(manifest.cases.length >= 100, `only ${manifest.cases.length} fixtures`);
  const seen = new Set(manifest.cases.map((c) => c.parseRequest));
  for (const v of ["OK", "NOT_JSON", "INVALID_MESSAGE", "NOT_A_REQUEST"]) assert.ok(seen.has(v), v);
});

test("every manifest fixture, read as raw bytes, gets the manifest's verdicts", () => {
  const failures = [];
  for (const c of manifest.cases) {
    const got = verdicts(fs.readFileSync(path.join(dir, c.file)));
    if (got.validate !== c.validate || got.parseRequest !== c.parseRequest) {
      failures.push(`${c.file}: validate=${got.validate} parseRequest=${got.parseRequest}, manifest ${c.validate}/${c.parseRequest} (${c.why})`);
    }
  }
  assert.deepEqual(failures, []);
  console.log(`parity: ${manifest.cases.length} passed, ${failures.length} failed`);
});

test("every UTF-8 manifest fixture, read as a string (an SQS body), gets the same verdicts", () => {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let n = 0;
  for (const c of manifest.cases) {
    let text;
    try {
      text = strict.decode(fs.readFileSync(path.join(dir, c.file)));
    } catch {
      continue; // invalid UTF-8 cannot be a JavaScript string
    }
    n++;
    assert.deepEqual(verdicts(text), { validate: c.validate, parseRequest: c.parseRequest }, c.file);
  }
  assert.ok(n > manifest.cases.length / 2);
});

test("parseResponse: valid responses parse, requests are NOT_A_RESPONSE, and re-encoding keeps them valid", () => {
  let responses = 0;
  for (const c of manifest.cases.filter((x) => x.validate === "VALID")) {
    const body = fs.readFileSync(path.join(dir, c.file));
    if (c.parseRequest === "OK") {
      assert.throws(() => kit.parseResponse(body), { code: "NOT_A_RESPONSE" }, c.file);
      continue;
    }
    responses++;
    const r = kit.parseResponse(body);
    const again = kit.encodeResponse(r);
    assert.deepEqual(kit.parseResponse(again), r, c.file);
  }
  assert.ok(responses > 0);
});

test("every capability pair: the request parses, and every outcome's answer passes the kit's validator", () => {
  assert.equal(capability.pairs.length, kit.PAIRS.length);
  for (const p of capability.pairs) {
    const key = `${p.type} ${p.keyKind}`;
    assert.ok(kit.PAIRS.includes(key), key);
    const req = kit.parseRequest(JSON.stringify(p.request));
    assert.equal(kit.responseTypeFor(req.type), p.responseType);
    for (const outcome of [...p.implementedOutcomes, p.notImplementedOutcome]) {
      const body = kit.encodeResponse(kit.answerFor(req, "space", outcome));
      const r = kit.parseResponse(body);
      assert.equal(r.type, p.responseType);
      assert.equal(r[p.outcomeField], outcome);
      assert.equal(r.subscriber, "space");
      assert.equal(r.requestId, p.request.requestId);
    }
    // An outcome of another type is refused, never encoded.
    const wrong = p.responseType === "erasure/HOLDINGS" ? "DONE" : "HOLDS_DATA";
    assert.throws(() => kit.encodeResponse(kit.answerFor(req, "space", wrong)), { code: "INVALID_MESSAGE" });
  }
});

test("answers are encoded as Go's encoder writes them: its member order and escaping", () => {
  const erase = kit.parseRequest('{"type":"erasure/ERASE","requestId":"r\\"1\\\\\\u00e9\\ud83d\\ude00/<&>~","sendNo":7,"expiresAt":"2099-01-01T00:00:00Z","keyKind":"ACCOUNT","key":"k"}');
  assert.equal(
    kit.encodeResponse(kit.answerFor(erase, "space", "DONE")),
    '{"type":"erasure/ACK","requestId":"r\\"1\\\\é😀/<&>~","sendNo":7,"subscriber":"space","outcome":"DONE"}',
  );
  // Control characters (never valid in a value) are written as Go writes them.
  assert.equal(require("../lib/contract").jsonString("a\n\u0001\u001f"), '"a\\u000a\\u0001\\u001f"');
  const check = kit.parseRequest('{"expiresAt":"2099-01-01T00:00:00Z","type":"erasure/CHECK","key":"a@b","requestId":"r","keyKind":"ADDRESS"}');
  assert.equal(
    kit.encodeResponse(kit.answerFor(check, "space", "HOLDS_NONE")),
    '{"type":"erasure/HOLDINGS","requestId":"r","subscriber":"space","keyKind":"ADDRESS","key":"a@b","answer":"HOLDS_NONE"}',
  );
  // A lone surrogate or a subscriber off the pattern is refused, not sent.
  assert.throws(() => kit.encodeResponse({ ...kit.answerFor(check, "space", "HOLDS_NONE"), requestId: "r\ud800" }), { code: "INVALID_MESSAGE" });
  assert.throws(() => kit.encodeResponse(kit.answerFor(check, "Space", "HOLDS_NONE")), { code: "INVALID_MESSAGE" });
});

test("expiry: a request has expired from expiresAt on, to the nanosecond the contract allows", () => {
  const at = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
  assert.equal(kit.expiresAtMillis("2030-01-02T03:04:05.678Z").ms, at);
  assert.equal(kit.expiresAtMillis("0001-01-01T00:00:00Z").ms, new Date("0001-01-01T00:00:00Z").getTime());
  assert.equal(kit.expiresAtMillis("2096-02-29T23:59:59.9Z").ms, Date.UTC(2096, 1, 29, 23, 59, 59, 900));
  assert.equal(kit.isExpired({ expiresAt: "2030-01-02T03:04:05.678Z" }, at - 1), false);
  assert.equal(kit.isExpired({ expiresAt: "2030-01-02T03:04:05.678Z" }, at), true);
  assert.equal(kit.isExpired({ expiresAt: "2030-01-02T03:04:05.678000001Z" }, at), false);
  assert.equal(kit.isExpired({ expiresAt: "2030-01-02T03:04:05.678000001Z" }, at + 1), true);
  assert.equal(kit.isExpired({ expiresAt: "2030-01-02T03:04:05.6780000Z" }, at), true);
});

test("the constants are the repository's, and their derivations hold", () => {
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, "schema/erasure-channel-constants.json"), "utf8")).constants;
  for (const [name, entry] of Object.entries(file)) {
    assert.equal(kit.CONSTANTS[name], entry.value, name);
    if (entry.derivation) assert.equal(evaluate(entry.derivation, kit.CONSTANTS), entry.value, `${name} = ${entry.derivation}`);
  }
  assert.equal(kit.CAPS.passTwoDelayCapSeconds, file.passTwoDelayCapSeconds.value);
});

test("the schema the validator compiled is the repository's; an unknown keyword is refused at load", () => {
  const generated = require("../lib/generated/contract-data");
  assert.deepEqual(generated.SCHEMA, JSON.parse(fs.readFileSync(path.join(ROOT, "schema/erasure-contract.schema.json"), "utf8")));
  const { compileSchema } = require("../lib/schema");
  assert.throws(() => compileSchema({ type: "object", format: "email" }), /unknown keyword format/);
  assert.throws(() => compileSchema({ $ref: "https://elsewhere/x" }), /unsupported \$ref/);
});

/** evaluate computes a derivation: names, integers, + - * and parentheses. */
function evaluate(expr, values) {
  const tokens = expr.match(/[A-Za-z]+|[0-9]+|[-+*()]/g);
  let i = 0;
  const atom = () => {
    const t = tokens[i++];
    if (t === "(") {
      const v = sum();
      i++; // ')'
      return v;
    }
    if (/^[0-9]+$/.test(t)) return Number(t);
    assert.ok(t in values, `unknown name ${t}`);
    return values[t];
  };
  const product = () => {
    let v = atom();
    while (tokens[i] === "*") { i++; v *= atom(); }
    return v;
  };
  const sum = () => {
    let v = product();
    while (tokens[i] === "+" || tokens[i] === "-") v = tokens[i++] === "+" ? v + product() : v - product();
    return v;
  };
  return sum();
}
