// The app-wide check (cmd/erasure-check: the Go code erasurectl check runs):
// the package's native build of it for this platform (kernel/native), or
// else the same command compiled to WebAssembly as a WASI command, run in
// this process. Both the policy validation plugin (ErasureCheck) and the
// erasure-check command go through runCheck, so their verdicts are one.
import { spawnSync } from 'child_process';
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
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
  /** Milliseconds to compile (once a process) and instantiate the module; 0 for the native command. */
  readonly startMillis: number;
  /** Which build of the check ran: the native command of this platform, or the WebAssembly module. */
  readonly engine: 'native' | 'wasm';
}

/**
 * The check's native command for this platform: the optional dependency
 * @linn-cloud/erasure-check-<platform>-<arch> that npm installs beside this
 * package for the team's platform alone (none in the jsii kernel of Python,
 * Java, C# or Go apps, which load the package from its tarball), made
 * executable if the installer dropped the mode (a copy in a new private
 * temporary directory when its folder is read-only), or undefined: the
 * WebAssembly module then runs. ERASURE_CHECK_ENGINE=wasm forces the module,
 * ERASURE_CHECK_ENGINE=native the native command (the tests compare both
 * with erasurectl check).
 */
function nativeCommand(): string | undefined {
  if (process.env.ERASURE_CHECK_ENGINE === 'wasm') return undefined;
  let exe: string;
  try {
    const manifest = require.resolve(`@linn-cloud/erasure-check-${process.platform}-${process.arch}/package.json`);
    exe = join(dirname(manifest), process.platform === 'win32' ? 'erasure-check.exe' : 'erasure-check');
  } catch {
    return undefined;
  }
  if (!existsSync(exe)) return undefined;
  const executable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      try {
        chmodSync(p, 0o755);
        accessSync(p, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }
  };
  if (executable(exe)) return exe;
  try {
    const copy = join(mkdtempSync(join(tmpdir(), 'erasure-check-')), 'erasure-check');
    copyFileSync(exe, copy);
    return executable(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}

let native: string | undefined | null = null;

/**
 * Runs the check with args (erasurectl check's flags and paths, relative to
 * the working directory), reading the files it names and nothing else. With
 * inherit, it prints to this process's stdout and stderr as it goes;
 * otherwise both are captured and returned.
 */
export function runCheck(args: string[], inherit = false): CheckRun {
  const started = process.hrtime.bigint();
  if (native === null) native = nativeCommand();
  if (native === undefined && process.env.ERASURE_CHECK_ENGINE === 'native') {
    throw new Error(`erasure-channel-constructs: ERASURE_CHECK_ENGINE=native, but @linn-cloud/erasure-check-${process.platform}-${process.arch} is not installed`);
  }
  if (native !== undefined) {
    const run = spawnSync(native, args, { stdio: inherit ? 'inherit' : 'pipe', maxBuffer: 1 << 30, windowsHide: true });
    if (run.error === undefined && run.status !== null) {
      if (process.env.ERASURE_CHECK_TIMING === '1') {
        process.stderr.write(`erasure-channel-constructs: the check ran in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms (native)\n`);
      }
      return { exitCode: run.status, stdout: run.stdout?.toString('utf8') ?? '', stderr: run.stderr?.toString('utf8') ?? '', startMillis: 0, engine: 'native' };
    }
    if (process.env.ERASURE_CHECK_ENGINE === 'native') {
      throw new Error(`erasure-channel-constructs: ERASURE_CHECK_ENGINE=native, but the native check would not start (${run.error?.name ?? 'killed'})`);
    }
    native = undefined; // it would not start here (a platform mismatch, a sandbox): the module runs instead, from now on
  }
  if (compiled === undefined) compiled = new WA.Module(readFileSync(join(__dirname, '..', 'kernel', 'check.wasm')));
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const wasi = new Wasi({
    // GOGC=off under a memory limit: the module collects garbage only near
    // the limit, which an app's check rarely reaches (its collector runs in
    // the one thread the check has).
    args: ['erasure-check', ...args], env: { PWD: process.cwd(), GOGC: 'off', GOMEMLIMIT: '1GiB' }, files: true,
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
  return { exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), startMillis, engine: 'wasm' };
}

/**
 * The erasure-conform command: the handler conformance command of the same Go
 * program, from the native build for this platform (it starts processes and
 * listens on ports, which the WebAssembly build cannot).
 */
export function conformMain(argv: string[]): void {
  if (native === null) native = nativeCommand();
  if (native === undefined) {
    process.stderr.write(`erasure-conform: needs the native build @linn-cloud/erasure-check-${process.platform}-${process.arch}, which npm installs with erasure-channel-constructs on the platforms it is built for\n`);
    process.exitCode = 3;
    return;
  }
  const run = spawnSync(native, argv, { stdio: 'inherit', argv0: 'erasure-conform', env: { ...process.env, ERASURE_COMMAND: 'erasure-conform' }, windowsHide: true });
  process.exitCode = run.status ?? 3;
}

/** The erasure-check command: runs the check on argv and exits with its code. */
export function main(argv: string[]): void {
  process.exitCode = runCheck(argv, true).exitCode;
}
