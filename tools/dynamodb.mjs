// Starts the DynamoDB API emulator (dynalite, in memory) on 127.0.0.1 at a free
// port, prints one JSON line {"endpoint": "..."} on stdout, and stops when
// stdin closes or on SIGTERM/SIGINT. The Go package emulator runs it.
import dynalite from "dynalite";

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ endpoint: `http://127.0.0.1:${server.address().port}` }) + "\n");
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
