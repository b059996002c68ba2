// The handler with a fake SQS: every step of docs/quickstart/handler.md.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { kit, SELF, NOW, SECRETS, REQUESTS, body, record, passTwoRecord, harness, context } = require("./helpers");

const PASS_ONE = { "erasure/ERASE": "DONE", "erasure/REFILE": "MOVED" };
const HOLDINGS = "HOLDS_DATA";

/** Outputs must never carry a secret; every log line only the allowed fields. */
function assertClean(h) {
  for (const s of SECRETS) assert.ok(!h.output().includes(s), `output carries ${s}:\n${h.output()}`);
  for (const l of h.logObjects()) {
    for (const k of Object.keys(l)) assert.ok(["level", "msg", "code", "type", "pass", "outcome", "delaySeconds", "error"].includes(k), `log field ${k}`);
  }
}

for (const pair of kit.PAIRS) {
  const type = REQUESTS[pair].type;
  const destructive = type === "erasure/ERASE" || type === "erasure/REFILE";

  test(`${pair}: implemented`, async () => {
    const calls = [];
    const h = harness({
      [pair]: async (req, pass, signal) => {
        calls.push({ req, pass, aborted: signal.aborted });
        return destructive ? PASS_ONE[type] : HOLDINGS;
      },
    });
    const r1 = await h.handler({ Records: [record("m1", body(pair))] }, context());
    assert.deepEqual(r1, { batchItemFailures: [] });
    assert.equal(calls.length, 1);
    assert.equal(calls[0].pass, 1);
    assert.equal(calls[0].aborted, false);
    assert.deepEqual({ ...calls[0].req }, JSON.parse(body(pair)));
    if (!destructive) {
      assert.equal(h.enqueued().length, 0);
      const [a] = h.answers();
      assert.equal(a.MessageAttributes, undefined);
      const req = REQUESTS[pair];
      assert.equal(a.MessageBody, `{"type":"erasure/HOLDINGS","requestId":"req-secret-1","subscriber":"space","keyKind":"${req.keyKind}","key":"${req.key}","answer":"HOLDS_DATA"}`);
      assertClean(h);
      return;
    }
    // Pass one: no answer; the same body re-sent to the store's own queue, delayed and marked.
    assert.equal(h.answers().length, 0);
    const [q] = h.enqueued();
    assert.deepEqual(q, {
      QueueUrl: "https://sqs.x/2/space",
      MessageBody: body(pair),
      DelaySeconds: kit.CONSTANTS.passTwoDelayCapSeconds,
      MessageAttributes: {
        "erasure-pass": { DataType: "Number", StringValue: "2" },
        "erasure-pass-one-outcome": { DataType: "String", StringValue: PASS_ONE[type] },
      },
    });
    // Pass two, from this handler's own SenderId: the work again, then the answer.
    const r2 = await h.handler({ Records: [passTwoRecord("m2", q)] }, context());
    assert.deepEqual(r2, { batchItemFailures: [] });
    assert.deepEqual(calls.map((c) => c.pass), [1, 2]);
    const [a] = h.answers();
    const sendNo = REQUESTS[pair].sendNo;
    const rtype = type === "erasure/ERASE" ? "erasure/ACK" : "erasure/REFILE_ACK";
    assert.equal(a.MessageBody, `{"type":"${rtype}","requestId":"req-secret-1","sendNo":${sendNo},"subscriber":"space","outcome":"${PASS_ONE[type]}"}`);
    const sent = h.logObjects().find((l) => l.msg === "erasure answer sent");
    assert.deepEqual(sent, { level: "INFO", msg: "erasure answer sent", type: rtype, outcome: PASS_ONE[type] });
    assert.equal(h.metrics.length, 1);
    assert.equal(
      h.metrics[0],
      `{"ErasureAnswers":1,"Outcome":"${PASS_ONE[type]}","Subscriber":"space","_aws":{"CloudWatchMetrics":[{"Dimensions":[["Subscriber","Outcome"]],"Metrics":[{"Name":"ErasureAnswers","Unit":"Count"}],"Namespace":"ErasureChannel"}],"Timestamp":${NOW}}}\n`,
    );
    assertClean(h);
  });

  for (const how of ["not implemented", "returns NOT_APPLICABLE"]) {
    test(`${pair}: ${how}: NOT_APPLICABLE at once, counted`, async () => {
      let calls = 0;
      const fns = how === "not implemented" ? {} : { [pair]: async () => (calls++, "NOT_APPLICABLE") };
      const h = harness(fns);
      const r = await h.handler({ Records: [record("m1", body(pair))] }, context());
      assert.deepEqual(r, { batchItemFailures: [] });
      assert.equal(h.enqueued().length, 0, "no pass two for NOT_APPLICABLE");
      assert.equal(calls, how === "not implemented" ? 0 : 1);
      const [a] = h.answers();
      assert.equal(kit.parseResponse(a.MessageBody)[type.startsWith("erasure/C") ? "answer" : "outcome"], "NOT_APPLICABLE");
      assert.equal(
        h.metrics[0],
        `{"ErasureNotApplicable":1,"MessageType":"${type}","Subscriber":"space","_aws":{"CloudWatchMetrics":[{"Dimensions":[["Subscriber"]],"Metrics":[{"Name":"ErasureNotApplicable","Unit":"Count"}],"Namespace":"ErasureChannel"}],"Timestamp":${NOW}}}\n`,
      );
      assert.match(h.metrics[1], /^\{"ErasureAnswers":1,"Outcome":"NOT_APPLICABLE","Subscriber":"space",/);
      assertClean(h);
    });
  }
}

test("REFILE after both passes: NOT_MOVED if either said it, else MOVED if either did, else NONE_OWNED", async () => {
  const all = ["MOVED", "NONE_OWNED", "NOT_MOVED"];
  for (const one of all) {
    for (const two of all) {
      const want = one === "NOT_MOVED" || two === "NOT_MOVED" ? "NOT_MOVED" : one === "MOVED" || two === "MOVED" ? "MOVED" : "NONE_OWNED";
      assert.equal(kit.combine("erasure/REFILE", one, two), want);
      const h = harness({ "erasure/REFILE ADDRESS": async (req, pass) => (pass === 1 ? one : two) });
      await h.handler({ Records: [record("m1", body("erasure/REFILE ADDRESS"))] }, context());
      await h.handler({ Records: [passTwoRecord("m2", h.enqueued()[0])] }, context());
      assert.equal(kit.parseResponse(h.answers()[0].MessageBody).outcome, want, `${one} then ${two}`);
    }
  }
  assert.equal(kit.combine("erasure/ERASE", "DONE", "DONE"), "DONE");
});

test("pass-two markers that are not this handler's own are refused, before expiry, without a call", async () => {
  const erase = body("erasure/ERASE ACCOUNT");
  const refile = body("erasure/REFILE ADDRESS");
  const expired = body("erasure/ERASE ACCOUNT", { expiresAt: "2000-01-01T00:00:00Z" });
  const bad = [
    ["forged: another sender", record("a", erase, { marker: "2", outcome: "DONE", sender: "AROAOTHERROLE00000001:erasure-handler-space" })],
    ["forged: the account service", record("b", erase, { marker: "2", outcome: "DONE" })],
    ["forged: our role, another session", record("c", erase, { marker: "2", outcome: "DONE", sender: "AROAEXAMPLEROLEID0001:someone" })],
    ["forged: a suffix", record("d", erase, { marker: "2", outcome: "DONE", sender: SELF + "x" })],
    ["forged: on an expired request", record("e", expired, { marker: "2", outcome: "DONE", sender: "AROAOTHERROLE00000001:x" })],
    ["marker 1", record("f", erase, { marker: "1", outcome: "DONE", sender: SELF })],
    ["marker 3", record("g", erase, { marker: "3", outcome: "DONE", sender: SELF })],
    ["marker ' 2'", record("h", erase, { marker: " 2", outcome: "DONE", sender: SELF })],
    ["marker with no value", record("i", erase, { marker: null, outcome: "DONE", sender: SELF })],
    ["no pass-one outcome", record("j", erase, { marker: "2", sender: SELF })],
    ["ERASE with a REFILE outcome", record("k", erase, { marker: "2", outcome: "MOVED", sender: SELF })],
    ["REFILE with DONE", record("l", refile, { marker: "2", outcome: "DONE", sender: SELF })],
    ["REFILE with NOT_APPLICABLE", record("m", refile, { marker: "2", outcome: "NOT_APPLICABLE", sender: SELF })],
    ["on a CHECK", record("n", body("erasure/CHECK ACCOUNT"), { marker: "2", outcome: "DONE", sender: SELF })],
    ["no SenderId", { ...record("o", erase, { marker: "2", outcome: "DONE" }), attributes: {} }],
  ];
  let calls = 0;
  const fns = Object.fromEntries(kit.PAIRS.map((p) => [p, async () => (calls++, "DONE")]));
  const h = harness(fns);
  const r = await h.handler({ Records: bad.map(([, rec]) => rec) }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), bad.map(([, rec]) => rec.messageId));
  assert.equal(calls, 0);
  assert.equal(h.sent.length, 0);
  const refusals = h.logObjects();
  assert.equal(refusals.length, bad.length);
  for (const l of refusals) assert.equal(l.code, "BAD_PASS_MARKER");
  assert.equal(refusals[0].type, "erasure/ERASE");
  assertClean(h);
});

