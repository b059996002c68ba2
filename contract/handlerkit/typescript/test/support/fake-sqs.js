// A fake SQS endpoint for the AWS SDK's JSON protocol: SendMessage only. It
// keeps every message, answers with the body's MD5 (the SDK checks it), and
// serves GET /sent so a child process can read what was sent.
"use strict";
const http = require("node:http");
const crypto = require("node:crypto");

/** startFakeSqs listens on 127.0.0.1 and resolves to { url, sent, close }. */
function startFakeSqs() {
  const sent = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/sent") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(sent));
        return;
      }
      const target = req.headers["x-amz-target"];
      if (target !== "AmazonSQS.SendMessage") {
        res.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
        res.end(JSON.stringify({ __type: "com.amazonaws.sqs#UnsupportedOperation", message: String(target) }));
        return;
      }
      const input = JSON.parse(data);
      sent.push(input);
      res.writeHead(200, { "content-type": "application/x-amz-json-1.0" });
      res.end(JSON.stringify({
        MessageId: crypto.randomUUID(),
        MD5OfMessageBody: crypto.createHash("md5").update(input.MessageBody, "utf8").digest("hex"),
      }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, sent, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

module.exports = { startFakeSqs };
