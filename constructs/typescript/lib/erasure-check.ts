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
}

/** One finding as `erasure-check --format json` prints it. */
interface Finding {
  readonly type: string;
  readonly message: string;
  readonly template: string;
  readonly logicalId: string;
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
  /** The problem types the check reports violations under. */
  public readonly ruleIds?: string[] = ['AboveCap', 'BelowMinimum', 'NotDerived', 'UnresolvedToken', 'FIFO', 'Invalid', 'BreaksTiming', 'BreaksErasure', 'Missing', 'ConfusedDeputy'];
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
      violations.push({
        ruleName: f.type, severity: 'fatal', description: f.message,
        violatingResources: [{ resourceLogicalId: f.logicalId, templatePath: f.template, locations: [`Resources.${f.logicalId}`] }],
      });
    }
    if (run.exitCode !== 0 && violations.length === 0) {
      // Nothing to point at (no store found, a template it cannot read): name the app itself.
      const why = run.stderr.trim().replace(/^erasure-check: /gm, '') || `the check exited ${run.exitCode}`;
      violations.push({ ruleName: 'Invalid', severity: 'fatal', description: why, violatingResources: [{ constructPath: '', locations: ['Resources'] }] });
    }
    return { success: violations.length === 0, violations, pluginVersion: this.version };
  }
}

function packageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../package.json').version;
}