test("a pass-two marker on an implemented-but-unimplemented pair still answers NOT_APPLICABLE", async () => {
  const h = harness({});
  const r = await h.handler({ Records: [record("m", body("erasure/ERASE ADDRESS"), { marker: "2", outcome: "DONE", sender: SELF })] }, context());
  assert.deepEqual(r.batchItemFailures, []);
  assert.equal(kit.parseResponse(h.answers()[0].MessageBody).outcome, "NOT_APPLICABLE");
});

test("an expired request is consumed without a call or an answer", async () => {
  let calls = 0;
  const h = harness({ "erasure/CHECK ACCOUNT": async () => (calls++, "HOLDS_DATA") });
  const at = new Date(NOW).toISOString();
  const r = await h.handler({ Records: [record("now", body("erasure/CHECK ACCOUNT", { expiresAt: at })), record("past", body("erasure/CHECK ACCOUNT", { expiresAt: "2000-01-01T00:00:00Z" }))] }, context());
  assert.deepEqual(r.batchItemFailures, []);
  assert.equal(calls, 0);
  assert.equal(h.sent.length, 0);
  assert.deepEqual(h.logObjects()[0], { level: "INFO", msg: "erasure request expired: consumed without an answer", type: "erasure/CHECK", pass: 1 });
  assertClean(h);
});

