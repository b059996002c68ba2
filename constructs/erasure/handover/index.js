'use strict';
// The kernel side of constructs/erasure/handover.go. The Go constructs decide
// every statement, metadata entry and cdk-nag suppression as data; apply
// carries out a list of them in one jsii call, in order, through the same
// aws-cdk-lib calls the Go code would have made one round trip at a time.
// Nothing here decides anything: an operation it does not know is an error.

// Each aws-cdk-lib module is resolved once, on first use (the kernel has
// loaded aws-cdk-lib by then): a require through its package exports costs
// milliseconds every time.
const libs = new Map();
function lib(name) {
  let m = libs.get(name);
  if (m === undefined) {
    m = require(name === '' ? 'aws-cdk-lib' : `aws-cdk-lib/${name}`);
    libs.set(name, m);
  }
  return m;
}
const cdk = () => lib('');
const iam = () => lib('aws-iam');

// A statement as handover.go writes it: Sid, Effect, Principal ("*" only),
// Resource, Action or NotAction, Condition.
function statement(s) {
  const known = new Set(['Sid', 'Effect', 'Principal', 'Resource', 'Action', 'NotAction', 'Condition']);
  for (const k of Object.keys(s)) {
    if (!known.has(k)) throw new Error(`handover: a statement field it does not know: ${k}`);
  }
  if (s.Principal !== '*') throw new Error('handover: a statement\'s principal must be "*"');
  const { Effect } = iam();
  if (s.Effect !== 'Deny' && s.Effect !== 'Allow') throw new Error('handover: a statement\'s effect must be Allow or Deny');
  return new (iam().PolicyStatement)({
    sid: s.Sid,
    effect: s.Effect === 'Deny' ? Effect.DENY : Effect.ALLOW,
    principals: [anyPrincipal()],
    resources: s.Resource,
    actions: s.Action,
    notActions: s.NotAction,
    conditions: s.Condition,
  });
}

let any;
function anyPrincipal() { return any ?? (any = new (iam().AnyPrincipal)()); }

// lock: metadata on the resource's CfnResource, then each statement through
// the resource's addToResourcePolicy (a queue, topic or bucket creates its
// policy on the first; a key adds to its key policy).
function lock(op) {
  const r = op.resource;
  if (op.metadata.length > 0) {
    const res = r.node.defaultChild;
    if (!(res instanceof cdk().CfnResource)) throw new Error(`handover: ${r.node.path} has no CloudFormation resource to carry metadata`);
    for (const [k, v] of op.metadata) res.addMetadata(k, v);
  }
  for (const s of op.statements) {
    const added = op.key ? r.addToResourcePolicy(statement(s), false) : r.addToResourcePolicy(statement(s));
    if (!added.statementAdded) throw new Error(`handover: ${r.node.path} took no statement into its policy`);
  }
}

// suppress: cdk-nag suppressions as cdk-nag's NagSuppressions.addResourceSuppressions
// writes them (its NagSuppressionHelper.addRulesToMetadata and toCfnFormat),
// without loading cdk-nag, which a synth without its checks never needs; and
// none when the app's context turns cdk-nag off.
function suppress(op) {
  const { CfnResource } = cdk();
  // An app whose context turns cdk-nag off (op.unlessOff, set to false)
  // reads no suppression: none is written.
  if (op.unlessOff !== undefined && op.scopes.length > 0) {
    // Off as strconv.ParseBool reads false, the stacks' reading of it.
    const nag = op.scopes[0].node.tryGetContext(op.unlessOff);
    if (nag !== undefined && nag !== null && ['0', 'f', 'F', 'false', 'False', 'FALSE'].includes(String(nag))) return;
  }
  const rules = op.rules.map((r) => {
    if (typeof r.reason !== 'string' || r.reason.length < 10) throw new Error(`handover: the suppression of ${r.id} needs a reason of 10 characters or more`);
    const rule = { id: r.id };
    if (r.appliesTo) rule.applies_to = r.appliesTo;
    if ([...r.reason].some((c) => c.codePointAt(0) > 255)) {
      rule.is_reason_encoded = true;
      return JSON.stringify({ reason: Buffer.from(r.reason).toString('base64'), ...rule });
    }
    return JSON.stringify({ reason: r.reason, ...rule });
  });
  for (const c of op.scopes) {
    for (const child of op.children ? c.node.findAll() : [c]) {
      const res = child.node.defaultChild ? child.node.defaultChild : child;
      if (!(res instanceof CfnResource)) continue;
      const existing = (res.getMetadata('cdk_nag') ?? {}).rules_to_suppress ?? [];
      const merged = Array.from(new Set([...existing.map((r) => JSON.stringify(r)), ...rules]));
      res.addMetadata('cdk_nag', { rules_to_suppress: merged.map((r) => JSON.parse(r)) });
    }
  }
}

