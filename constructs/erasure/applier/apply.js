// @ts-check
'use strict';
// The one applier of the erasure constructs' designs (constructs/erasure/design
// Design): the Go ErasureSubscriber hands it a design through the jsii
// kernel (Applier.apply, index.ts), the TypeScript construct calls it in
// process.
// It builds each list of the design in Design's order with aws-cdk-lib's own
// classes and answers what the design's Reads ask. Nothing here decides
// anything: every value comes from the design.
//
// It is JavaScript so that the Go module embeds its source and `go get`
// needs no Node build; tsc --checkJs --strict checks every call and prop
// against aws-cdk-lib's types and the design's (design.ts, generated from
// the Go types): TestApplierTypeChecks.

/** @typedef {import('./design').Design} Design */
/** @typedef {import('./design').Answer} Answer */
/** @typedef {import('./design').Name} Name */
/** @typedef {import('./design').Statement} Statement */
/** @typedef {import('./design').Suppression} Suppression */
/** @typedef {import('./design').Alarm} Alarm */
/** @typedef {import('./design').Metric} Metric */
/** @typedef {import('./design').RoleFacts} RoleFacts */
/** @typedef {import('./design').QueueAttributes} QueueAttributes */
/** @typedef {Map<Name, unknown>} ByName the objects the applier holds (the caller's and those it made), by name */

/** @type {import('./design').DesignVersion} */
const VERSION = 1;

// Each aws-cdk-lib module is required once, on first use: a synth that
// builds no alarm never loads aws-cloudwatch.
/** @template T @param {() => T} load @returns {() => T} */
function once(load) {
  /** @type {T | undefined} */
  let m;
  return () => (m === undefined ? (m = load()) : m);
}
const cdk = once(() => require('aws-cdk-lib'));
const iam = once(() => require('aws-cdk-lib/aws-iam'));
const kms = once(() => require('aws-cdk-lib/aws-kms'));
const sqs = once(() => require('aws-cdk-lib/aws-sqs'));
const sns = once(() => require('aws-cdk-lib/aws-sns'));
const logs = once(() => require('aws-cdk-lib/aws-logs'));
const lambda = once(() => require('aws-cdk-lib/aws-lambda'));
const cloudwatch = once(() => require('aws-cdk-lib/aws-cloudwatch'));
const subscriptions = once(() => require('aws-cdk-lib/aws-sns-subscriptions'));
const eventSources = once(() => require('aws-cdk-lib/aws-lambda-event-sources'));
const constructs = once(() => require('constructs'));

/** The flag under which CDK's own SqsSubscription scopes SNS's use of the queue's key to the topic. */
const RESTRICT_SQS_DECRYPTION = '@aws-cdk/aws-sns-subscriptions:restrictSqsDescryption';

/** A fault of the design or of what the caller holds: never a user's value. */
class ApplierError extends Error {}

/**
 * What byName holds as name, if it is a cls.
 * @template T
 * @param {ByName} byName @param {Name} name @param {abstract new (...args: any[]) => T} cls @param {string} what
 * @returns {T}
 */
function need(byName, name, cls, what) {
  const o = byName.get(name);
  if (!(o instanceof cls)) throw new ApplierError(`applier: "${name}" is not ${what}`);
  return o;
}

/** @param {ByName} byName @param {Name} name @returns {import('constructs').Construct} */
function scopeOf(byName, name) { return need(byName, name, constructs().Construct, 'a construct'); }

/** @param {ByName} byName @param {Name} name @returns {import('aws-cdk-lib/aws-sqs').QueueBase} */
function queueOf(byName, name) { return need(byName, name, sqs().QueueBase, 'a queue'); }

/** @param {ByName} byName @param {Name} name @returns {import('aws-cdk-lib/aws-lambda').FunctionBase} */
function functionOf(byName, name) { return need(byName, name, lambda().FunctionBase, 'a function'); }

/** @param {ByName} byName @param {Name} name @returns {import('aws-cdk-lib/aws-iam').IGrantable} */
function grantableOf(byName, name) {
  const o = byName.get(name);
  if (o === null || typeof o !== 'object' || !('grantPrincipal' in o)) throw new ApplierError(`applier: "${name}" cannot be granted anything`);
  return /** @type {import('aws-cdk-lib/aws-iam').IGrantable} */ (o);
}

/**
 * A key as the response queue holds it (imported keys are no exported class).
 * @param {ByName} byName @param {Name} name @returns {import('aws-cdk-lib/aws-kms').IKey}
 */
