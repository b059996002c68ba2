// Cross-twin parity: judges every shared fixture the way the TypeScript twin
// does (strict wire profile, JSON.parse, ajv in strict mode over the same
// schema) and compares with the manifest's verdicts.
//
//   node tools/parity.mjs            run the fixture set; exit 1 on any disagreement
//   node tools/parity.mjs --bench    time JSON.parse + ajv validate per message on the
//                                    valid-request corpus; prints "ajv ns/op N"
//   node tools/parity.mjs --judge F  print the verdict for one file (used by the Go fuzz cross-check)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const schema = JSON.parse(readFileSync(join(root, "schema/erasure-contract.schema.json"), "utf8"));
const ajv = new Ajv2020({ strict: true, allErrors: false });
const validate = ajv.compile(schema);
const REQUESTS = new Set(["erasure/ERASE", "erasure/REFILE", "erasure/CLASSIFY", "erasure/CHECK"]);
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// profileOK applies the parts of the wire profile JSON.parse cannot see to a
// text JSON.parse accepted and whose value is an object: unique member names
// after unescaping, no lone surrogates, numbers written as plain digits.
// Nested values are skipped: no contract field takes one, so the schema
// refuses them anyway.
function profileOK(text) {
  let i = 0;
  const ws = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
  const strToken = () => {
    const re = /"(?:[^"\\]|\\.)*"/y;
    re.lastIndex = i;
    const m = re.exec(text);
    i = re.lastIndex;
    return JSON.parse(m[0]);
  };
  const skipNested = () => {
    let depth = 0;
    do {
      const c = text[i];
      if (c === '"') { strToken(); continue; }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
      i++;
    } while (depth > 0);
  };
  const names = new Set();
  ws(); i++; // '{'
  ws();
  if (text[i] === "}") return true;
  for (;;) {
    ws();
    const name = strToken();
    if (!name.isWellFormed() || names.has(name)) return false;
    names.add(name);
    ws(); i++; // ':'
    ws();
    const c = text[i];
    if (c === '"') {
      if (!strToken().isWellFormed()) return false;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const re = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
      re.lastIndex = i;
      const lexeme = re.exec(text)[0];
      i = re.lastIndex;
      if (!/^[0-9]+$/.test(lexeme)) return false;
    } else if (c === "{" || c === "[") {
      skipNested();
    } else {
      i += c === "f" ? 5 : 4; // true, null, false
    }
    ws();
    if (text[i++] === "}") return true; // else ','
  }
}

// judge returns VALID:<type>, NOT_JSON or INVALID_MESSAGE.
export function judge(buf) {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return "NOT_JSON";
  let text, value;
  try {
    text = decoder.decode(buf);
    value = JSON.parse(text);
  } catch {
    return "NOT_JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "INVALID_MESSAGE";
  if (!profileOK(text) || !validate(value)) return "INVALID_MESSAGE";
  return "VALID:" + value.type;
}

function parseRequestVerdict(v) {
  if (!v.startsWith("VALID:")) return v;
  return REQUESTS.has(v.slice(6)) ? "OK" : "NOT_A_REQUEST";
}

function loadCases() {
  const dir = join(root, "schema/fixtures");
  const man = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  return man.cases.map((c) => ({ ...c, body: readFileSync(join(dir, c.file)) }));
}

function runParity() {
  let passed = 0, failed = 0;
  for (const c of loadCases()) {
    const v = judge(c.body);
    const gotValidate = v.startsWith("VALID:") ? "VALID" : v;
    const gotRequest = parseRequestVerdict(v);
    if (gotValidate === c.validate && gotRequest === c.parseRequest) {
      passed++;
    } else {
      failed++;
      console.log(`FAIL ${c.file}: ajv twin says validate=${gotValidate} parseRequest=${gotRequest}, manifest says validate=${c.validate} parseRequest=${c.parseRequest} (${c.why})`);
    }
  }
  console.log(`parity: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

function runBench() {
  const corpus = loadCases().filter((c) => c.parseRequest === "OK").map((c) => c.body.toString("utf8"));
  let sink = 0;
  const round = () => { for (const s of corpus) { if (validate(JSON.parse(s))) sink++; } };
  for (let i = 0; i < 20000; i++) round(); // warm up the JIT
  const rounds = 50000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) round();
  const ns = Number(process.hrtime.bigint() - t0) / (rounds * corpus.length);
  console.log(`ajv corpus ${corpus.length} messages, JSON.parse + validate: ${ns.toFixed(1)} ns/op (sink ${sink > 0})`);
  console.log(`ajv ns/op ${ns.toFixed(1)}`);
}

// Run only as a script: fuzz-judge.mjs imports judge without running the fixtures.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = process.argv[2];
  if (arg === "--bench") runBench();
  else if (arg === "--judge") console.log(judge(readFileSync(process.argv[3])));
  else runParity();
}
