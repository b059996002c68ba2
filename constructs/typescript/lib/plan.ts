// The erasure channel's decisions (constructs/erasure/plan, Go) compiled to
// WebAssembly, and the applier that builds what they design
// (constructs/erasure/applier/apply.js, the one the Go constructs use).
// Nothing here decides anything: it runs the module and hands its designs
// to the applier.
import { readFileSync } from 'fs';
import { join } from 'path';
import type { Design, Metric, SubscriberInput, SubscriberStep } from '../kernel/design';
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
function callPlan(request: unknown): unknown {
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
  const answer: unknown = JSON.parse(Buffer.from(w.memory.buffer, q, n).toString('utf8'));
  w.free(q);
  if (answer !== null && typeof answer === 'object' && 'error' in answer) {
    throw new Error(`erasure-channel-constructs: the plan refused a call: ${String(answer.error)}`);
  }
  return answer;
}

/** The next step of building an ErasureSubscriber (plan.Subscriber). */
export function subscriberStep(input: SubscriberInput): SubscriberStep {
  return callPlan({ call: 'subscriber', input }) as SubscriberStep;
}

/** The ErasureNotApplicable metric of a subscriber (design.NotApplicableMetric). */
export function notApplicableMetric(name: string): Metric {
  return callPlan({ call: 'notApplicableMetric', name }) as Metric;
}

/** The design of a subscriber's NOT_APPLICABLE alarm (design.NotApplicableAlarm). */
export function notApplicableAlarm(name: string, id: string, threshold: number): Design {
  return callPlan({ call: 'notApplicableAlarm', name, id, threshold }) as Design;
}

/**
 * The applier the Go constructs hand the same designs to
 * (constructs/erasure/applier/apply.js): its types are its own, emitted
 * from its JSDoc by tsc at build.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const applier: typeof import('../kernel/apply') = require(join(__dirname, '..', 'kernel', 'apply.js'));
