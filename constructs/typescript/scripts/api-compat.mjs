// The API-compatibility gate (make api-compat, part of make test): the
// package's jsii assembly against the newest released assembly kept under
// api/<version>/, with jsii-diff. A change that breaks a public type fails
// unless the version's compatibility number moved: the major, or while the
// package is 0.x the minor, as npm's caret ranges read it (^0.2 admits
// 0.2.x, not 0.3). Usage: node scripts/api-compat.mjs [PACKAGE_DIR]
// (default: this package; a test passes a mutated copy).
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..')
const current = process.argv[2] ?? pkg
const parse = (v) => {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v)
  if (!m) throw new Error(`api-compat: ${JSON.stringify(v)} is not a release version (MAJOR.MINOR.PATCH)`)
  return m.slice(1).map(Number)
}
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
// The compatibility number: what must move for a breaking change.
const compat = ([major, minor]) => (major === 0 ? `0.${minor}` : `${major}`)

const version = JSON.parse(readFileSync(join(current, '.jsii'), 'utf8')).version
const releases = readdirSync(join(pkg, 'api')).filter((d) => /^\d+\.\d+\.\d+$/.test(d)).sort((a, b) => compare(parse(a), parse(b)))
if (releases.length === 0) throw new Error('api-compat: no released assembly under api/')
const base = releases[releases.length - 1]
if (compare(parse(version), parse(base)) < 0) {
  console.error(`api-compat: version ${version} is older than the released ${base}`)
  process.exit(1)
}
const moved = compat(parse(version)) !== compat(parse(base))
// jsii-diff on this Node, not whatever node the PATH names first.
const bin = join(pkg, 'node_modules', 'jsii-diff', 'bin', 'jsii-diff')
try {
  execFileSync(process.execPath, [bin, '--experimental-errors', join(pkg, 'api', base), current], { stdio: ['ignore', 'pipe', 'pipe'] })
  console.log(`api-compat: ${version} keeps the API of ${base}`)
} catch (e) {
  const report = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim()
  if (e.status !== 1 || report === '') throw e
  if (moved) {
    console.log(`api-compat: ${version} breaks the API of ${base}, as a move from ${compat(parse(base))} to ${compat(parse(version))} may:\n${report}`)
  } else {
    console.error(`api-compat: ${version} breaks the API of ${base} without moving ${compat(parse(base))} (docs/release.md):\n${report}`)
    process.exit(1)
  }
}
