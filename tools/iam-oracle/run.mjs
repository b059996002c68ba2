// Cross-checks the access evaluator (constructs/erasurecheck) against
// @cloud-copilot/iam-simulate, an independent IAM evaluator (AGPL-3.0: a
// development-time oracle only, never part of the build, CI or anything
// shipped). Reads the cases TestExportOracleCases wrote; exits 1 on any
// disagreement or any case the oracle refuses. Usage: node run.mjs CASES.json
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { runSimulation } from '@cloud-copilot/iam-simulate'

// AWS's NotPrincipal, which decides against the oracle here
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html):
// a Deny with NotPrincipal spares a role's session only when it names the
// session's assumed-role ARN, and any principal only when it also names its
// account, and never one with a permissions boundary ("will always deny any
// IAM principal that has a permissions boundary policy attached").
// iam-simulate spares a session whose role's ARN is named. A
// disagreement is the documented one when the oracle, given the same policies
// with every NotPrincipal entry taken out that AWS would not let spare this
// principal, agrees with us: nothing else is changed, and the oracle decides.
function underAWSNotPrincipal(sim) {
  const p = sim.request.principal
  const m = /^arn:aws:(?:sts|iam)::(\d{12}):(assumed-role\/([^/]+)\/.+|federated-user\/.+|user\/.+|root)$/.exec(p)
  if (!m || !sim.resourcePolicy) return null
  const [, acct, , roleName] = m
  const isAccount = (e) => e === acct || e === `arn:aws:iam::${acct}:root`
  const isRole = (e) => roleName !== undefined && e.startsWith(`arn:aws:iam::${acct}:role/`) && e.endsWith('/' + roleName)
  const bounded = (sim.permissionBoundaryPolicies ?? []).length > 0
  const policy = structuredClone(sim.resourcePolicy)
  let changed = false
  for (const st of [policy.Statement].flat()) {
    if (st.Effect !== 'Deny' || !st.NotPrincipal?.AWS) continue
    const list = [st.NotPrincipal.AWS].flat()
    // Spared under both readings: its own ARN and its account named (and a
    // session's role).
    if (!bounded && list.includes(p) && list.some(isAccount) && (roleName === undefined || list.some(isRole))) continue
    const keep = list.filter((e) => e !== p && !isAccount(e) && !isRole(e))
    if (keep.length === list.length) continue
    changed = true
    st.NotPrincipal = { ...st.NotPrincipal, AWS: keep.length ? keep : ['arn:aws:iam::000000000000:role/nobody'] }
  }
  return changed ? { ...sim, resourcePolicy: policy } : null
}

async function documentedNotPrincipal(sim) {
  const alt = underAWSNotPrincipal(sim)
  if (!alt) return false
  const r = await runSimulation(alt, {})
  return !(r.errors || r.result?.errors) && r.overallResult !== 'Allowed'
}

// JSON Lines: one case a line, read as a stream.
let agree = 0, disagree = 0, refused = 0, total = 0, documented = 0
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
  else if (c.cell.got === 'denied' && (await documentedNotPrincipal(c.simulation))) {
    documented++
    console.log('DOCUMENTED (NotPrincipal) variant', c.variant, c.cell.principal, c.cell.action, c.cell.resource)
  } else { disagree++; console.log('DIFF variant', c.variant, c.cell.principal, c.cell.action, c.cell.resource, 'ours', c.cell.got, 'oracle', r.overallResult) }
}
console.log(`${total} cells: ${agree} agree, ${documented} differ as AWS's NotPrincipal documentation decides, ${disagree} disagree, ${refused} not compared`)
process.exit(disagree + refused > 0 ? 1 : 0)