function keyOf(byName, name) {
  const o = byName.get(name);
  if (o instanceof kms().Key) return o;
  if (o !== null && typeof o === 'object' && 'keyArn' in o && 'grant' in o && 'addToResourcePolicy' in o) {
    return /** @type {import('aws-cdk-lib/aws-kms').IKey} */ (o);
  }
  throw new ApplierError(`applier: "${name}" is not a key`);
}

/**
 * What can grant actions on itself: a queue or a key.
 * @param {ByName} byName @param {Name} name
 * @returns {{ grant(grantee: import('aws-cdk-lib/aws-iam').IGrantable, ...actions: string[]): import('aws-cdk-lib/aws-iam').Grant }}
 */
function grantingOf(byName, name) {
  const o = byName.get(name);
  return o instanceof sqs().QueueBase ? o : keyOf(byName, name);
}

/** @param {ByName} byName @param {Name} as @param {unknown} made */
function keep(byName, as, made) {
  if (as !== '') byName.set(as, made);
}

/**
 * Builds design and answers its reads. byName holds the caller's objects by
 * name, and gains what the design makes.
 * @param {Design} design @param {ByName} byName @returns {Answer}
 */
function apply(design, byName) {
  if (design.version !== VERSION) throw new ApplierError(`applier: a design of version ${design.version}; this applier reads version ${VERSION}`);
  const { Duration } = cdk();
  if (design.scope !== undefined) {
    const s = design.scope;
    keep(byName, s.as, new (constructs().Construct)(scopeOf(byName, s.under), s.id));
  }
  for (const k of design.keys ?? []) {
    keep(byName, k.as, new (kms().Key)(scopeOf(byName, k.scope), k.id, { description: k.description, enableKeyRotation: true }));
  }
  for (const p of design.queuePairs ?? []) {
    const scope = scopeOf(byName, p.scope);
    const key = keyOf(byName, p.key);
    /** @type {import('aws-cdk-lib/aws-sqs').QueueProps} */
    const common = { encryption: sqs().QueueEncryption.KMS, encryptionMasterKey: key, enforceSSL: true, retentionPeriod: Duration.seconds(p.retentionSeconds) };
    const dlq = new (sqs().Queue)(scope, `${p.idPrefix}DeadLetterQueue`, common);
    /** @type {import('aws-cdk-lib/aws-sqs').QueueProps} */
    const props = {
      ...common,
      deadLetterQueue: { queue: dlq, maxReceiveCount: p.maxReceiveCount },
      queueName: p.queueName === '' ? undefined : p.queueName,
      visibilityTimeout: p.visibilitySeconds > 0 ? Duration.seconds(p.visibilitySeconds) : undefined,
    };
    const queue = new (sqs().Queue)(scope, `${p.idPrefix}Queue`, props);
    keep(byName, p.deadLetterAs, dlq);
    keep(byName, p.queueAs, queue);
  }
  for (const g of design.logGroups ?? []) {
    const retention = Object.values(logs().RetentionDays).find((d) => d === g.retentionDays);
    if (typeof retention !== 'number') throw new ApplierError(`applier: ${g.retentionDays} days is not a CloudWatch Logs retention`);
    keep(byName, g.as, new (logs().LogGroup)(scopeOf(byName, g.scope), g.id, { retention }));
  }
  for (const r of design.roles ?? []) {
    keep(byName, r.as, new (iam().Role)(scopeOf(byName, r.scope), r.id, {
      assumedBy: new (iam().ServicePrincipal)(r.service),
      description: r.description,
      roleName: r.roleName === '' ? undefined : r.roleName,
      path: r.path === '' ? undefined : r.path,
    }));
  }
  for (const s of design.subscriptions ?? []) {
    const topic = need(byName, s.topic, sns().TopicBase, 'a topic');
    const queue = queueOf(byName, s.queue);
    if (s.scoped) {
      topic.addSubscription(scopedSubscription(queue, keyOf(byName, s.key), s.principal, s.topicArn, s.region));
    } else {
      topic.addSubscription(new (subscriptions().SqsSubscription)(queue, { rawMessageDelivery: true }));
    }
  }
  for (const w of design.logWrites ?? []) {
    need(byName, w.logGroup, logs().LogGroup, 'a log group').grantWrite(grantableOf(byName, w.grantee));
  }
  for (const f of design.functions ?? []) {
    const given = byName.get(f.props);
    if (given === null || typeof given !== 'object') throw new ApplierError(`applier: "${f.props}" are not function props`);
    const base = /** @type {import('aws-cdk-lib/aws-lambda').FunctionProps} */ (given);
    /** @type {{ [name: string]: string }} */
    const environment = { ...(base.environment ?? {}) };
    for (const e of f.environment ?? []) environment[e.name] = e.value;
    /** @type {import('aws-cdk-lib/aws-lambda').FunctionProps} */
    const props = {
      ...base,
      environment,
      timeout: Duration.seconds(f.timeoutSeconds),
      functionName: f.functionName === '' ? base.functionName : f.functionName,
      memorySize: f.memorySize === 0 ? base.memorySize : f.memorySize,
      role: f.role === '' ? base.role : need(byName, f.role, iam().Role, 'a role'),
      logGroup: f.logGroup === '' ? base.logGroup : need(byName, f.logGroup, logs().LogGroup, 'a log group'),
    };
    keep(byName, f.as, new (lambda().Function)(scopeOf(byName, f.scope), f.id, props));
  }
  for (const e of design.eventSources ?? []) {
    functionOf(byName, e.function).addEventSource(new (eventSources().SqsEventSource)(queueOf(byName, e.queue), {
      batchSize: e.batchSize,
      maxBatchingWindow: e.windowSeconds > 0 ? Duration.seconds(e.windowSeconds) : undefined,
      reportBatchItemFailures: true,
    }));
  }
  for (const g of design.grants ?? []) {
    const on = g.queueKey ? queueOf(byName, g.resource).encryptionMasterKey : grantingOf(byName, g.resource);
    if (on === undefined) throw new ApplierError(`applier: the queue "${g.resource}" has no key to grant`);
    on.grant(grantableOf(byName, g.grantee), ...(g.actions ?? []));
  }
  for (const l of design.locks ?? []) lock(byName, l);
  for (const v of design.variables ?? []) {
    const fn = functionOf(byName, v.function);
    if (!(fn instanceof lambda().Function)) throw new ApplierError(`applier: "${v.function}" is not a function of this app`);
    fn.addEnvironment(v.name, v.value);
  }
  for (const o of design.outputs ?? []) {
    const { CfnOutput, Fn } = cdk();
    new CfnOutput(scopeOf(byName, o.scope), o.id, { value: Fn.join('', [...(o.join ?? [])]), description: o.description }).overrideLogicalId(o.logicalId);
  }
  for (const r of design.lookupRoles ?? []) {
    keep(byName, r.as, new (iam().CfnRole)(scopeOf(byName, r.scope), r.id, {
      assumeRolePolicyDocument: r.assumeRolePolicy,
      description: r.description,
      path: r.path,
      policies: (r.policies ?? []).map((p) => ({ policyDocument: p.document, policyName: p.policyName })),
      roleName: r.roleName,
    }));
  }
  for (const m of design.metrics ?? []) keep(byName, m.as, newMetric(m.metric, m.options === '' ? undefined : optionsOf(byName, m.options)));
  for (const a of design.alarms ?? []) keep(byName, a.as, alarm(byName, a));
  for (const s of design.suppressions ?? []) suppress(byName, s);
  return read(byName, design);
}

