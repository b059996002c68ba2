// Builds what the package carries besides its compiled TypeScript, from the
// repository's one source of each: kernel/plan.wasm, the Go decisions of
// constructs/erasure/plan compiled to WebAssembly (GOOS=wasip1, a reactor);
// kernel/apply.js, the applier the Go constructs hand the same designs to
// (constructs/erasure/applier/apply.js), with its declarations
// (kernel/apply.d.ts, emitted by tsc from its JSDoc types) and the design's
// types (kernel/design.d.ts, from applier/design.ts, generated from the Go
// types), each with a declaration map back to its source, so that
// lib/plan.ts is compiled against the applier itself and an editor follows
// it there. All
// are build output: never committed. Needs Go 1.26 on the PATH. The tag erasureplan
// leaves the contract's reference schema validator out (contract/schemacheck.go).
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..')
const repo = join(pkg, '..', '..')
mkdirSync(join(pkg, 'kernel'), { recursive: true })
execFileSync('go', ['build', '-tags', 'erasureplan', '-buildmode=c-shared', '-trimpath', '-ldflags=-s -w', '-o', join(pkg, 'kernel', 'plan.wasm'), './constructs/erasure/plan/wasm'], {
  cwd: repo,
  stdio: 'inherit',
  env: { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', CGO_ENABLED: '0' },
})
const applierDir = join(repo, 'constructs', 'erasure', 'applier')
rmSync(join(pkg, 'kernel', 'handover.js'), { force: true })
copyFileSync(join(applierDir, 'apply.js'), join(pkg, 'kernel', 'apply.js'))
// The declarations of the applier and the design's types, with their
// declaration maps (kernel/*.d.ts.map): an editor's "go to definition" from
// lib/ lands in the source, applier/apply.js and applier/design.ts, not in
// these copies. (jsii compiles lib/ alone, rootDir lib: the package cannot
// import the source itself.)
rmSync(join(pkg, 'kernel', 'types'), { recursive: true, force: true })
execFileSync(process.execPath, [join(pkg, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(applierDir, 'tsconfig.json'),
  '--noEmit', 'false', '--declaration', '--declarationMap', '--emitDeclarationOnly', '--outDir', join(pkg, 'kernel')], { stdio: 'inherit' })
// kernel/check.wasm: the app-wide check (cmd/erasure-check, the Go code of
// erasurectl check) as a WASI command, for ErasureCheck and erasure-check.
execFileSync('go', ['build', '-tags', 'erasureplan', '-trimpath', '-ldflags=-s -w', '-o', join(pkg, 'kernel', 'check.wasm'), './cmd/erasure-check'], {
  cwd: repo,
  stdio: 'inherit',
  env: { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', CGO_ENABLED: '0' },
})
// kernel/rules.json: the check's rule catalogue, from the Go registry (the
// one source; erasurectl check --list-rules --format json), so that
// ErasureCheck.acknowledge refuses an unknown or unacknowledgeable rule at the
// call, before any synth.
writeFileSync(join(pkg, 'kernel', 'rules.json'), execFileSync('go', ['run', './cmd/erasure-check', '--list-rules', '--format', 'json'], { cwd: repo }))
// native/<platform>-<arch>/erasure-check: the same command compiled
// natively for the platforms CDK apps and their CI mostly run on (Node's
// process.platform and process.arch names), about ten times faster than the
// WebAssembly module on V8 (whose Go code starts cold in every synth). They are
// not in this package: scripts/native-packages.mjs packs each as its own npm
// package (@linn-cloud/erasure-check-<platform>-<arch>, an optional dependency
// npm installs for the team's platform alone), and tools/release packs them
// as platform wheels and Maven classifiers (docs/release.md).
const natives = [['linux', 'x64', 'linux', 'amd64'], ['linux', 'arm64', 'linux', 'arm64'], ['darwin', 'x64', 'darwin', 'amd64'],
  ['darwin', 'arm64', 'darwin', 'arm64'], ['win32', 'x64', 'windows', 'amd64']]
rmSync(join(pkg, 'kernel', 'native'), { recursive: true, force: true })
rmSync(join(pkg, 'native'), { recursive: true, force: true })
for (const [platform, arch, goos, goarch] of natives) {
  const exe = platform === 'win32' ? 'erasure-check.exe' : 'erasure-check'
  execFileSync('go', ['build', '-tags', 'erasureplan', '-trimpath', '-ldflags=-s -w', '-o', join(pkg, 'native', `${platform}-${arch}`, exe), './cmd/erasure-check'], {
    cwd: repo,
    stdio: 'inherit',
    env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' },
  })
}
