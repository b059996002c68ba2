// Shared test helpers: a fake SQS, a handler harness, request bodies.
"use strict";
const path = require("node:path");
const kit = require("../lib");

/** The repository root (the kit lives in contract/handlerkit/typescript). */
const ROOT = process.env.ERASURE_CHANNEL_ROOT ?? path.resolve(__dirname, "../../../..");

const ROLE_ID = "AROAEXAMPLEROLEID0001";
const FUNCTION_NAME = "erasure-handler-space";
const SELF = `${ROLE_ID}:${FUNCTION_NAME}`;
const NOW = Date.UTC(2026, 10, 30, 8, 0, 0);

/** A valid environment: the caps from the constants file, not typed here. */
function env(over = {}) {
  return {
    ERASURE_SUBSCRIBER: "space",
    ERASURE_QUEUE_URL: "https://sqs.x/2/space",
    ERASURE_RESPONSE_QUEUE_URL: "https://sqs.x/1/responses",
    ERASURE_PASS_TWO_DELAY_SECONDS: String(kit.CONSTANTS.passTwoDelayCapSeconds),
    ERASURE_BATCH_TIMEOUT_SECONDS: String(Math.min(kit.CONSTANTS.batchTimeoutCapSeconds, kit.CONSTANTS.handlerTimeoutCapSeconds)),
    ERASURE_HANDLER_ROLE_ID: ROLE_ID,
    AWS_LAMBDA_FUNCTION_NAME: FUNCTION_NAME,
    ...over,
  };
}

// Personal-looking values every test request carries; no log or metric line may hold one.
const SECRETS = ["req-secret-1", "acct-secret-9", "secret@example.invalid", "to-secret@example.invalid"];

const inHour = new Date(NOW + 3600_000).toISOString();

/** Request bodies by pair, each with the secrets above. */
const REQUESTS = {
  "erasure/ERASE ACCOUNT": { type: "erasure/ERASE", requestId: "req-secret-1", sendNo: 3, expiresAt: inHour, keyKind: "ACCOUNT", key: "acct-secret-9" },
  "erasure/ERASE ADDRESS": { type: "erasure/ERASE", requestId: "req-secret-1", sendNo: 3, expiresAt: inHour, keyKind: "ADDRESS", key: "secret@example.invalid" },
  "erasure/REFILE ADDRESS": { type: "erasure/REFILE", requestId: "req-secret-1", sendNo: 2, expiresAt: inHour, keyKind: "ADDRESS", from: "secret@example.invalid", to: "to-secret@example.invalid", accountId: "acct-secret-9" },
  "erasure/CLASSIFY ACCOUNT": { type: "erasure/CLASSIFY", requestId: "req-secret-1", expiresAt: inHour, keyKind: "ACCOUNT", key: "acct-secret-9" },
  "erasure/CLASSIFY ADDRESS": { type: "erasure/CLASSIFY", requestId: "req-secret-1", expiresAt: inHour, keyKind: "ADDRESS", key: "secret@example.invalid" },
  "erasure/CHECK ACCOUNT": { type: "erasure/CHECK", requestId: "req-secret-1", expiresAt: inHour, keyKind: "ACCOUNT", key: "acct-secret-9" },
  "erasure/CHECK ADDRESS": { type: "erasure/CHECK", requestId: "req-secret-1", expiresAt: inHour, keyKind: "ADDRESS", key: "secret@example.invalid" },
};

/** body writes a request (with overrides) as JSON. */
function body(pair, over = {}) {
  return JSON.stringify({ ...REQUESTS[pair], ...over });
}

/** record makes an SQS record. */
function record(messageId, b, { marker, outcome, sender } = {}) {
  const messageAttributes = {};
  if (marker !== undefined) messageAttributes["erasure-pass"] = { stringValue: marker, dataType: "Number" };
  if (outcome !== undefined) messageAttributes["erasure-pass-one-outcome"] = { stringValue: outcome, dataType: "String" };
  return { messageId, body: b, attributes: { SenderId: sender ?? "AIDAACCOUNTSERVICE:publisher" }, messageAttributes };
}

/** passTwoRecord turns a pass-one enqueue (a SendMessage input) into the record SQS delivers later. */
function passTwoRecord(messageId, input, sender = SELF) {
  const a = input.MessageAttributes;
  return {
    messageId,
    body: input.MessageBody,
    attributes: { SenderId: sender },
    messageAttributes: Object.fromEntries(Object.entries(a).map(([k, v]) => [k, { stringValue: v.StringValue, dataType: v.DataType }])),
  };
}

/**
 * harness builds a handler with a fake SQS: sent holds every SendMessage
 * input; failQueue(url) makes sends to url reject. logs and metrics hold the
 * lines written.
 */
function harness(fns, { envOver = {}, now = NOW, failUrls = [] } = {}) {
  const h = { sent: [], logs: [], metrics: [], failUrls: new Set(failUrls) };
  h.handler = kit.makeHandler(fns, {
    env: env(envOver),
    now: () => now,
    log: (l) => h.logs.push(l),
    metrics: (l) => h.metrics.push(l),
    sendMessage: async (input) => {
      if (h.failUrls.has(input.QueueUrl)) {
        const e = new Error("queue req-secret-1 acct-secret-9 is gone");
        e.name = "QueueDoesNotExist";
        throw e;
      }
      h.sent.push(input);
      return { MessageId: "m" };
    },
  });
  h.answers = () => h.sent.filter((s) => s.QueueUrl === "https://sqs.x/1/responses");
  h.enqueued = () => h.sent.filter((s) => s.QueueUrl === "https://sqs.x/2/space");
  h.logObjects = () => h.logs.map((l) => JSON.parse(l));
  h.codes = () => h.logObjects().map((l) => l.code).filter(Boolean);
  h.output = () => h.logs.join("") + h.metrics.join("");
  return h;
}

/** A Lambda context with ms left. */
function context(ms = 60_000) {
  return { getRemainingTimeInMillis: () => ms };
}

module.exports = { kit, ROOT, SELF, NOW, SECRETS, REQUESTS, env, body, record, passTwoRecord, harness, context };