/**
 * A subscription that binds as SqsSubscription does (raw delivery, the
 * queue as subscriber scope, the topic's unique id), but lets SNS
 * (principal, as the plan decided it) send to the queue and use its key only
 * for topicArn (aws:SourceArn).
 * @param {import('aws-cdk-lib/aws-sqs').IQueue} queue @param {import('aws-cdk-lib/aws-kms').IKey} key
 * @param {string} principal @param {string} topicArn @param {string} region
 * @returns {import('aws-cdk-lib/aws-sns').ITopicSubscription}
 */
function scopedSubscription(queue, key, principal, topicArn, region) {
  const { PolicyStatement, ServicePrincipal } = iam();
  return {
    bind(topic) {
      const service = new ServicePrincipal(principal);
      const fromTopic = { ArnEquals: { 'aws:SourceArn': topicArn } };
      const added = queue.addToResourcePolicy(new PolicyStatement({
        resources: [queue.queueArn], actions: ['sqs:SendMessage'], principals: [service], conditions: fromTopic,
      }));
      key.addToResourcePolicy(new PolicyStatement({
        resources: ['*'], actions: ['kms:Decrypt', 'kms:GenerateDataKey'], principals: [service], conditions: fromTopic,
      }));
      return {
        region: region === '' ? undefined : region,
        subscriberScope: queue,
        subscriberId: cdk().Names.nodeUniqueId(topic.node),
        endpoint: queue.queueArn,
        protocol: sns().SubscriptionProtocol.SQS,
        rawMessageDelivery: true,
        subscriptionDependency: added.policyDependable,
      };
    },
  };
}

