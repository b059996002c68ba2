// The app-wide check (cmd/erasure-check: the Go code erasurectl check runs,
// compiled to WebAssembly as a WASI command) run in this process. Both the
// policy validation plugin (ErasureCheck) and the erasure-check command go
// through runCheck, so their verdicts are one.
import { readFileSync } from 'fs';
import { join } from 'path';
import { Wasi, WasiExit } from './wasi';

// jsii compiles against ES2020's library, which does not declare
// WebAssembly; Node has it.
const WA = (globalThis as any).WebAssembly;

let compiled: unknown;

/** What one run of the check printed and how it exited. */
export interface CheckRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Milliseconds to compile (once a process) and instantiate the module. */
  readonly startMillis: number;
}

/**
 * Runs the check with args (erasurectl check's flags and paths, relative to
 * the working directory), reading the files it names and nothing else. With
 * inherit, it prints to this process's stdout and stderr as it goes;
 * otherwise both are captured and returned.
 */
export function runCheck(args: string[], inherit = false): CheckRun {
  const started = process.hrtime.bigint();
  if (compiled === undefined) compiled = new WA.Module(readFileSync(join(__dirname, '..', 'kernel', 'check.wasm')));
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const wasi = new Wasi({
    args: ['erasure-check', ...args], env: { PWD: process.cwd() }, files: true,
    stdout: (b) => (inherit ? process.stdout.write(b) : out.push(Buffer.from(b))),
    stderr: (b) => (inherit ? process.stderr.write(b) : err.push(Buffer.from(b))),
  });
  const instance = new WA.Instance(compiled, { wasi_snapshot_preview1: wasi.imports() });
  wasi.bind(instance.exports.memory);
  const startMillis = Number(process.hrtime.bigint() - started) / 1e6;
  // ERASURE_CHECK_TIMING=1 prints what starting the module and the whole check cost (tools/bench-synth).
  if (process.env.ERASURE_CHECK_TIMING === '1') process.stderr.write(`erasure-channel-constructs: the check module started in ${startMillis.toFixed(1)} ms\n`);
  let exitCode = 0;
  try {
    instance.exports._start();
  } catch (e) {
    if (!(e instanceof WasiExit)) {
      throw new Error(`erasure-channel-constructs: the check module failed (${(e as Error).name}); this is a fault of the package, not of your app`);
    }
    exitCode = e.code;
  } finally {
    wasi.close();
  }
  if (process.env.ERASURE_CHECK_TIMING === '1') {
    process.stderr.write(`erasure-channel-constructs: the check ran in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms\n`);
  }
  return { exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), startMillis };
}

/** The erasure-check command: runs the check on argv and exits with its code. */
export function main(argv: string[]): void {
  process.exitCode = runCheck(argv, true).exitCode;
}
