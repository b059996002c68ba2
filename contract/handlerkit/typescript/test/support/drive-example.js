// Runs the example handler as Lambda would: loads index.js of EXAMPLE_DIR
// (default example/, or a deploy directory build.sh made; its module init
// reads the environment), then invokes it with the batch in
// process.env.BATCH_FILE, then with the pass-two records the fake SQS received
// on the store's own queue, from this handler's own SenderId. Writes both
// results to process.env.RESULT_FILE.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const { handler } = require(path.resolve(process.env.EXAMPLE_DIR ?? path.join(__dirname, "../../example"), "index.js"));
  const context = { getRemainingTimeInMillis: () => 30_000 };
  const first = await handler(JSON.parse(fs.readFileSync(process.env.BATCH_FILE, "utf8")), context);
  const sent = await (await fetch(process.env.AWS_ENDPOINT_URL_SQS + "/sent")).json();
  const self = `${process.env.ERASURE_HANDLER_ROLE_ID}:${process.env.AWS_LAMBDA_FUNCTION_NAME}`;
  const passTwo = sent
    .filter((m) => m.QueueUrl === process.env.ERASURE_QUEUE_URL)
    .map((m, i) => ({
      messageId: `pass-two-${i}`,
      body: m.MessageBody,
      attributes: { SenderId: self },
      messageAttributes: Object.fromEntries(Object.entries(m.MessageAttributes).map(([k, v]) => [k, { stringValue: v.StringValue, dataType: v.DataType }])),
    }));
  const second = await handler({ Records: passTwo }, context);
  fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ first, second }));
}

main();
