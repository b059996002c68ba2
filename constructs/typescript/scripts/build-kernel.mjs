// Builds what the package carries besides its compiled TypeScript, from the
// repository's one source of each: kernel/plan.wasm, the Go decisions of
// constructs/erasure/plan compiled to WebAssembly (GOOS=wasip1, a reactor),
// and kernel/handover.js, the applier the Go constructs hand the same
// operations to (constructs/erasure/handover/index.js). Both are build
// output: never committed. Needs Go 1.26 on the PATH. The tag erasureplan
// leaves the contract's reference schema validator out (contract/schemacheck.go).
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
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
copyFileSync(join(repo, 'constructs', 'erasure', 'handover', 'index.js'), join(pkg, 'kernel', 'handover.js'))
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
