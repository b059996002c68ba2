// Compares two cloud assemblies template by template, like for like, for
// tools/bench-synth: the Go app's and the TypeScript twin's. It normalises
// what says nothing about what is deployed (asset hashes, every Metadata
// block, the 8-hex suffix CDK appends to a logical id) and then demands the
// same stacks, resources, properties, policy statements and outputs. It
// exits 1 and prints the first difference, or prints how much it compared.
// Usage: node compare.mjs GO_DIR TS_DIR
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const [goDir, tsDir] = process.argv.slice(2)
const templates = (dir) => readdirSync(dir).filter((f) => f.endsWith('.template.json')).sort()

// A logical id without CDK's hash suffix; a reference to one the same way.
const bare = (id) => id.replace(/[0-9A-F]{8}$/, '')
function normalise(v) {
  if (typeof v === 'string') return v.replace(/[0-9a-f]{64}/g, '<asset>')
  if (Array.isArray(v)) return v.map(normalise)
  if (v && typeof v === 'object') {
    const out = {}
    for (const [k, x] of Object.entries(v)) {
      if (k === 'Metadata') continue
      if (k === 'Ref' && typeof x === 'string') { out[k] = bare(x); continue }
      if (k === 'Fn::GetAtt') { out[k] = Array.isArray(x) ? [bare(x[0]), ...x.slice(1)] : bare(String(x).split('.')[0]) + String(x).slice(String(x).indexOf('.')); continue }
      if (k === 'DependsOn') { out[k] = [x].flat().map(bare).sort(); continue }
      out[k] = normalise(x)
    }
    return out
  }
  return v
}
function byBareId(section = {}) {
  const out = {}
  for (const [id, r] of Object.entries(section)) out[bare(id)] = normalise(r)
  return out
}

// firstDifference is the path to the first place a and b differ, or null.
function firstDifference(a, b, path) {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) return path
  if (Array.isArray(a)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d) return d
    }
    return null
  }
  if (a && typeof a === 'object') {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (!(k in a) || !(k in b)) return `${path}.${k} (only in ${k in a ? 'go' : 'ts'})`
      const d = firstDifference(a[k], b[k], `${path}.${k}`)
      if (d) return d
    }
    return null
  }
  return a === b ? null : path
}
const at = (v, path) => path.replace(/ \(.*$/, '').split(/\.|\[|\]/).filter(Boolean).reduce((x, k) => (x == null ? x : x[k]), v)

const gs = templates(goDir), ts = templates(tsDir)
if (gs.join() !== ts.join()) {
  console.error(`the apps made different stacks:\n go: ${gs.join(' ')}\n ts: ${ts.join(' ')}`)
  process.exit(1)
}
let resources = 0, statements = 0
for (const f of gs) {
  const g = JSON.parse(readFileSync(join(goDir, f))), t = JSON.parse(readFileSync(join(tsDir, f)))
  const a = { Resources: byBareId(g.Resources), Outputs: byBareId(g.Outputs), Parameters: g.Parameters ?? {}, Conditions: g.Conditions ?? {} }
  const b = { Resources: byBareId(t.Resources), Outputs: byBareId(t.Outputs), Parameters: t.Parameters ?? {}, Conditions: t.Conditions ?? {} }
  const d = firstDifference(a, b, f)
  if (d) {
    const p = d.slice(f.length)
    console.error(`the templates differ at ${d}\n go: ${JSON.stringify(at(a, p))?.slice(0, 600)}\n ts: ${JSON.stringify(at(b, p))?.slice(0, 600)}`)
    process.exit(1)
  }
  resources += Object.keys(a.Resources).length
  statements += JSON.stringify(a.Resources).split('"Effect":').length - 1
}
console.log(`${gs.length} templates, ${resources} resources and ${statements} policy statements the same`)
