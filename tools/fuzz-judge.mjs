// The TypeScript twin's judge as a long-lived process for differential
// fuzzing: reads inputs framed as a 4-byte big-endian length and the bytes,
// and answers each with one byte, in order:
//   'J' NOT_JSON, 'I' INVALID_MESSAGE, 'V' + 1-byte type index VALID:<type>.
// Nothing is ever echoed. Exits when stdin closes.
import { judge } from "./parity.mjs";

const TYPES = ["erasure/ERASE", "erasure/REFILE", "erasure/CLASSIFY", "erasure/CHECK", "erasure/ACK", "erasure/REFILE_ACK", "erasure/HOLDINGS"];
let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  const out = [];
  let off = 0;
  while (pending.length - off >= 4) {
    const n = pending.readUInt32BE(off);
    if (pending.length - off - 4 < n) break;
    const body = pending.subarray(off + 4, off + 4 + n);
    off += 4 + n;
    const v = judge(body);
    if (v === "NOT_JSON") out.push(0x4a, 0);
    else if (v === "INVALID_MESSAGE") out.push(0x49, 0);
    else {
      const i = TYPES.indexOf(v.slice(6));
      out.push(0x56, i < 0 ? 255 : i);
    }
  }
  pending = pending.subarray(off);
  if (out.length) process.stdout.write(Buffer.from(out));
});
process.stdin.on("end", () => process.exit(0));
