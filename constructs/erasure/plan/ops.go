// Package plan holds the erasure constructs' decisions as pure Go: props
// and the facts of a stack in, the operations that build the resources out,
// as plain data. It imports no jsii and no CDK, so one implementation serves
// every CDK language: the Go constructs (constructs/erasure) run it natively
// and hand its operations to the jsii kernel; the TypeScript construct
// library (constructs/typescript) runs the same code compiled to
// WebAssembly and applies the same operations with the same
// handover/index.js.
//
// An operation is a map with an "op" (what handover/index.js does) and its
// fields. A field's value is plain data, or one of these forms, which the
// appliers resolve:
//
//	{"$op": i}                an earlier operation's result in the same batch
//	{"$name": "queue"}        an object the applier holds: an input (Inputs) or what an operation named by "as" made
//	{"$duration": {"seconds": n}} / {"minutes": n}  a CDK Duration
//	{"$enum": [module, type, member]}                an aws-cdk-lib enum member
//	{"$servicePrincipal": "lambda.amazonaws.com"}   an IAM service principal
//	{"$props": {"base": v, "environment": {...}, "set": {...}}}  v's fields with the environment merged and set over them
package plan

import "sort"

// Named stands, in an operation, for an object the applier holds by name.
func Named(name string) map[string]any { return map[string]any{"$name": name} }

// Seconds is a CDK Duration of n seconds.
func Seconds(n int) map[string]any {
	return map[string]any{"$duration": map[string]any{"seconds": n}}
}

// Minutes is a CDK Duration of n minutes.
func Minutes(n int) map[string]any {
	return map[string]any{"$duration": map[string]any{"minutes": n}}
}

// Enum is the member of an aws-cdk-lib enum (module "" is the core).
func Enum(module, typ, member string) map[string]any {
	return map[string]any{"$enum": []any{module, typ, member}}
}

// ServicePrincipal is the IAM service principal of service.
func ServicePrincipal(service string) map[string]any {
	return map[string]any{"$servicePrincipal": service}
}

// The enum members the constructs use.
var (
	QueueEncryptionKMS = Enum("aws-sqs", "QueueEncryption", "KMS")
	RetentionOneMonth  = Enum("aws-logs", "RetentionDays", "ONE_MONTH")
	GreaterThanOrEqual = Enum("aws-cloudwatch", "ComparisonOperator", "GREATER_THAN_OR_EQUAL_TO_THRESHOLD")
	GreaterThan        = Enum("aws-cloudwatch", "ComparisonOperator", "GREATER_THAN_THRESHOLD")
)

const (
	// LambdaService is the service principal a handler's role trusts.
	LambdaService = "lambda.amazonaws.com"
	// A queue alarm reads its metric's maximum over one minute.
	alarmPeriodMinutes        = 1
	alarmQueueMetricStatistic = "Maximum"
)

// A Batch is the operations of one hand-over, in order; an operation names
// what an earlier one of the batch returns by Result.
type Batch struct{ Ops []map[string]any }

// Add appends op and returns its index.
func (b *Batch) Add(op map[string]any) int {
	b.Ops = append(b.Ops, op)
	return len(b.Ops) - 1
}

// Result stands, in a later operation of the batch, for what operation i returns.
func (b *Batch) Result(i int) map[string]any { return map[string]any{"$op": i} }

// Take returns the operations and empties the batch.
func (b *Batch) Take() []map[string]any {
	ops := b.Ops
	b.Ops = nil
	return ops
}

// Construct creates the class of an aws-cdk-lib module (its path, as
// "aws-sqs") with props (a map of its fields by their jsii names, or a
// value the applier holds): its index.
func (b *Batch) Construct(scope any, module, class, id string, props any) int {
	return b.Add(map[string]any{"op": "new", "module": module, "class": class, "scope": scope, "id": id, "props": props})
}

// Scope is a plain construct id under scope (what constructs.NewConstruct
// makes), for a construct to stand on.
func (b *Batch) Scope(scope any, id string) int {
	return b.Add(map[string]any{"op": "scope", "scope": scope, "id": id})
}

// StackEnv reads the account and region of scope's stack: a map of them.
func (b *Batch) StackEnv(scope any) int {
	return b.Add(map[string]any{"op": "stackEnv", "scope": scope})
}

