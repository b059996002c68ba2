// Cross-checks the access evaluator (constructs/erasurecheck) against
// @cloud-copilot/iam-simulate, an independent IAM evaluator (AGPL-3.0: a
// development-time oracle only, never part of the build, CI or anything
// shipped). Reads the cases TestExportOracleCases wrote; exits 1 on any
// disagreement or any case the oracle refuses. Usage: node run.mjs CASES.json
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { runSimulation } from '@cloud-copilot/iam-simulate'

// JSON Lines: one case a line, read as a stream.
let agree = 0, disagree = 0, refused = 0, total = 0
for await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity })) {
  if (!line) continue
  const c = JSON.parse(line)
  total++
  if (c.cell.got === 'undecided') { refused++; console.log('UNDECIDED (ours)', c.variant, c.cell.principal, c.cell.action, c.cell.resource); continue }
  const r = await runSimulation(c.simulation, {})
  const errors = r.errors || r.result?.errors
  if (errors) { refused++; console.log('ORACLE ERROR', c.variant, c.cell.principal, c.cell.action, c.cell.resource, JSON.stringify(errors).slice(0, 300)); continue }
  const oracle = r.overallResult === 'Allowed' ? 'allowed' : 'denied'
  if (oracle === c.cell.got) agree++
  else { disagree++; console.log('DIFF variant', c.variant, c.cell.principal, c.cell.action, c.cell.resource, 'ours', c.cell.got, 'oracle', r.overallResult) }
}
console.log(`${total} cells: ${agree} agree, ${disagree} disagree, ${refused} not compared`)
process.exit(disagree + refused > 0 ? 1 : 0)