// new: new (aws-cdk-lib/<module>).<class>(scope, id, props).
function construct(op) {
  const cls = lib(op.module)[op.class];
  if (typeof cls !== 'function') throw new Error(`handover: aws-cdk-lib/${op.module} has no class ${op.class}`);
  return new cls(op.scope, op.id, op.props);
}

// scope: new Construct(scope, id), the plain construct a Go construct
// stands on (constructs.NewConstruct).
function scope(op) {
  const { Construct } = require('constructs');
  return new Construct(op.scope, op.id);
}

// read: the named properties of a construct, by name.
function read(op) {
  const out = {};
  for (const name of op.names) {
    const v = op.of[name];
    if (typeof v !== 'string') throw new Error(`handover: ${name} is not a string property`);
    out[name] = v;
  }
  return out;
}

// stackEnv: the account and region of the scope's stack.
function stackEnv(op) {
  const st = cdk().Stack.of(op.scope);
  return { account: st.account, region: st.region };
}

// grant: resource.grant(grantee, ...actions).
function grant(op) { op.resource.grant(op.grantee, ...op.actions); }

// grantWrite: resource.grantWrite(grantee).
function grantWrite(op) { op.resource.grantWrite(op.grantee); }

// environment: fn.addEnvironment(name, value).
function environment(op) { op.function.addEnvironment(op.name, op.value); }

// output: a CfnOutput of Fn.join('', parts), its logical id overridden.
function output(op) {
  const { CfnOutput, Fn } = cdk();
  const out = new CfnOutput(op.scope, op.id, { value: Fn.join('', op.join), description: op.description });
  out.overrideLogicalId(op.logicalId);
}

// alarm: an Alarm on a metric (metricObject, or the queue's metric<name> at
// period with statistic), one evaluation period, missing data not breaching.
function alarm(op) {
  const cw = lib('aws-cloudwatch');
  let metric = op.metricObject;
  if (metric === undefined) {
    const of = op.queue[`metric${op.metric}`];
    if (typeof of !== 'function') throw new Error(`handover: a queue has no metric ${op.metric}`);
    metric = of.call(op.queue, { period: op.period, statistic: op.statistic });
  }
  return new cw.Alarm(op.scope, op.id, {
    alarmDescription: op.description,
    metric,
    threshold: op.threshold,
    evaluationPeriods: 1,
    comparisonOperator: op.comparison,
    treatMissingData: cw.TreatMissingData.NOT_BREACHING,
  });
}

// metric: new Metric(props) (aws-cloudwatch), to alarm on.
function metric(op) { return new (lib('aws-cloudwatch').Metric)(op.props); }

// mathExpression: new MathExpression(props) (aws-cloudwatch), its
// usingMetrics the batch's metrics by id.
function mathExpression(op) { return new (lib('aws-cloudwatch').MathExpression)(op.props); }

// subscribe: topic.addSubscription(new SqsSubscription(queue)), raw delivery.
function subscribe(op) {
  const { SqsSubscription } = lib('aws-sns-subscriptions');
  op.topic.addSubscription(new SqsSubscription(op.queue, { rawMessageDelivery: true }));
}

// eventSource: fn.addEventSource(new SqsEventSource(queue)), reporting
// partial batch failures.
function eventSource(op) {
  const { SqsEventSource } = lib('aws-lambda-event-sources');
  op.function.addEventSource(new SqsEventSource(op.queue, {
    batchSize: op.batchSize,
    maxBatchingWindow: op.window,
    reportBatchItemFailures: true,
  }));
}