/** @type {import('aws-cdk-lib/aws-iam').AnyPrincipal | undefined} */
let anyone;

/**
 * A lock's statement: every principal ("*"), the resource, the actions (or
 * every action but NotAction), the conditions.
 * @param {Statement} s @returns {import('aws-cdk-lib/aws-iam').PolicyStatement}
 */
function statement(s) {
  if (s.Principal !== '*') throw new ApplierError('applier: a lock\'s statement is for every principal ("*")');
  const list = (/** @type {import('./design').Values | undefined} */ v) => (v === undefined ? undefined : typeof v === 'string' ? [v] : v);
  return new (iam().PolicyStatement)({
    sid: s.Sid,
    effect: s.Effect === 'Deny' ? iam().Effect.DENY : iam().Effect.ALLOW,
    principals: [anyone ?? (anyone = new (iam().AnyPrincipal)())],
    resources: list(s.Resource),
    actions: list(s.Action),
    notActions: list(s.NotAction),
    conditions: s.Condition,
  });
}

/**
 * Metadata on the resource's CfnResource, then each statement through its
 * addToResourcePolicy (a queue, topic or bucket makes its policy on the
 * first; a key adds to its key policy).
 * @param {ByName} byName @param {import('./design').Lock} l
 */
function lock(byName, l) {
  const r = byName.get(l.resource);
  if (!constructs().Construct.isConstruct(r) || !('addToResourcePolicy' in r) || typeof r.addToResourcePolicy !== 'function') {
    throw new ApplierError(`applier: "${l.resource}" has no resource policy`);
  }
  const resource = /** @type {import('constructs').IConstruct & { addToResourcePolicy(s: import('aws-cdk-lib/aws-iam').PolicyStatement, allowNoOp?: boolean): import('aws-cdk-lib/aws-iam').AddToResourcePolicyResult }} */ (r);
  const metadata = l.metadata ?? [];
  if (metadata.length > 0) {
    const res = resource.node.defaultChild;
    if (!(res instanceof cdk().CfnResource)) throw new ApplierError(`applier: ${resource.node.path} has no CloudFormation resource to carry metadata`);
    for (const m of metadata) res.addMetadata(m.key, metadataValue(m));
  }
  for (const s of l.statements ?? []) {
    const added = l.keyPolicy ? resource.addToResourcePolicy(statement(s), false) : resource.addToResourcePolicy(statement(s));
    if (!added.statementAdded) throw new ApplierError(`applier: ${resource.node.path} took no statement into its policy`);
  }
}

/** @param {import('./design').MetadataEntry} m @returns {string | boolean | number | readonly string[]} */
function metadataValue(m) {
  const values = [m.text, m.flag, m.count, m.list].filter((v) => v !== undefined);
  if (values.length !== 1) throw new ApplierError(`applier: the metadata entry ${m.key} holds ${values.length} values, not one`);
  const [v] = values;
  if (v === undefined) throw new ApplierError(`applier: the metadata entry ${m.key} holds no value`);
  return v;
}

/**
 * An alarm on its metric, one evaluation period, missing data not breaching.
 * @param {ByName} byName @param {Alarm} a @returns {import('aws-cdk-lib/aws-cloudwatch').Alarm}
 */
function alarm(byName, a) {
  const cw = cloudwatch();
  const { Duration } = cdk();
  /** @type {import('aws-cdk-lib/aws-cloudwatch').IMetric} */
  let metric;
  if (a.queueMetric !== undefined) {
    const m = a.queueMetric;
    const queue = queueOf(byName, m.queue);
    const props = { period: Duration.minutes(m.periodMinutes), statistic: m.statistic };
    switch (m.metric) {
      case 'ApproximateNumberOfMessagesVisible': metric = queue.metricApproximateNumberOfMessagesVisible(props); break;
      case 'ApproximateAgeOfOldestMessage': metric = queue.metricApproximateAgeOfOldestMessage(props); break;
      default: throw new ApplierError(`applier: no queue metric ${/** @type {never} */ (m.metric)}`);
    }
  } else if (a.metric !== '') {
    const m = byName.get(a.metric);
    if (!(m instanceof cw.Metric || m instanceof cw.MathExpression)) throw new ApplierError(`applier: "${a.metric}" is not a metric`);
    metric = m;
  } else {
    throw new ApplierError(`applier: the alarm ${a.id} has no metric`);
  }
  return new cw.Alarm(scopeOf(byName, a.scope), a.id, {
    alarmDescription: a.description,
    metric,
    threshold: a.threshold,
    evaluationPeriods: 1,
    comparisonOperator: comparison(a.comparison),
    treatMissingData: cw.TreatMissingData.NOT_BREACHING,
  });
}