// Read reads the named properties of of (strings, as tokens): its index;
// the result is a map of them by name.
func (b *Batch) Read(of any, names ...string) int {
	return b.Add(map[string]any{"op": "read", "of": of, "names": AnyList(names)})
}

// Grant is resource.grant(grantee, actions...).
func (b *Batch) Grant(resource, grantee any, actions ...string) {
	b.Add(map[string]any{"op": "grant", "resource": resource, "grantee": grantee, "actions": AnyList(actions)})
}

// GrantWrite is resource.grantWrite(grantee).
func (b *Batch) GrantWrite(resource, grantee any) {
	b.Add(map[string]any{"op": "grantWrite", "resource": resource, "grantee": grantee})
}

// Environment is fn.addEnvironment(name, value).
func (b *Batch) Environment(fn any, name, value string) {
	b.Add(map[string]any{"op": "environment", "function": fn, "name": name, "value": value})
}

// Output is a CfnOutput of the join of parts, with its logical id.
func (b *Batch) Output(scope any, id, description, logicalID string, parts ...string) {
	b.Add(map[string]any{"op": "output", "scope": scope, "id": id, "description": description, "logicalId": logicalID, "join": AnyList(parts)})
}

// Alarm is an Alarm on the queue's metric (its metric<name> method, over one
// minute with statistic Maximum), breaching past threshold in one period:
// its index.
func (b *Batch) Alarm(scope any, id, description string, queue any, metric string, threshold float64, compare any) int {
	return b.Add(map[string]any{"op": "alarm", "scope": scope, "id": id, "description": description, "queue": queue,
		"metric": metric, "period": Minutes(alarmPeriodMinutes), "statistic": alarmQueueMetricStatistic, "threshold": threshold, "comparison": compare})
}

// MetricAlarm is an alarm on metric m (a value the applier holds, or the
// batch's result that is one): one period, data missing not breaching. Its
// index.
func (b *Batch) MetricAlarm(scope any, id, description string, m any, threshold float64, compare any) int {
	return b.Add(map[string]any{"op": "alarm", "scope": scope, "id": id, "description": description, "metricObject": m,
		"threshold": threshold, "comparison": compare})
}

// DeadLetterAlarm is an alarm that fires when dlq holds any message: its index.
func (b *Batch) DeadLetterAlarm(scope any, id string, dlq any, description string) int {
	return b.Alarm(scope, id, description, dlq, "ApproximateNumberOfMessagesVisible", 1, GreaterThanOrEqual)
}

// OldestMessageAlarm is an alarm that fires when q's oldest message is older
// than boundSeconds: its index.
func (b *Batch) OldestMessageAlarm(scope any, id string, q any, boundSeconds int, description string) int {
	return b.Alarm(scope, id, description, q, "ApproximateAgeOfOldestMessage", float64(boundSeconds), GreaterThan)
}

// Key creates a customer-managed key with rotation on: its index.
func (b *Batch) Key(scope any, id, description string) int {
	return b.Construct(scope, "aws-kms", "Key", id, map[string]any{"description": description, "enableKeyRotation": true})
}

// Subscribe is topic.addSubscription(new SqsSubscription(queue)) with raw
// message delivery.
func (b *Batch) Subscribe(topic, queue any) {
	b.Add(map[string]any{"op": "subscribe", "topic": topic, "queue": queue})
}

// SubscribeScoped subscribes queue to topic with raw delivery as CDK's
// SqsSubscription does (same subscriber scope and id, so logical ids stay
// stable), but lets principal (SNS's, as it presents itself to the queue)
// send to the queue and use key only on behalf of the topic whose ARN is
// topicArn (aws:SourceArn), whatever the app's feature flags say. region is
// the topic's region for a subscription across regions, or "".
func (b *Batch) SubscribeScoped(topic, queue, key any, principal, topicArn, region string) {
	op := map[string]any{"op": "subscribeScoped", "topic": topic, "queue": queue, "key": key, "principal": principal, "topicArn": topicArn}
	if region != "" {
		op["region"] = region
	}
	b.Add(op)
}

// EventSource is fn.addEventSource(new SqsEventSource(queue)) with
// batchSize, window (nil: none) and partial batch failures reported.
func (b *Batch) EventSource(fn, queue any, batchSize int, window any) {
	op := map[string]any{"op": "eventSource", "function": fn, "queue": queue, "batchSize": batchSize}
	if window != nil {
		op["window"] = window
	}
	b.Add(op)
}

