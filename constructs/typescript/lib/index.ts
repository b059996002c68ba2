import { Aws, Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DurationFact, NumberFact, RoleFacts, SubscriberInput, SubscriberStep } from '../kernel/design';
import { applier, notApplicableAlarm, notApplicableMetric, subscriberStep } from './plan';

/**
 * Configures one store on the erasure channel. Only `name`, `topic`,
 * `responseQueue` and one of `handler` or `handlerProps` are required; every
 * timing setting defaults to the channel caps' safe value.
 */
export interface ErasureSubscriberProps {
  /**
   * The store's subscriber name: 1 to 64 of a-z, 0-9 and -, starting with a
   * letter. It is the subscriber of every answer.
   */
  readonly name: string;
  /** The erasure topic; import it by ARN for a store in another account. */
  readonly topic: sns.ITopic;
  /**
   * The channel's response queue. Import it with `Queue.fromQueueAttributes`
   * and its `keyArn`, so that the handler is granted the key as well.
   */
  readonly responseQueue: sqs.IQueue;
  /**
   * The store's function (its timeout is the handler timeout). Give exactly
   * one of `handler` and `handlerProps`.
   * @default - built from `handlerProps`
   */
  readonly handler?: lambda.Function;
  /**
   * The props to build the store's function with: the construct sets its
   * timeout, name, role, log group and environment.
   * @default - `handler` is given
   */
  readonly handlerProps?: lambda.FunctionProps;
  /**
   * The handler's timeout: whole seconds, from 1 s to at most 60 s (T,
   * `handlerTimeoutCapSeconds`). With `handler`, it must equal the
   * function's timeout. A token is refused: the cap is checked at synth.
   * @default - 60 s (T), or the given function's timeout
   */
  readonly handlerTimeout?: Duration;
  /**
   * The queue's visibility timeout. It is derived, never chosen: if given,
   * it must be exactly 6 (`visibilityTimeoutMultiplier`) × handlerTimeout,
   * at most 360 s (V, `visibilityTimeoutCapSeconds`). It stays so that an
   * app which states it is checked rather than silently overridden.
   * @default - 6 × handlerTimeout
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Receives before a message moves to the dead-letter queue: a whole
   * number from 1 to at most 5 (N, `maxReceiveCount`).
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * The delay before pass two: whole seconds, from 0 to at most 300 s (X,
   * `passTwoDelayCapSeconds`), inside SQS's 900 s delay limit.
   * @default 300 s (X)
   */
  readonly passTwoDelay?: Duration;
  /**
   * The client-side limit on one destructive call: whole seconds, from 1 s
   * to at most 60 s (b, `batchTimeoutCapSeconds`) and at most handlerTimeout.
   * @default - 60 s (b), or handlerTimeout if it is shorter
   */
  readonly batchTimeout?: Duration;
  /**
   * Records per invocation: a whole number from 1 to at most 10
   * (`lambdaSqsBatchSizeMax`, AWS's limit without a batching window).
   * @default 1
   */
  readonly batchSize?: number;
  /**
   * The event source's batching window: whole seconds, refused if the
   * store's worst case 2·((N−1)·V + T + N·window) + X would pass 3300 s (R,
   * `expiryPeriodSeconds`).
   * @default - none
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * The queues' retention. It is the channel's, never chosen: if given, it
   * must be exactly 86400 s (`queueRetentionSeconds`), and is checked rather
   * than silently overridden.
   * @default 86400 s
   */
  readonly retentionPeriod?: Duration;
  /**
   * The ARN patterns of the principals that deploy and operate the store:
   * they alone may change its queues' and key's policies or attributes,
   * delete them, or read its dead letters.
   * @default - the CloudFormation execution role of CDK's default bootstrap in the store's account
   */
  readonly administrators?: string[];
}

/** The timing settings a subscriber's queue and handler were built with. */
export interface SubscriberSettings {
  /** The handler's timeout, at most T. */
  readonly handlerTimeoutSeconds: number;
  /** The queue's visibility timeout: exactly the multiplier × the handler timeout. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before the dead-letter queue, at most N. */
  readonly maxReceiveCount: number;
  /** The delay before pass two, at most X. */
  readonly passTwoDelaySeconds: number;
  /** The client-side limit on one destructive call. */
  readonly batchTimeoutSeconds: number;
  /** Records per invocation. */
  readonly batchSize: number;
  /** The event source's batching window, 0 for none. */
  readonly maxBatchingWindowSeconds: number;
  /** The queues' retention: exactly the channel's. */
  readonly retentionSeconds: number;
}

