// The example store (example/index.js) run as Lambda runs it, in a child
// process: the kit resolved by module name (NODE_PATH, as Lambda resolves a
// deploy directory), the AWS SDK's default SQS client sending to a fake SQS
// through AWS_ENDPOINT_URL_SQS. Every capability pair gets an allowed answer
// after both passes; the process's real stdout and stderr carry no personal
// value. KIT_TEST_BUILD=1 also builds a deploy directory with build.sh and
// runs the same against it.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFile } = require("node:child_process");
const { ROOT } = require("./helpers");
const { startFakeSqs } = require("./support/fake-sqs");

const KIT = path.resolve(__dirname, "..");
const capability = JSON.parse(fs.readFileSync(path.join(ROOT, "schema/erasure-capability-fixtures.json"), "utf8"));
const constants = JSON.parse(fs.readFileSync(path.join(ROOT, "schema/erasure-channel-constants.json"), "utf8")).constants;

/** A NODE_PATH directory where the kit resolves by its package name. */
function nodePathWithKit(tmp) {
  const scope = path.join(tmp, "node_modules/@linn-cloud");
  fs.mkdirSync(scope, { recursive: true });
  fs.symlinkSync(KIT, path.join(scope, "erasure-handler-kit"), "dir");
  return path.join(tmp, "node_modules");
}

/** run starts the driver with env and resolves to { code, stdout, stderr }. */
function run(env) {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(__dirname, "support/drive-example.js")], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

function baseEnv(sqs, extra) {
  return {
    PATH: process.env.PATH,
    AWS_REGION: "eu-west-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_ENDPOINT_URL_SQS: sqs.url,
    ERASURE_SUBSCRIBER: "example-store",
    ERASURE_QUEUE_URL: `${sqs.url}/000000000000/erasure-example-store`,
    ERASURE_RESPONSE_QUEUE_URL: `${sqs.url}/000000000000/erasure-responses`,
    ERASURE_PASS_TWO_DELAY_SECONDS: "7",
    ERASURE_BATCH_TIMEOUT_SECONDS: "5",
    ERASURE_HANDLER_ROLE_ID: "AROAEXAMPLESTORE00001",
    AWS_LAMBDA_FUNCTION_NAME: "erasure-handler-example-store",
    ...extra,
  };
}

async function capabilityRun(t, extra) {
  const sqs = await startFakeSqs();
  t.after(() => sqs.close());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kit-example-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const expiresAt = new Date(Date.now() + constants.expiryPeriodSeconds.value * 1000).toISOString();
  const batch = { Records: capability.pairs.map((p, i) => ({ messageId: `m${i}`, body: JSON.stringify({ ...p.request, expiresAt }), attributes: { SenderId: "AIDAACCOUNTSERVICE:publisher" }, messageAttributes: {} })) };
  fs.writeFileSync(path.join(tmp, "batch.json"), JSON.stringify(batch));
  const env = baseEnv(sqs, { BATCH_FILE: path.join(tmp, "batch.json"), RESULT_FILE: path.join(tmp, "result.json"), ...extra(tmp) });
  const out = await run(env);
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(fs.readFileSync(path.join(tmp, "result.json"), "utf8"));
  assert.deepEqual(result, { first: { batchItemFailures: [] }, second: { batchItemFailures: [] } });

  // Pass one of ERASE and REFILE went to the store's own queue, delayed and marked.
  const queued = sqs.sent.filter((m) => m.QueueUrl === env.ERASURE_QUEUE_URL);
  assert.equal(queued.length, capability.pairs.filter((p) => ["erasure/ERASE", "erasure/REFILE"].includes(p.type)).length);
  for (const q of queued) {
    assert.equal(q.DelaySeconds, 7);
    assert.deepEqual(q.MessageAttributes["erasure-pass"], { DataType: "Number", StringValue: "2" });
  }
  // One allowed answer per pair, with no message attribute.
  const answers = sqs.sent.filter((m) => m.QueueUrl === env.ERASURE_RESPONSE_QUEUE_URL);
  assert.equal(answers.length, capability.pairs.length);
  for (const p of capability.pairs) {
    const a = answers.map((m) => JSON.parse(m.MessageBody)).find((b) => b.requestId === p.request.requestId);
    assert.ok(a, `no answer to ${p.type} ${p.keyKind}`);
    assert.equal(a.type, p.responseType);
    assert.equal(a.subscriber, "example-store");
    assert.ok(p.implementedOutcomes.includes(a[p.outcomeField]), `${p.type} ${p.keyKind}: ${a[p.outcomeField]}`);
  }
  for (const m of answers) assert.equal(m.MessageAttributes, undefined);

  // The real stdout and stderr: JSON lines, metrics on stdout, no personal value.
  const personal = capability.pairs.flatMap((p) => [p.request.requestId, p.request.key, p.request.from, p.request.to, p.request.accountId]).filter(Boolean);
  for (const s of personal) assert.ok(!out.stdout.includes(s) && !out.stderr.includes(s), `output carries ${s}`);
  const metrics = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(metrics.filter((m) => m.ErasureAnswers === 1).length, capability.pairs.length);
  const logs = out.stderr.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(logs.filter((l) => l.msg === "erasure answer sent").length, capability.pairs.length);
  assert.equal(logs.filter((l) => l.msg === "erasure pass two enqueued").length, queued.length);
}

test("the example answers every capability pair through the SDK's default client, as Lambda runs it", async (t) => {
  await capabilityRun(t, (tmp) => ({ NODE_PATH: nodePathWithKit(tmp) }));
});

test("the example's init fails on a bad environment, naming the variable and never the value", async (t) => {
  const sqs = await startFakeSqs();
  t.after(() => sqs.close());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kit-example-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const out = await run(baseEnv(sqs, { NODE_PATH: nodePathWithKit(tmp), ERASURE_SUBSCRIBER: "Secret-Store", ERASURE_BATCH_TIMEOUT_SECONDS: undefined }));
  assert.notEqual(out.code, 0);
  assert.match(out.stderr, /EnvError: erasure handler environment: ERASURE_BATCH_TIMEOUT_SECONDS: missing; ERASURE_SUBSCRIBER: not a subscriber name/);
  assert.ok(!out.stderr.includes("Secret-Store"));
  assert.equal(sqs.sent.length, 0);
});

test("build.sh makes a deploy directory Lambda runs (KIT_TEST_BUILD=1)", { skip: process.env.KIT_TEST_BUILD !== "1" && "set KIT_TEST_BUILD=1 (runs npm pack and npm install)" }, async (t) => {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), "kit-deploy-"));
  t.after(() => fs.rmSync(dest, { recursive: true, force: true }));
  await new Promise((resolve, reject) => {
    execFile("bash", [path.join(KIT, "example/build.sh"), dest], { timeout: 300_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve()));
  });
  for (const f of ["index.js", "node_modules/@linn-cloud/erasure-handler-kit/lib/index.js", "node_modules/@aws-sdk/client-sqs/package.json"]) {
    assert.ok(fs.existsSync(path.join(dest, f)), f);
  }
  assert.ok(!fs.existsSync(path.join(dest, "node_modules/typescript")), "a dev dependency in the deploy directory");
  await capabilityRun(t, () => ({ EXAMPLE_DIR: dest }));
});
