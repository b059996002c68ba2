// Differential test against the repository's ajv twin (tools/parity.mjs,
// which agrees with Go on every fixture): thousands of deterministic
// mutations of the fixtures must get the same verdict from the kit's
// hand-written validator. Skipped when tools/ has no ajv (make tools).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { kit, ROOT } = require("./helpers");

const parity = path.join(ROOT, "tools/parity.mjs");
const haveAjv = fs.existsSync(path.join(ROOT, "tools/node_modules/ajv/package.json"));

/** A small deterministic generator (mulberry32). */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "0", "1", "-", ".", "e", "+", "\\u0000", "\\ud800", "\\udc00",
  "\\ud83d\\ude00", "A", "@", "\u212a", "\u00e9", "\u007f", "\ufeff", "null", "true", "2147483648", "1e3",
  '"type":"erasure/ACK",', '"extra":1,', '"sendNo":0,', '"key":"a@b",', '"keyKind":"ADDRESS",'];

function mutate(buf, r) {
  let s = buf.toString("latin1");
  const n = 1 + Math.floor(r() * 3);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(r() * (s.length + 1));
    const op = r();
    if (op < 0.3 && s.length > 0) s = s.slice(0, at) + s.slice(at + 1);
    else if (op < 0.5 && s.length > 0) s = s.slice(0, at) + String.fromCharCode(Math.floor(r() * 256)) + s.slice(at + 1);
    else {
      const piece = Buffer.from(PIECES[Math.floor(r() * PIECES.length)], "utf8").toString("latin1");
      s = s.slice(0, at) + piece + s.slice(at);
    }
  }
  return Buffer.from(s, "latin1");
}

function mine(buf) {
  try {
    return "VALID:" + kit.validate(buf).type;
  } catch (e) {
    return e.code;
  }
}

test("the hand-written validator agrees with the ajv twin on mutated fixtures", { skip: !haveAjv && "no ajv in tools/node_modules (make tools)" }, async () => {
  const { judge } = await import(require("node:url").pathToFileURL(parity).href);
  const dir = path.join(ROOT, "schema/fixtures");
  const cases = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).cases.map((c) => fs.readFileSync(path.join(dir, c.file)));
  const r = rng(20260101);
  const disagreements = [];
  let valid = 0;
  for (let i = 0; i < 20000; i++) {
    const buf = mutate(cases[i % cases.length], r);
    const want = judge(buf);
    const got = mine(buf);
    if (want.startsWith("VALID")) valid++;
    if (want !== got && disagreements.length < 5) disagreements.push(`${JSON.stringify(buf.toString("latin1"))}: ajv twin ${want}, kit ${got}`);
  }
  assert.deepEqual(disagreements, []);
  assert.ok(valid > 100, `only ${valid} mutants were valid`);
  console.log(`differential: ${valid} valid mutants of 20000, ${disagreements.length} disagreements`);
});