test("invalid bodies fail their record with only the code logged", async () => {
  const h = harness({ "erasure/CHECK ACCOUNT": async () => "HOLDS_DATA" });
  const recs = [
    record("a", "{not json req-secret-1"),
    record("b", body("erasure/CHECK ACCOUNT", { extra: "acct-secret-9" })),
    record("c", body("erasure/CHECK ACCOUNT").replace('"type"', '"type":"erasure/CHECK","type"')),
    record("d", '{"type":"erasure/ACK","requestId":"req-secret-1","sendNo":1,"subscriber":"space","outcome":"DONE"}'),
    record("e", "\ufeff" + body("erasure/CHECK ACCOUNT")),
    record("f", body("erasure/ERASE ACCOUNT", { sendNo: 1.0 }).replace('"sendNo":1', '"sendNo":1.0')),
    { messageId: "g" },
  ];
  const r = await h.handler({ Records: recs }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a", "b", "c", "d", "e", "f", "g"]);
  assert.deepEqual(h.codes(), ["NOT_JSON", "INVALID_MESSAGE", "INVALID_MESSAGE", "NOT_A_REQUEST", "NOT_JSON", "INVALID_MESSAGE", "NOT_JSON"]);
  for (const l of h.logObjects()) assert.deepEqual(Object.keys(l), ["level", "msg", "code"]);
  assert.equal(h.sent.length, 0);
  assertClean(h);
});

test("a store call that throws fails the record: STORE_CALL_FAILED, the class name only", async () => {
  class StoreDown extends Error {}
  StoreDown.prototype.name = "StoreDown";
  const h = harness({
    "erasure/ERASE ACCOUNT": async () => { throw new StoreDown("cannot erase acct-secret-9 for req-secret-1"); },
    "erasure/CHECK ACCOUNT": () => { throw Object.assign(new Error("x"), { name: "secret@example.invalid" }); },
  });
  const r = await h.handler({ Records: [record("a", body("erasure/ERASE ACCOUNT")), record("b", body("erasure/CHECK ACCOUNT"))] }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a", "b"]);
  assert.deepEqual(h.logObjects(), [
    { level: "WARN", msg: "erasure store call failed", code: "STORE_CALL_FAILED", type: "erasure/ERASE", pass: 1, error: "StoreDown" },
    { level: "WARN", msg: "erasure store call failed", code: "STORE_CALL_FAILED", type: "erasure/CHECK", pass: 1, error: "Error" },
  ]);
  assert.equal(h.sent.length, 0);
  assertClean(h);
});

test("a store call that overruns its time fails the record: BATCH_TIMEOUT, and its signal aborts", async () => {
  const signals = [];
  const h = harness({
    // Ignores the signal: the kit stops waiting.
    "erasure/ERASE ACCOUNT": (req, pass, signal) => (signals.push(signal), new Promise((resolve) => setTimeout(() => resolve("DONE"), 2000))),
    // Honours the signal: rejects with its reason.
    "erasure/CHECK ACCOUNT": (req, pass, signal) => new Promise((resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
  });
  // 200 ms left: the reserve is 20 ms, so each call gets 180 ms.
  const started = Date.now();
  const r = await h.handler({ Records: [record("a", body("erasure/ERASE ACCOUNT")), record("b", body("erasure/CHECK ACCOUNT"))] }, context(200));
  const took = Date.now() - started;
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a", "b"]);
  assert.deepEqual(h.codes(), ["BATCH_TIMEOUT", "BATCH_TIMEOUT"]);
  assert.ok(signals[0].aborted && signals[0].reason.name === "TimeoutError");
  assert.ok(took >= 300 && took < 1500, `took ${took} ms`);
  assert.equal(h.sent.length, 0);
});

test("the batch timeout bounds a call when the deadline is far", async () => {
  const h = harness({ "erasure/CHECK ADDRESS": (req, pass, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve("HOLDS_NONE"))) }, { envOver: { ERASURE_BATCH_TIMEOUT_SECONDS: "1" } });
  const started = Date.now();
  const r = await h.handler({ Records: [record("a", body("erasure/CHECK ADDRESS"))] }, context(600_000));
  assert.ok(Date.now() - started >= 990);
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a"]);
  assert.deepEqual(h.codes(), ["BATCH_TIMEOUT"]);
});

test("call time: the batch timeout, never past the deadline less min(2 s, a tenth of the time left)", () => {
  assert.equal(kit.callTime(60_000, undefined), 60_000);
  assert.equal(kit.callTime(60_000, 900_000), 60_000);
  assert.equal(kit.callTime(60_000, 30_000), 28_000);
  assert.equal(kit.callTime(60_000, 1000), 900);
  assert.equal(kit.callTime(60_000, 0), undefined);
  assert.equal(kit.callTime(60_000, -5), undefined);
});

test("no time left: the record fails without calling the store (NO_TIME_LEFT)", async () => {
  let calls = 0;
  const h = harness({ "erasure/CHECK ACCOUNT": async () => (calls++, "HOLDS_DATA") });
  const r = await h.handler({ Records: [record("a", body("erasure/CHECK ACCOUNT"))] }, context(0));
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a"]);
  assert.equal(calls, 0);
  assert.deepEqual(h.logObjects(), [{ level: "WARN", msg: "erasure request deferred", code: "NO_TIME_LEFT", type: "erasure/CHECK", pass: 1 }]);
});

test("send failures fail only their record: SEND_FAILED, PASS_TWO_ENQUEUE_FAILED", async () => {
  const fns = { "erasure/CHECK ACCOUNT": async () => "HOLDS_DATA", "erasure/ERASE ACCOUNT": async () => "DONE" };
  const answers = harness(fns, { failUrls: ["https://sqs.x/1/responses"] });
  let r = await answers.handler({ Records: [record("a", body("erasure/CHECK ACCOUNT")), record("b", body("erasure/ERASE ACCOUNT"))] }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a"]);
  assert.deepEqual(answers.logObjects()[0], { level: "ERROR", msg: "erasure response send failed", code: "SEND_FAILED", error: "QueueDoesNotExist" });
  assert.equal(answers.metrics.length, 0, "no answer counted when none was sent");
  assertClean(answers);

  const queue = harness(fns, { failUrls: ["https://sqs.x/2/space"] });
  r = await queue.handler({ Records: [record("a", body("erasure/CHECK ACCOUNT")), record("b", body("erasure/ERASE ACCOUNT"))] }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["b"]);
  assert.deepEqual(queue.logObjects().at(-1), { level: "WARN", msg: "erasure pass two not enqueued", code: "PASS_TWO_ENQUEUE_FAILED", type: "erasure/ERASE", error: "QueueDoesNotExist" });
  assertClean(queue);
});

test("an outcome the contract refuses is never sent: INVALID_MESSAGE at pass one, INVALID_RESPONSE on an answer", async () => {
  const h = harness({
    "erasure/ERASE ACCOUNT": async () => "MOVED",
    "erasure/CHECK ACCOUNT": async () => "DONE",
    "erasure/CLASSIFY ACCOUNT": async () => 42,
    "erasure/REFILE ADDRESS": async (req, pass) => (pass === 1 ? "NONE_OWNED" : "HOLDS_DATA"),
  });
  const r = await h.handler({ Records: [record("a", body("erasure/ERASE ACCOUNT")), record("b", body("erasure/CHECK ACCOUNT")), record("c", body("erasure/CLASSIFY ACCOUNT")), record("d", body("erasure/REFILE ADDRESS"))] }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["a", "b", "c"]);
  assert.deepEqual(h.codes(), ["INVALID_MESSAGE", "INVALID_RESPONSE", "INVALID_RESPONSE"]);
  assert.equal(h.answers().length, 0);
  const r2 = await h.handler({ Records: [passTwoRecord("e", h.enqueued()[0])] }, context());
  assert.deepEqual(r2.batchItemFailures.map((f) => f.itemIdentifier), ["e"]);
  assert.equal(h.answers().length, 0);
});

test("a batch mixing good and bad records reports only the bad ones, and every answer's subscriber is the configured one", async () => {
  const h = harness({ "erasure/CHECK ACCOUNT": async () => "HOLDS_NONE", "erasure/ERASE ACCOUNT": async () => { throw new Error("down"); } });
  const r = await h.handler({
    Records: [
      record("bad-json", "{"),
      record("ok-check", body("erasure/CHECK ACCOUNT")),
      record("na-classify", body("erasure/CLASSIFY ADDRESS")),
      record("forged", body("erasure/ERASE ADDRESS"), { marker: "2", outcome: "DONE" }),
      record("expired", body("erasure/CHECK ACCOUNT", { expiresAt: "2001-01-01T00:00:00.5Z" })),
      record("throws", body("erasure/ERASE ACCOUNT")),
      record("other-subscriber", body("erasure/CHECK ACCOUNT", { subscriber: "someone-else" })),
    ],
  }, context());
  assert.deepEqual(r.batchItemFailures.map((f) => f.itemIdentifier), ["bad-json", "forged", "throws", "other-subscriber"]);
  assert.equal(h.answers().length, 2);
  for (const a of h.answers()) assert.equal(kit.parseResponse(a.MessageBody).subscriber, "space");
  assertClean(h);
});

test("an empty or odd event is an empty report, never a throw", async () => {
  const h = harness({});
  assert.deepEqual(await h.handler({ Records: [] }), { batchItemFailures: [] });
  assert.deepEqual(await h.handler({}), { batchItemFailures: [] });
  assert.deepEqual(await h.handler(undefined), { batchItemFailures: [] });
});
