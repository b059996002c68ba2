// The erasure channel's decisions (constructs/erasure/plan, Go) compiled to
// WebAssembly, and the hand-over that applies what they decide
// (constructs/erasure/handover/index.js, the one the Go constructs use).
// Nothing here decides anything: it runs the module, names objects, and
// applies operations.
import { readFileSync } from 'fs';
import { join } from 'path';
import { Wasi } from './wasi';

// jsii compiles against ES2020's library, which does not declare
// WebAssembly; Node has it.
const WA = (globalThis as any).WebAssembly;

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer };
  _initialize(): void;
  alloc(n: number): number;
  free(p: number): void;
  call(p: number, n: number): bigint;
}

let instance: Exports | undefined;

// What the module's start cost, in milliseconds (compile, instantiate,
// initialize): ERASURE_PLAN_TIMING=1 prints it to stderr.
let startMillis = 0;

function wasm(): Exports {
  if (instance !== undefined) return instance;
  const started = process.hrtime.bigint();
  const bytes = readFileSync(join(__dirname, '..', 'kernel', 'plan.wasm'));
  const module = new WA.Module(bytes);
  // A reactor that reads no file, no argument and no environment, and
  // writes only to stderr (a Go runtime fault).
  const wasi = new Wasi({ args: [], env: {}, files: false, stdout: (b) => process.stderr.write(b), stderr: (b) => process.stderr.write(b) });
  const made = new WA.Instance(module, { wasi_snapshot_preview1: wasi.imports() }).exports as unknown as Exports;
  wasi.bind(made.memory);
  made._initialize();
  instance = made;
  startMillis = Number(process.hrtime.bigint() - started) / 1e6;
  if (process.env.ERASURE_PLAN_TIMING === '1') process.stderr.write(`erasure-channel-constructs: the plan module started in ${startMillis.toFixed(1)} ms\n`);
  return made;
}

/** One call of the plan module: a JSON request in, its JSON answer out. */
export function callPlan(request: unknown): any {
  const w = wasm();
  const input = Buffer.from(JSON.stringify(request));
  const p = w.alloc(input.length);
  new Uint8Array(w.memory.buffer, p, input.length).set(input);
  let packed: bigint;
  try {
    packed = w.call(p, input.length);
  } catch (e) {
    // A fault of the module (a Go panic traps), not of the caller's props.
    instance = undefined;
    throw new Error(`erasure-channel-constructs: the plan module failed (${(e as Error).name}); this is a fault of the package, not of your props`);
  }
  w.free(p);
  const q = Number(packed >> 32n), n = Number(packed & 0xffffffffn);
  const answer = JSON.parse(Buffer.from(w.memory.buffer, q, n).toString('utf8'));
  w.free(q);
  if (answer !== null && typeof answer === 'object' && 'error' in answer) {
    throw new Error(`erasure-channel-constructs: the plan refused a call: ${answer.error}`);
  }
  return answer;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const handover: { run(list: unknown[], refs: unknown[]): unknown[] } = require(join(__dirname, '..', 'kernel', 'handover.js'));

/**
 * Applies a plan's operations with the hand-over, each {"$name": n} bound
 * to names[n]; what an operation makes under its "as" joins names. Returns
 * each operation's answer as the plan reads it (plain data, or null for an
 * object) and what each returned.
 */
export function applyPlan(ops: any[], names: Map<string, unknown>): { answers: unknown[]; results: unknown[] } {
  const refs: unknown[] = [];
  const bind = (v: any): any => {
    if (Array.isArray(v)) return v.map(bind);
    if (v === null || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$name') {
      if (!names.has(v.$name)) throw new Error(`erasure-channel-constructs: the plan names ${JSON.stringify(v.$name)}, which nothing made`);
      refs.push(names.get(v.$name));
      return { $ref: refs.length - 1 };
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = bind(v[k]);
    return out;
  };
  const bound = ops.map(bind);
  const results = handover.run(bound, refs);
  const answers = results.map((r, i) => {
    if (typeof ops[i].as === 'string') names.set(ops[i].as, r);
    return r !== null && (typeof r === 'string' || Object.getPrototypeOf(r) === Object.prototype) ? r : null;
  });
  return { answers, results };
}
