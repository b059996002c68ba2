import { IConstruct } from 'constructs';
import { IPolicyValidationContext, IPolicyValidationPlugin, PolicyValidationPluginReport, PolicyViolation } from 'aws-cdk-lib';
import { runCheck } from './check';

/** What the app-wide check judges beyond the app itself. */
export interface ErasureCheckProps {
  /**
   * The erasure topic's ARNs, for a channel deployed by another app (the
   * channel stack's `ErasureTopicArn` output): a queue subscribed to one of
   * them is a store, and is checked. An `ErasureChannel` built in the same
   * app is found without it.
   * @default - only a topic built in this app
   */
  readonly topicArns?: string[];
  /**
   * The erasure topic's KMS key ARNs (the channel stack's `ErasureTopicKeyArn`
   * output): a bitmap bucket under one of them is refused.
   * @default - none
   */
  readonly topicKeyArns?: string[];
  /**
   * Also refuse every cell of the access matrix that is not what the channel
   * needs (erasurectl check --access).
   * @default false
   */
  readonly access?: boolean;
  /**
   * Values for template parameters, as a deploy passes them; a parameter
   * without one takes its Default.
   * @default - every parameter takes its Default
   */
  readonly parameters?: { [name: string]: string };
  /**
   * Pass when the app has no queue subscribed to the erasure topic. Without
   * it such a synth fails, since a guardrail that recognised no store has
   * checked nothing (a missing `topicArns` is the usual cause).
   * @default false
   */
  readonly allowNoStores?: boolean;
  /**
   * The documents of permissions boundaries defined outside the app, by the
   * managed policy's ARN: the path of each policy document (JSON), as
   * `erasure-check --boundary ARN=FILE` takes it. A role under a boundary
   * with no document is a finding of EC323, which may be acknowledged;
   * AWS's `AdministratorAccess` and `PowerUserAccess` need none.
   * @default - none
   */
  readonly boundaries?: { [arn: string]: string };
  /**
   * The AWS organisation every account of the app is in (`o-…`), as
   * `erasure-check --organization-id` takes it: each call the check judges
   * carries it as `aws:PrincipalOrgID`, `aws:ResourceOrgID` and
   * `aws:SourceOrgID`, so that a landing zone's data perimeter is decided.
   * Without it a condition on those keys leaves the call undecided (EC326,
   * which may be acknowledged with a reason).
   * @default - the organisation is not known
   */
  readonly organizationId?: string;
  /**
   * The organisation's service control policies, by what they are attached
   * to (a 12-digit account id, an organisational unit `ou-…` or a root
   * `r-…`): the paths of their policy documents (JSON), as
   * `erasure-check --scp TARGET=FILE` takes them. Every level on an
   * account's path must allow what its principals do.
   * @default - no SCP is judged
   */
  readonly serviceControlPolicies?: { [target: string]: string[] };
  /**
   * The organisation's resource control policies, as `serviceControlPolicies`
   * (`erasure-check --rcp TARGET=FILE`).
   * @default - no RCP is judged
   */
  readonly resourceControlPolicies?: { [target: string]: string[] };
  /**
   * Where each account sits in the organisation: its root, then each unit
   * down to its own (`r-abcd/ou-abcd-11111111`), as `erasure-check --ou
   * ACCOUNT=PATH` takes it; needed for every account of the app once a unit
   * or root has policies.
   * @default - none
   */
  readonly organizationalUnits?: { [account: string]: string };
}

/** A rule of the check, as `erasure-check --list-rules --format json` prints it. */
interface RuleEntry {
  readonly id: string;
  readonly name: string;
  readonly acknowledgeable: boolean;
}

/** The construct metadata type an acknowledgement is recorded under (erasurecheck.AcknowledgeMetadataType). */
const ACKNOWLEDGE_METADATA_TYPE = 'erasure-check:acknowledge';

/** The fewest characters an acknowledgement's reason may have (erasurecheck.MinReasonLength). */
const MIN_REASON_LENGTH = 10;

/** One finding as `erasure-check --format json` prints it. */
interface Finding {
  readonly template: string;
  readonly logicalId: string;
  readonly property?: string;
  /** The finding as CDK's report states it (erasurecheck.ViolationOf): one source for both languages. */
  readonly violation: {
    readonly ruleName: string;
    readonly severity: string;
    readonly title: string;
    readonly description: string;
    readonly fix: string;
    readonly helpUri: string;
  };
}

/**
 * The erasure channel's app-wide check as a CDK policy validation plugin:
 * every store subscribed to the erasure topic, whatever built it (this
 * package's `ErasureSubscriber`, plain L1 or L2 resources, escape hatches,
 * `addPropertyOverride`, Aspects), is judged on the synthesized templates
 * against the channel's caps, derivations and lockdown, and the synth fails
 * with one violation per problem.
 *
 * It is the same Go code as `erasurectl check` and the `erasure-check`
 * command this package installs, run as WebAssembly in the synth's process.
 *
 * @example
 * Validations.of(app).addPlugins(new ErasureCheck({ topicArns: [topicArn] }));
 */