/**
 * One store on the erasure channel: its queue and dead-letter queue under
 * its own KMS key, the raw-delivery SNS subscription, the handler wired to
 * the queue with partial batch failures, the lockdown of its queues and key,
 * and the alarms an operator needs.
 *
 * Every decision (derivations, caps, refusals, names, locks, grants, alarms,
 * outputs) is the Go construct's own code, run as WebAssembly: a TypeScript
 * app and a Go app with the same stores synthesize the same templates, and
 * props past the caps fail the synth with the same lines.
 */
export class ErasureSubscriber extends Construct {
  /** The subscriber name. */
  public readonly name: string;
  /** The timing settings the queue and handler were built with. */
  public readonly settings: SubscriberSettings;
  /** Encrypts `queue` and `deadLetterQueue`; it is never the topic's key. */
  public readonly key: kms.Key;
  /** Receives the erasure topic's messages as raw bodies. */
  public readonly queue: sqs.Queue;
  /** Receives a message after maxReceiveCount receives. */
  public readonly deadLetterQueue: sqs.Queue;
  /** The store's handler (undefined when it could not be built). */
  public readonly handlerFunction?: lambda.Function;
  /** The handler's log group, when the construct built the handler. */
  public readonly logGroup?: logs.LogGroup;
  /**
   * The unique id (RoleId) of the handler's role, which proves the store's
   * answers and its pass-two markers; undefined when there is no handler or
   * its role is imported.
   */
  public readonly handlerRoleId?: string;
  /** Fires when the dead-letter queue holds any message. */
  public readonly deadLetterAlarm: cloudwatch.Alarm;
  /** Fires when a message has waited longer than one request's worst case on this store. */
  public readonly oldestMessageAlarm: cloudwatch.Alarm;

  /**
   * Adds a store to the channel. Props that break a cap do not throw here:
   * every problem is collected, and the synth fails with all of them, one
   * line each, under this construct's path.
   */
  constructor(scope: Construct, id: string, props: ErasureSubscriberProps) {
    super(scope, id);
    const { input, names } = facts(this, scope, id, props);
    let step: SubscriberStep;
    let next = input;
    for (;;) {
      step = subscriberStep(next);
      const answer = applier.apply(step.design, names);
      if (step.final) break;
      next = next.queuesAnswer === undefined ? { ...next, queuesAnswer: answer } : { ...next, functionAnswer: answer };
    }
    this.name = props.name;
    const st = step.settings;
    // The design's SubscriberSettings under the same keys (timing.SubscriberSettings'
    // json tags); the queue's delay, which ErasureSubscriber never sets, stays out.
    this.settings = {
      handlerTimeoutSeconds: st.handlerTimeoutSeconds, visibilityTimeoutSeconds: st.visibilityTimeoutSeconds,
      maxReceiveCount: st.maxReceiveCount, passTwoDelaySeconds: st.passTwoDelaySeconds, batchTimeoutSeconds: st.batchTimeoutSeconds,
      batchSize: st.batchSize, maxBatchingWindowSeconds: st.maxBatchingWindowSeconds, retentionSeconds: st.retentionSeconds,
    };
    this.key = made(names, 'key', kms.Key);
    this.queue = made(names, 'queue', sqs.Queue);
    this.deadLetterQueue = made(names, 'deadLetterQueue', sqs.Queue);
    this.logGroup = madeIf(names, 'logGroup', logs.LogGroup);
    this.handlerFunction = madeIf(names, 'function', lambda.Function) ?? (props.handlerProps === undefined ? props.handler : undefined);
    this.handlerRoleId = step.handlerRoleId || undefined;
    this.deadLetterAlarm = made(names, 'deadLetterAlarm', cloudwatch.Alarm);
    this.oldestMessageAlarm = made(names, 'oldestMessageAlarm', cloudwatch.Alarm);
    const problems = [...(step.problems ?? [])];
    if (problems.length > 0) {
      this.node.addValidation({ validate: () => problems });
    }
  }

  /**
   * The ErasureNotApplicable metric the handler publishes for this
   * subscriber: a 5-minute sum of its NOT_APPLICABLE answers. Of props, the
   * period, statistic, label, color, unit, account and region apply.
   */
  public metricNotApplicable(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return applier.newMetric(notApplicableMetric(this.name), props);
  }

  /**
   * Alarms when the store answers NOT_APPLICABLE at least `threshold` times
   * in one 5-minute period: the hook for a team that expects its store to
   * hold data of every kind it is asked about.
   */
  public addNotApplicableAlarm(id: string, threshold: number): cloudwatch.Alarm {
    const names = new Map<string, unknown>([['this', this]]);
    const design = notApplicableAlarm(this.name, id, threshold);
    applier.apply(design, names);
    return made(names, design.alarms?.[0]?.as ?? '', cloudwatch.Alarm);
  }
}