/** @param {import('./design').Comparison} c @returns {import('aws-cdk-lib/aws-cloudwatch').ComparisonOperator} */
function comparison(c) {
  const { ComparisonOperator } = cloudwatch();
  switch (c) {
    case 'GREATER_THAN_OR_EQUAL_TO_THRESHOLD': return ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    case 'GREATER_THAN_THRESHOLD': return ComparisonOperator.GREATER_THAN_THRESHOLD;
    default: throw new ApplierError(`applier: no comparison ${/** @type {never} */ (c)}`);
  }
}

/**
 * A metric of the design, with the caller's options (period, statistic,
 * label, color, unit, account, region) over it.
 * @param {Metric} m @param {import('aws-cdk-lib/aws-cloudwatch').MetricOptions | undefined} options
 * @returns {import('aws-cdk-lib/aws-cloudwatch').Metric}
 */
function newMetric(m, options) {
  /** @type {import('aws-cdk-lib/aws-cloudwatch').MetricProps} */
  const props = {
    namespace: m.namespace,
    metricName: m.metricName,
    dimensionsMap: { ...(m.dimensions ?? {}) },
    statistic: options?.statistic ?? m.statistic,
    period: options?.period ?? cdk().Duration.minutes(m.periodMinutes),
    label: options?.label,
    color: options?.color,
    unit: options?.unit,
    account: options?.account,
    region: options?.region,
  };
  return new (cloudwatch().Metric)(props);
}

/**
 * The metric options the caller holds as name (a jsii struct: a plain object).
 * @param {ByName} byName @param {Name} name @returns {import('aws-cdk-lib/aws-cloudwatch').MetricOptions}
 */
function optionsOf(byName, name) {
  const o = byName.get(name);
  if (o === null || typeof o !== 'object') throw new ApplierError(`applier: "${name}" are not metric options`);
  return /** @type {import('aws-cdk-lib/aws-cloudwatch').MetricOptions} */ (o);
}

/**
 * cdk-nag's suppressions in cdk-nag 2's CloudFormation format, as its
 * NagSuppressions.addResourceSuppressions(scope, rules, true) writes them
 * (TestSuppressionsAreCdkNags holds the two to the same bytes), and as
 * cdk-nag 3 reads them (CDK's Validations acknowledgements), without
 * loading cdk-nag, which a synth without its checks never needs; none when
 * the app's context turns cdk-nag off.
 * @param {ByName} byName @param {Suppression} s
 */
function suppress(byName, s) {
  const scopes = (s.scopes ?? []).map((n) => scopeOf(byName, n));
  if (s.unlessContextOff !== '' && scopes.length > 0) {
    // Off as strconv.ParseBool reads false, the stacks' reading of it.
    const nag = scopes[0].node.tryGetContext(s.unlessContextOff);
    if (nag !== undefined && nag !== null && ['0', 'f', 'F', 'false', 'False', 'FALSE'].includes(String(nag))) return;
  }
  /** @type {import('cdk-nag').NagPackSuppression[]} */
  const rules = (s.rules ?? []).map((r) => ({ id: r.id, reason: r.reason, appliesTo: r.appliesTo === undefined ? undefined : [...r.appliesTo] }));
  const entries = rules.map((r) => {
    if (r.reason.length < 10) throw new ApplierError(`applier: the suppression of ${r.id} needs a reason of 10 characters or more`);
    /** @type {{ reason: string, id: string, applies_to?: import('cdk-nag').NagPackSuppression['appliesTo'], is_reason_encoded?: boolean }} */
    const entry = { reason: r.reason, id: r.id };
    if (r.appliesTo !== undefined) entry.applies_to = r.appliesTo;
    if ([...r.reason].some((c) => (c.codePointAt(0) ?? 0) > 255)) {
      entry.is_reason_encoded = true;
      entry.reason = Buffer.from(r.reason).toString('base64');
    }
    return JSON.stringify(entry);
  });
  const { CfnResource, Validations } = cdk();
  // cdk-nag 3 reads acknowledgements through CDK's validation API, not the
  // template metadata: the same reasons, once on each scope (they cover its
  // subtree), a finding of appliesTo as cdk-nag 3 names it, rule[finding].
  /** @type {import('aws-cdk-lib').Acknowledgment[]} */
  const acks = rules.flatMap((r) => (r.appliesTo === undefined ? [r.id] : r.appliesTo.map((f) => `${r.id}[${String(f)}]`)).map((id) => ({ id, reason: r.reason })));
  for (const c of scopes) {
    if (acks.length > 0) Validations.of(c).acknowledge(...acks);
    for (const child of c.node.findAll()) {
      const res = child.node.defaultChild ?? child;
      if (!(res instanceof CfnResource)) continue;
      const existing = /** @type {{ rules_to_suppress?: unknown[] } | undefined} */ (res.getMetadata('cdk_nag'))?.rules_to_suppress ?? [];
      const merged = Array.from(new Set([...existing.map((r) => JSON.stringify(r)), ...entries]));
      res.addMetadata('cdk_nag', { rules_to_suppress: merged.map((r) => JSON.parse(r)) });
    }
  }
}