export class ErasureCheck implements IPolicyValidationPlugin {
  /** The name CDK's validation report shows. */
  public readonly name = 'erasure-channel';
  /** The check's version: the package's. */
  public readonly version?: string;
  /**
   * Acknowledges, on `scope`, the findings of rule `ruleId` on scope's
   * resources (and its children's), for `reason`: recorded in the cloud
   * assembly, as cdk-nag records a suppression, and reported by the check as
   * acknowledged (never dropped), without failing the synth.
   *
   * Throws at once for a rule that does not exist, a rule that may not be
   * acknowledged (the channel's caps, derivations and lockdown) or a reason
   * under 10 characters. `erasure-check --list-rules` lists the rules.
   *
   * @example
   * ErasureCheck.acknowledge(handler.role!, 'EC323', 'the landing zone boundary allows sqs:SendMessage and kms:*');
   */
  public static acknowledge(scope: IConstruct, ruleId: string, reason: string): void {
    const rule = rules().find((r) => r.id === ruleId);
    const where = `ErasureCheck.acknowledge(${scope.node.path}, ${JSON.stringify(ruleId)})`;
    if (rule === undefined) throw new Error(`${where}: there is no such rule (erasure-check --list-rules lists them)`);
    if (!rule.acknowledgeable) throw new Error(`${where}: the rule may not be acknowledged: ${rule.id} ${rule.name} enforces the channel's constants or lockdown; fix what it names`);
    if (typeof reason !== 'string' || [...reason.trim()].length < MIN_REASON_LENGTH) throw new Error(`${where}: the reason must have at least ${MIN_REASON_LENGTH} characters`);
    scope.node.addMetadata(ACKNOWLEDGE_METADATA_TYPE, { rule: ruleId, reason: reason.trim() });
  }

  /** Every rule's id (docs/check-rules.md). */
  public readonly ruleIds?: string[] = rules().map((r) => r.id);
  private readonly args: string[];

  constructor(props: ErasureCheckProps = {}) {
    this.version = packageVersion();
    const list = (name: string, v: unknown): string[] => {
      if (v === undefined) return [];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new TypeError(`ErasureCheck.${name} must be a list of strings`);
      return v as string[];
    };
    const args = ['--format', 'json'];
    for (const a of list('topicArns', props.topicArns)) args.push('--topic-arn', a);
    for (const a of list('topicKeyArns', props.topicKeyArns)) args.push('--topic-key-arn', a);
    if (props.access !== undefined && typeof props.access !== 'boolean') throw new TypeError('ErasureCheck.access must be a boolean');
    if (props.access) args.push('--access');
    if (props.allowNoStores !== undefined && typeof props.allowNoStores !== 'boolean') throw new TypeError('ErasureCheck.allowNoStores must be a boolean');
    if (props.allowNoStores) args.push('--allow-no-stores');
    for (const [arn, file] of Object.entries(props.boundaries ?? {})) {
      if (typeof file !== 'string') throw new TypeError(`ErasureCheck.boundaries.${arn} must be the path of a policy document`);
      args.push('--boundary', `${arn}=${file}`);
    }
    if (props.organizationId !== undefined) {
      if (typeof props.organizationId !== 'string') throw new TypeError('ErasureCheck.organizationId must be a string');
      args.push('--organization-id', props.organizationId);
    }
    for (const [flag, name, byTarget] of [['--scp', 'serviceControlPolicies', props.serviceControlPolicies], ['--rcp', 'resourceControlPolicies', props.resourceControlPolicies]] as const) {
      for (const [target, files] of Object.entries(byTarget ?? {})) {
        for (const file of list(`${name}.${target}`, files)) args.push(flag, `${target}=${file}`);
      }
    }
    for (const [account, path] of Object.entries(props.organizationalUnits ?? {})) {
      if (typeof path !== 'string') throw new TypeError(`ErasureCheck.organizationalUnits.${account} must be a path ROOT/OU/...`);
      args.push('--ou', `${account}=${path}`);
    }
    for (const [k, v] of Object.entries(props.parameters ?? {})) {
      if (typeof v !== 'string') throw new TypeError(`ErasureCheck.parameters.${k} must be a string`);
      args.push('--parameter', `${k}=${v}`);
    }
    this.args = args;
  }

  /** Checks the synthesized templates; CDK calls it once the app is synthesized. */
  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const run = runCheck([...this.args, ...context.templatePaths]);
    const violations: PolicyViolation[] = [];
    let findings: Finding[] = [];
    if (run.stdout.trim() !== '') findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
    for (const f of findings) {
      const v = f.violation;
      violations.push({
        ruleName: v.ruleName, severity: v.severity, description: v.description, fix: v.fix,
        ruleMetadata: { title: v.title, helpUri: v.helpUri },
        violatingResources: [{ resourceLogicalId: f.logicalId, templatePath: f.template, locations: [`Resources.${f.logicalId}${f.property ? '.' + f.property : ''}`] }],
      });
    }
    if (run.exitCode !== 0 && !findings.some((f) => f.violation.severity === 'fatal')) {
      // Nothing to point at (no store found, a template it cannot read): name the app itself.
      const why = run.stderr.trim().replace(/^erasure-check: /gm, '') || `the check exited ${run.exitCode}`;
      violations.push({ ruleName: 'EC000', severity: 'fatal', description: why, violatingResources: [{ constructPath: '', locations: ['Resources'] }] });
    }
    // Warnings and acknowledged findings are reported; only the check's own verdict fails the synth.
    return { success: run.exitCode === 0, violations, pluginVersion: this.version };
  }
}

let ruleCache: RuleEntry[] | undefined;

/** The rule catalogue the package carries (kernel/rules.json, from the Go registry). */
function rules(): RuleEntry[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  ruleCache ??= require('../kernel/rules.json') as RuleEntry[];
  return ruleCache;
}

function packageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../package.json').version;
}
