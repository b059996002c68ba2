// Compiles index.ts with the jsii compiler (the TypeScript package's pinned
// jsii) in a scratch folder and writes its assembly and JavaScript to
// outdir (default: this folder, as .jsii and index.js): node
// build-assembly.mjs [outdir]. `make applier` runs it.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const out = process.argv[2] ?? here
const modules = join(here, '..', '..', 'typescript', 'node_modules')
const work = mkdtempSync(join(tmpdir(), 'erasure-applier-'))
try {
  for (const f of ['package.json', 'index.ts', 'README.md']) copyFileSync(join(here, f), join(work, f))
  symlinkSync(modules, join(work, 'node_modules'), 'dir')
  execFileSync(process.execPath, [join(modules, 'jsii', 'bin', 'jsii'), '--silence-warnings=reserved-word'], { cwd: work, stdio: 'inherit' })
  copyFileSync(join(work, '.jsii'), join(out, '.jsii'))
  copyFileSync(join(work, 'index.js'), join(out, 'index.js'))
} finally {
  rmSync(work, { recursive: true, force: true })
}
