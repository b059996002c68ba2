// A bare Node.js handler: what a store writes without the kit, for the kit's
// cold-start and per-record figures (tools/bench-kits): the SQS client made
// at init, every record's body read, nothing failed.
const { SQSClient } = require("@aws-sdk/client-sqs");

const sqs = new SQSClient({});

exports.handler = async (event) => {
  for (const record of event.Records) JSON.parse(record.body);
  return { batchItemFailures: [] };
};
