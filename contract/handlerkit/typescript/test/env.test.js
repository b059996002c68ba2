// The environment at init: every problem of the six variables (and the
// function name pass two needs) is named, with Go's wording, never a value.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { kit, env } = require("./helpers");

const C = kit.CONSTANTS;
const batchCap = Math.min(C.batchTimeoutCapSeconds, C.handlerTimeoutCapSeconds);
const batchCapName = C.handlerTimeoutCapSeconds < C.batchTimeoutCapSeconds ? "handlerTimeoutCapSeconds" : "batchTimeoutCapSeconds";
const noop = { "erasure/ERASE ACCOUNT": async () => "DONE" };
const fake = { sendMessage: async () => ({}) };

/** envError makes a handler over env and returns the EnvError it throws. */
function envError(e, fns = noop) {
  try {
    kit.makeHandler(fns, { ...fake, env: e });
  } catch (err) {
    assert.ok(err instanceof kit.EnvError, `not an EnvError: ${err && err.name}`);
    return err;
  }
  assert.fail("no EnvError");
}

const CASES = [
  ["ERASURE_PASS_TWO_DELAY_SECONDS", "", "missing"],
  ["ERASURE_PASS_TWO_DELAY_SECONDS", "-1", "not a whole number of seconds"],
  ["ERASURE_PASS_TWO_DELAY_SECONDS", "1.5", "not a whole number of seconds"],
  ["ERASURE_PASS_TWO_DELAY_SECONDS", " 30", "not a whole number of seconds"],
  ["ERASURE_PASS_TWO_DELAY_SECONDS", "1234567", "not a whole number of seconds"],
  ["ERASURE_PASS_TWO_DELAY_SECONDS", String(C.passTwoDelayCapSeconds + 1), `above the cap of ${C.passTwoDelayCapSeconds} s (passTwoDelayCapSeconds)`],
  ["ERASURE_BATCH_TIMEOUT_SECONDS", "0", "below the minimum of 1 s"],
  ["ERASURE_BATCH_TIMEOUT_SECONDS", String(batchCap + 1), `above the cap of ${batchCap} s (${batchCapName})`],
  ["ERASURE_BATCH_TIMEOUT_SECONDS", "1e1", "not a whole number of seconds"],
  ["ERASURE_SUBSCRIBER", "Space-Secret", "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"],
  ["ERASURE_SUBSCRIBER", "space-", "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"],
  ["ERASURE_SUBSCRIBER", "a".repeat(65), "not a subscriber name (1 to 64 of a-z, 0-9 and -, starting with a letter)"],
  ["ERASURE_QUEUE_URL", "sqs.secret.example/q", "not an http(s) queue URL"],
  ["ERASURE_RESPONSE_QUEUE_URL", "ftp://secret/q", "not an http(s) queue URL"],
  ["ERASURE_RESPONSE_QUEUE_URL", undefined, "missing"],
  ["ERASURE_HANDLER_ROLE_ID", "AIDASECRETSECRET0001", "not an IAM role's unique id (AROA followed by upper-case letters and digits)"],
  ["ERASURE_HANDLER_ROLE_ID", "AROASHORT", "not an IAM role's unique id (AROA followed by upper-case letters and digits)"],
  ["ERASURE_HANDLER_ROLE_ID", "AROAlowercase000001", "not an IAM role's unique id (AROA followed by upper-case letters and digits)"],
  ["AWS_LAMBDA_FUNCTION_NAME", undefined, "missing (Lambda sets it; pass two is recognised by it)"],
  ["AWS_LAMBDA_FUNCTION_NAME", "fn:secret", "not a function name"],
];

for (const [variable, value, problem] of CASES) {
  test(`${variable}=${JSON.stringify(value)}: "${problem}", the value never shown`, () => {
    const err = envError(env({ [variable]: value }));
    assert.deepEqual(err.problems, [{ variable, problem }]);
    assert.ok(err.has(variable));
    assert.equal(err.message, `erasure handler environment: ${variable}: ${problem}`);
    if (value && value.length > 2) assert.ok(!err.message.includes(value) && !err.stack.includes(value), "the value leaked");
  });
}

test("every problem is reported at once, in Go's order", () => {
  const err = envError({});
  assert.deepEqual(err.problems.map((p) => p.variable), [...kit.HANDLER_ENVIRONMENT_VARIABLES, "AWS_LAMBDA_FUNCTION_NAME"]);
  assert.ok(err.problems.every((p) => p.problem.startsWith("missing")));
});

test("the caps themselves are accepted, and the function name is needed only for pass two", () => {
  const e = env({ ERASURE_PASS_TWO_DELAY_SECONDS: "0", ERASURE_BATCH_TIMEOUT_SECONDS: String(batchCap), AWS_LAMBDA_FUNCTION_NAME: undefined });
  assert.equal(typeof kit.makeHandler({ "erasure/CHECK ACCOUNT": async () => "HOLDS_NONE" }, { ...fake, env: e }), "function");
  assert.deepEqual(envError(e).problems.map((p) => p.variable), ["AWS_LAMBDA_FUNCTION_NAME"]);
  const loaded = kit.loadHandlerEnvironment(e);
  assert.equal(loaded.passTwoDelaySeconds, 0);
  assert.equal(loaded.batchTimeoutSeconds, batchCap);
});

test("makeHandler reads process.env when given none", () => {
  const saved = { ...process.env };
  try {
    Object.assign(process.env, env());
    assert.equal(typeof kit.makeHandler(noop, fake), "function");
    delete process.env.ERASURE_SUBSCRIBER;
    assert.deepEqual(envError(undefined).problems, [{ variable: "ERASURE_SUBSCRIBER", problem: "missing" }]);
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

test("a functions map with a pair no store can implement, or a non-function, is a KitConfigError", () => {
  for (const fns of [{ "erasure/REFILE ACCOUNT": async () => "MOVED" }, { "erasure/ACK ACCOUNT": async () => "DONE" }, { "erasure/CHECK ADDRESS": "HOLDS_DATA" }, null]) {
    assert.throws(() => kit.makeHandler(fns, { ...fake, env: env() }), kit.KitConfigError);
  }
});
