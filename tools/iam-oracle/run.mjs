// Cross-checks the access evaluator (constructs/erasurecheck) against
// @cloud-copilot/iam-simulate, an independent IAM evaluator (AGPL-3.0: a
// development-time oracle only, never part of the build, CI or anything
// shipped). Reads the cases TestExportOracleCases wrote; exits 1 on any
// disagreement or any case the oracle refuses. Usage: node run.mjs CASES.json
import { readFileSync } from 'node:fs'
import { runSimulation } from '@cloud-copilot/iam-simulate'

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'))
let agree = 0, disagree = 0, refused = 0
for (const c of cases) {
  if (c.cell.got === 'undecided') { refused++; console.log('UNDECIDED (ours)', c.variant, c.cell.principal, c.cell.action, c.cell.resource); continue }
  const r = await runSimulation(c.simulation, {})
  const errors = r.errors || r.result?.errors
  if (errors) { refused++; console.log('ORACLE ERROR', c.variant, c.cell.principal, c.cell.action, c.cell.resource, JSON.stringify(errors).slice(0, 300)); continue }
  const oracle = r.overallResult === 'Allowed' ? 'allowed' : 'denied'
  if (oracle === c.cell.got) agree++
  else { disagree++; console.log('DIFF variant', c.variant, c.cell.principal, c.cell.action, c.cell.resource, 'ours', c.cell.got, 'oracle', r.overallResult) }
}
console.log(`${cases.length} cells: ${agree} agree, ${disagree} disagree, ${refused} not compared`)
process.exit(disagree + refused > 0 ? 1 : 0)