// FunctionRole reads the role CDK made a function (its ARN, and its unique
// id when it is a role of this app, else null): its index.
func (b *Batch) FunctionRole(fn any) int {
	return b.Add(map[string]any{"op": "functionRole", "function": fn})
}

// Suppression is the operation that adds cdk-nag suppressions with their
// reasons to each of scopes and their CloudFormation children, as cdk-nag's
// NagSuppressions.addResourceSuppressions with applyToChildren does, unless
// the app's context turns cdk-nag off (NagContextKey).
func Suppression(reasons map[string]string, scopes ...any) map[string]any {
	// In a stable order: a template must not change between two synths of
	// one app (CloudFormation would see a change set in every deploy).
	ids := make([]string, 0, len(reasons))
	for id := range reasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rules := make([]any, len(ids))
	for i, id := range ids {
		rules[i] = map[string]any{"id": id, "reason": reasons[id]}
	}
	return map[string]any{"op": "suppress", "rules": rules, "scopes": scopes, "children": true, "unlessOff": NagContextKey}
}

// SuppressionApplying is the operation that suppresses the finding id of
// cdk-nag on each of scopes and their children for the findings appliesTo
// names only (cdk-nag's NagPackSuppression.appliesTo).
func SuppressionApplying(id, reason string, appliesTo []string, scopes ...any) map[string]any {
	return map[string]any{"op": "suppress", "rules": []any{map[string]any{"id": id, "reason": reason, "appliesTo": AnyList(appliesTo)}},
		"scopes": scopes, "children": true, "unlessOff": NagContextKey}
}

// AlarmActionsSuppression suppresses cdk-nag's finding that alarms have no
// action: where an alarm pages is the operator's choice.
func AlarmActionsSuppression(alarms ...any) map[string]any {
	return Suppression(map[string]string{"NIST.800.53.R5-CloudWatchAlarmAction": ReasonAlarmAction}, alarms...)
}

// A QueuePair describes a queue and its dead-letter queue: both under one
// customer-managed key, TLS only, with the same retention; the queue redrives
// after MaxReceiveCount receives. Every queue on the channel is one of these.
type QueuePair struct {
	IDPrefix          string // the logical-id prefix: "" → Queue, DeadLetterQueue
	Key               any    // the key: a value the applier holds, or a batch's result
	RetentionSeconds  int
	MaxReceiveCount   int
	VisibilitySeconds int    // 0: SQS's default
	QueueName         string // a physical name for the queue, or "" for a generated one
	QueueAs           string // the name the applier holds the queue by, or "" for none
	DeadLetterAs      string // the name the applier holds the dead-letter queue by, or "" for none
}

// Add creates the dead-letter queue, then the queue, in b: their indexes.
func (p QueuePair) Add(b *Batch, scope any) (queue, dlq int) {
	dlqProps := map[string]any{
		"encryption":          QueueEncryptionKMS,
		"encryptionMasterKey": p.Key,
		"enforceSSL":          true,
		"retentionPeriod":     Seconds(p.RetentionSeconds),
	}
	dlq = b.Construct(scope, "aws-sqs", "Queue", p.IDPrefix+"DeadLetterQueue", dlqProps)
	props := map[string]any{
		"encryption":          QueueEncryptionKMS,
		"encryptionMasterKey": p.Key,
		"enforceSSL":          true,
		"retentionPeriod":     Seconds(p.RetentionSeconds),
		"deadLetterQueue":     map[string]any{"queue": b.Result(dlq), "maxReceiveCount": p.MaxReceiveCount},
	}
	if p.QueueName != "" {
		props["queueName"] = p.QueueName
	}
	if p.VisibilitySeconds > 0 {
		props["visibilityTimeout"] = Seconds(p.VisibilitySeconds)
	}
	queue = b.Construct(scope, "aws-sqs", "Queue", p.IDPrefix+"Queue", props)
	if p.DeadLetterAs != "" {
		b.Ops[dlq]["as"] = p.DeadLetterAs
	}
	if p.QueueAs != "" {
		b.Ops[queue]["as"] = p.QueueAs
	}
	return queue, dlq
}

// AnyList is s as a list of values.
func AnyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