// subscribeScoped: topic.addSubscription of a subscription that binds as
// SqsSubscription does (raw delivery, the queue as subscriber scope, the
// topic's unique id), but lets SNS (op.principal, as the plan decided it)
// send to the queue and use its key only for op.topicArn (aws:SourceArn).
function subscribeScoped(op) {
  const { PolicyStatement, ServicePrincipal } = iam();
  const { SubscriptionProtocol } = lib('aws-sns');
  op.topic.addSubscription({
    bind(topic) {
      const sns = new ServicePrincipal(op.principal);
      const fromTopic = { ArnEquals: { 'aws:SourceArn': op.topicArn } };
      const added = op.queue.addToResourcePolicy(new PolicyStatement({
        resources: [op.queue.queueArn], actions: ['sqs:SendMessage'], principals: [sns], conditions: fromTopic,
      }));
      op.key.addToResourcePolicy(new PolicyStatement({
        resources: ['*'], actions: ['kms:Decrypt', 'kms:GenerateDataKey'], principals: [sns], conditions: fromTopic,
      }));
      return {
        region: op.region,
        subscriberScope: op.queue,
        subscriberId: cdk().Names.nodeUniqueId(topic.node),
        endpoint: op.queue.queueArn,
        protocol: SubscriptionProtocol.SQS,
        rawMessageDelivery: true,
        subscriptionDependency: added.policyDependable,
      };
    },
  });
}

// functionRole: the role of a function (CDK made it): its ARN, and its
// unique id where it is a role of this app (null for an imported one).
function functionRole(op) {
  const role = op.function.role;
  if (role === undefined) throw new Error(`handover: ${op.function.node.path} has no role`);
  const cfn = role.node.defaultChild;
  return { roleArn: role.roleArn, roleId: cfn instanceof iam().CfnRole ? cfn.attrRoleId : null };
}

// same: op.value, as an operation's result: a construct the applier
// already is (a TypeScript construct is its own scope) stands where the
// plan makes one.
function same(op) { return op.value; }

const operations = { new: construct, scope, same, read, stackEnv, lock, suppress, grant, grantWrite, environment, output, alarm, metric, mathExpression, subscribe, subscribeScoped, eventSource, functionRole };

// The value forms of constructs/erasure/plan (its package comment): what
// crosses as data but is made here.
const principals = new Map();
const forms = {
  $duration(v) {
    const { Duration } = cdk();
    if (Number.isInteger(v.seconds)) return Duration.seconds(v.seconds);
    if (Number.isInteger(v.minutes)) return Duration.minutes(v.minutes);
    throw new Error('handover: a duration must be whole seconds or minutes');
  },
  $enum([module, type, member]) {
    const e = lib(module)[type];
    if (e === undefined || !(member in e)) throw new Error(`handover: aws-cdk-lib/${module} has no ${type}.${member}`);
    return e[member];
  },
  $servicePrincipal(service) {
    let p = principals.get(service);
    if (p === undefined) {
      p = new (iam().ServicePrincipal)(service);
      principals.set(service, p);
    }
    return p;
  },
  // base's fields, its environment merged with environment, then set over them.
  $props({ base, environment, set }) {
    const out = { ...(base ?? {}) };
    if (environment !== undefined) out.environment = { ...(out.environment ?? {}), ...environment };
    return Object.assign(out, set ?? {});
  },
};

// resolve replaces each {"$op": i} in v by what operation i returned and
// each {"$ref": i} by refs[i] (through arrays and plain objects, never into
// a construct).
function resolve(v, results, refs) {
  if (Array.isArray(v)) return v.map((e) => resolve(e, results, refs));
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  if ('$op' in v) {
    if (!(v.$op in results)) throw new Error(`handover: operation ${v.$op} has not run`);
    return results[v.$op];
  }
  if ('$ref' in v) {
    if (!(v.$ref in refs)) throw new Error(`handover: no value ${v.$ref} was handed over`);
    return refs[v.$ref];
  }
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] in forms) return forms[keys[0]](resolve(v[keys[0]], results, refs));
  if ('$name' in v) throw new Error('handover: a name the applier did not bind');
  const out = {};
  for (const [k, e] of Object.entries(v)) out[k] = resolve(e, results, refs);
  return out;
}

// run carries out the operations of list (plain data; their other values in
// refs) in order and returns what each returned.
function run(list, refs) {
  const results = [];
  for (const raw of list) {
    const op = resolve(raw, results, refs);
    const f = operations[op.op];
    if (!f) throw new Error(`handover: an operation it does not know: ${op.op}`);
    results.push(f(op) ?? null);
  }
  return results;
}

class Handover {
  // apply carries out the operations of text (JSON; their jsii values in
  // refs) in order and returns what each returned.
  static apply(text, refs) {
    return run(JSON.parse(text), refs);
  }
}

exports.Handover = Handover;
// For a JavaScript applier in the same process (constructs/typescript):
// the operations as values, without the round trip through JSON text.
exports.run = run;