/**
 * What design.reads asks, once the design is built.
 * @param {ByName} byName @param {Design} design @returns {Answer}
 */
function read(byName, design) {
  const r = design.reads;
  /** @type {{ [name: string]: QueueAttributes }} */
  const queues = {};
  /** @type {{ [name: string]: RoleFacts }} */
  const roles = {};
  /** @type {{ [name: string]: RoleFacts | null }} */
  const functionRoles = {};
  let account = '', region = '';
  /** @type {import('./design').TopicFacts | undefined} */
  let topic;
  /** @type {import('./design').ResponseQueueFacts | undefined} */
  let responseQueue;
  if (r === undefined) return { account, region, queues, roles, functionRoles };
  if (r.stack !== undefined && r.stack !== '') {
    const st = cdk().Stack.of(scopeOf(byName, r.stack));
    account = st.account;
    region = st.region;
  }
  for (const n of r.queues ?? []) {
    const q = queueOf(byName, n);
    queues[n] = { url: q.queueUrl, arn: q.queueArn };
  }
  for (const n of r.roles ?? []) {
    const role = need(byName, n, iam().Role, 'a role');
    roles[n] = { arn: role.roleArn, id: role.roleId };
  }
  for (const n of r.functionRoles ?? []) {
    const role = functionOf(byName, n).role;
    const cfn = role?.node.defaultChild;
    functionRoles[n] = role === undefined ? null : { arn: role.roleArn, id: cfn instanceof iam().CfnRole ? cfn.attrRoleId : null };
  }
  if (r.topic !== undefined && r.topic !== '') {
    const t = need(byName, r.topic, sns().TopicBase, 'a topic');
    topic = {
      arn: t.topicArn, stackRegion: cdk().Stack.of(t).region, fifo: t.fifo === true,
      restrictsSqsDecryption: cdk().FeatureFlags.of(t).isEnabled(RESTRICT_SQS_DECRYPTION) === true,
    };
  }
  if (r.responseQueue !== undefined && r.responseQueue !== '') {
    const q = queueOf(byName, r.responseQueue);
    responseQueue = { url: q.queueUrl, fifo: q.fifo === true, hasKey: q.encryptionMasterKey !== undefined, inApp: q.node.defaultChild !== undefined };
  }
  return { account, region, queues, roles, functionRoles, topic, responseQueue };
}

/**
 * Applier.apply's side: design as the Go constructs write it (JSON), the
 * objects they hold by name; what the design made, by name, and the answer
 * (JSON) as "answer".
 * @param {string} text @param {{ [name: string]: unknown }} objects
 * @returns {{ [name: string]: unknown }}
 */
function applyText(text, objects) {
  /** @type {Design} */
  const design = JSON.parse(text);
  const byName = new Map(Object.entries(objects));
  const before = new Set(byName.keys());
  const answer = apply(design, byName);
  /** @type {{ [name: string]: unknown }} */
  const made = { answer: JSON.stringify(answer) };
  for (const [name, o] of byName) if (!before.has(name)) made[name] = o;
  return made;
}

module.exports = { apply, applyText, newMetric, ApplierError };