/** What the applier made as name: a cls, or a fault of the package. */
function made<T>(names: Map<string, unknown>, name: string, cls: abstract new (...args: any[]) => T): T {
  const o = madeIf(names, name, cls);
  if (o === undefined) throw new Error(`erasure-channel-constructs: the applier made no ${name}; this is a fault of the package`);
  return o;
}

/** What the applier made as name, if it made it. */
function madeIf<T>(names: Map<string, unknown>, name: string, cls: abstract new (...args: any[]) => T): T | undefined {
  const o = names.get(name);
  if (o === undefined) return undefined;
  if (!(o instanceof cls)) throw new Error(`erasure-channel-constructs: the applier's ${name} is not what it should be; this is a fault of the package`);
  return o;
}

/** What the plan reads of the props and the app, and the objects its operations name. */
function facts(self: Construct, scope: Construct, id: string, props: ErasureSubscriberProps) {
  // What a JavaScript caller can pass that TypeScript's types would refuse:
  // a clear error naming the property, never its value.
  const where = `${self.node.path}: ErasureSubscriber`;
  if (props === undefined || props === null || typeof props !== 'object') throw new TypeError(`${where}: props are required`);
  if (props.name !== undefined && typeof props.name !== 'string') throw new TypeError(`${where}.name must be a string`);
  for (const k of ['handlerTimeout', 'visibilityTimeout', 'passTwoDelay', 'batchTimeout', 'maxBatchingWindow', 'retentionPeriod'] as const) {
    if (props[k] !== undefined && !(props[k] instanceof Duration)) throw new TypeError(`${where}.${k} must be a Duration`);
  }
  for (const k of ['maxReceiveCount', 'batchSize'] as const) {
    if (props[k] !== undefined && typeof props[k] !== 'number') throw new TypeError(`${where}.${k} must be a number`);
  }
  if (props.administrators !== undefined && (!Array.isArray(props.administrators) || props.administrators.some((a) => typeof a !== 'string'))) {
    throw new TypeError(`${where}.administrators must be a list of strings`);
  }
  const names = new Map<string, unknown>([['scope', scope], ['this', self]]);
  // The topic's and the response queue's facts are read by the applier,
  // in the first step, as the Go construct has them read.
  const t = props.topic;
  if (t !== undefined) names.set('topic', t);
  const q = props.responseQueue;
  if (q !== undefined) names.set('responseQueue', q);
  const h = props.handler;
  if (h !== undefined) names.set('handler', h);
  const hp = props.handlerProps;
  if (hp !== undefined) names.set('handlerProps', hp);
  const input: SubscriberInput = {
    id, self: true, name: props.name ?? '', partition: Aws.PARTITION,
    administrators: props.administrators,
    hasTopic: t !== undefined,
    hasResponseQueue: q !== undefined,
    handler: h === undefined ? undefined : { timeout: duration(h.timeout), role: props.handlerProps === undefined ? role(h.role) : undefined },
    handlerProps: hp === undefined ? undefined : {
      timeout: hp.timeout !== undefined, functionName: hp.functionName !== undefined, memorySize: hp.memorySize !== undefined,
      logGroup: hp.logGroup !== undefined, role: h === undefined ? role(hp.role) : undefined,
    },
    handlerTimeout: duration(props.handlerTimeout),
    visibilityTimeout: duration(props.visibilityTimeout),
    passTwoDelay: duration(props.passTwoDelay),
    batchTimeout: duration(props.batchTimeout),
    maxBatchingWindow: duration(props.maxBatchingWindow),
    retentionPeriod: duration(props.retentionPeriod),
    maxReceiveCount: number(props.maxReceiveCount),
    batchSize: number(props.batchSize),
  };
  return { input, names };
}

function duration(d: Duration | undefined): DurationFact | undefined {
  if (d === undefined) return undefined;
  if (d.isUnresolved()) return { unresolved: true, millis: 0 };
  return { unresolved: false, millis: d.toMilliseconds() };
}

function number(n: number | undefined): NumberFact | undefined {
  if (n === undefined) return undefined;
  if (Token.isUnresolved(n)) return { unresolved: true, value: 0 };
  return { unresolved: false, value: n };
}

function role(r: iam.IRole | undefined): RoleFacts | undefined {
  if (r === undefined) return undefined;
  const cfn = r.node.defaultChild;
  return { arn: r.roleArn, id: cfn instanceof iam.CfnRole ? cfn.attrRoleId : null };
}

export { ErasureCheck, ErasureCheckProps } from './erasure-check';
