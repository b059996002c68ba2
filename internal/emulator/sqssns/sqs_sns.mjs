// Starts the SNS/SQS emulator (fauxqs) on 127.0.0.1 at a free port, prints one
// JSON line {"endpoint": "..."} on stdout, and stops when stdin closes or on
// SIGTERM/SIGINT. The Go package emulator embeds it and runs it with
// node --input-type=module -e in the folder whose node_modules holds fauxqs:
// tools/ in the repository, a cache folder elsewhere (erasure-conform).
import { buildApp } from "fauxqs";

const region = process.env.EMULATOR_REGION || "eu-west-1";
const app = buildApp({ logger: false, host: "localhost", defaultRegion: region });
const address = await app.listen({ host: "127.0.0.1", port: 0 });
const port = new URL(address).port;
process.stdout.write(JSON.stringify({ endpoint: `http://127.0.0.1:${port}` }) + "\n");

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await app.close();
  process.exit(0);
}
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
