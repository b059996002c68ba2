package design

// A Design is what one call of the applier builds, as typed data: every resource the
// constructs hand the applier (applier/apply.js) instead of building it with
// one jsii round trip per call. The applier builds each list in the order of
// the fields below, each entry in its order, with aws-cdk-lib's own classes,
// and answers what Reads asks (Answer). applier/design.ts is generated from
// these types (go run ./constructs/erasure/plan/typescript/gen) and checked against them
// by TestDesignTypesAreGenerated; tsc --checkJs --strict checks the applier
// against both it and aws-cdk-lib's types (TestApplierTypeChecks).
//
// Objects (a scope, a topic, a function, what an entry made) are named by a
// Name: the caller hands the applier the objects it holds, and each entry's As
// adds what it made under that name, for later entries and for the caller.
type Design struct {
	// Version is DesignVersion: the applier refuses a design of another.
	Version       int              `json:"version"`
	Scope         *Scope           `json:"scope,omitempty"`
	Keys          []Key            `json:"keys,omitempty"`
	QueuePairs    []QueuePair      `json:"queuePairs,omitempty"`
	LogGroups     []LogGroup       `json:"logGroups,omitempty"`
	Roles         []Role           `json:"roles,omitempty"`
	Subscriptions []Subscription   `json:"subscriptions,omitempty"`
	LogWrites     []LogWrite       `json:"logWrites,omitempty"`
	Functions     []LambdaFunction `json:"functions,omitempty"`
	EventSources  []EventSource    `json:"eventSources,omitempty"`
	Grants        []Grant          `json:"grants,omitempty"`
	Locks         []Lock           `json:"locks,omitempty"`
	Variables     []Variable       `json:"variables,omitempty"`
	Outputs       []Output         `json:"outputs,omitempty"`
	LookupRoles   []LookupRole     `json:"lookupRoles,omitempty"`
	Metrics       []NamedMetric    `json:"metrics,omitempty"`
	Alarms        []Alarm          `json:"alarms,omitempty"`
	Suppressions  []Suppression    `json:"suppressions,omitempty"`
	Reads         *Reads           `json:"reads,omitempty"`
}

// DesignVersion is the version of Design's shape. Change it with any change
// of the shape that an applier of the old one would misread.
const DesignVersion = 1

// NewDesign is an empty design of this version.
func NewDesign() Design { return Design{Version: DesignVersion} }

// Name names an object the applier holds: one the caller handed it, or
// one an entry made under its As.
type Name string

// The names of the subscriber's objects.
const (
	NameScope              Name = "scope"         // the construct's scope (given)
	NameThis               Name = "this"          // the construct
	NameTopic              Name = "topic"         // the erasure topic (given)
	NameResponseQueue      Name = "responseQueue" // the response queue (given)
	NameHandler            Name = "handler"       // the store's function (given)
	NameHandlerProps       Name = "handlerProps"  // the props to build it with (given)
	NameKey                Name = "key"
	NameQueue              Name = "queue"
	NameDeadLetterQueue    Name = "deadLetterQueue"
	NameLogGroup           Name = "logGroup"
	NameRole               Name = "role"
	NameFunction           Name = "function"
	NameLookupRole         Name = "lookupRole"
	NameDeadLetterAlarm    Name = "deadLetterAlarm"
	NameOldestMessageAlarm Name = "oldestMessageAlarm"
	NameNotApplicableAlarm Name = "notApplicableAlarm"
	NameMetric             Name = "metric"  // a metric a design makes
	NameOptions            Name = "options" // the metric options a caller gives (awscloudwatch.MetricOptions)
)

// Scope is a plain construct (constructs.Construct) for a construct to stand on.
type Scope struct {
	Under Name   `json:"under"`
	ID    string `json:"id"`
	As    Name   `json:"as"`
}

// Key is a customer-managed KMS key with rotation on.
type Key struct {
	Scope       Name   `json:"scope"`
	ID          string `json:"id"`
	Description string `json:"description"`
	As          Name   `json:"as"`
}

// A QueuePair is a queue and its dead-letter queue: both under one
// customer-managed key, TLS only, with the same retention; the queue redrives
// after MaxReceiveCount receives. Every queue on the channel is one of these.
// The dead-letter queue is made first.
type QueuePair struct {
	Scope             Name   `json:"scope"`
	IDPrefix          string `json:"idPrefix"` // "" → Queue, DeadLetterQueue
	Key               Name   `json:"key"`
	RetentionSeconds  int    `json:"retentionSeconds"`
	MaxReceiveCount   int    `json:"maxReceiveCount"`
	VisibilitySeconds int    `json:"visibilitySeconds"` // 0: SQS's default
	QueueName         string `json:"queueName"`         // "": a generated name
	QueueAs           Name   `json:"queueAs"`
	DeadLetterAs      Name   `json:"deadLetterAs"`
}

// LogGroup is a log group that keeps its events RetentionDays.
type LogGroup struct {
	Scope Name   `json:"scope"`
	ID    string `json:"id"`
	// RetentionDays is one of CloudWatch Logs' retention periods in days.
	RetentionDays int  `json:"retentionDays"`
	As            Name `json:"as"`
}

// Role is an IAM role that Service assumes.
type Role struct {
	Scope       Name   `json:"scope"`
	ID          string `json:"id"`
	Service     string `json:"service"` // the service principal, as lambda.amazonaws.com
	Description string `json:"description"`
	RoleName    string `json:"roleName"` // "": a generated name
	Path        string `json:"path"`     // "": /
	As          Name   `json:"as"`
}

// Subscription subscribes Queue to Topic with raw message delivery.
type Subscription struct {
	Topic Name `json:"topic"`
	Queue Name `json:"queue"`
	// Scoped: bind as CDK's SqsSubscription does (same subscriber scope and
	// id, so logical ids stay stable), but let Principal (SNS, as it
	// presents itself to the queue) send to the queue and use Key only on
	// behalf of the topic TopicArn (aws:SourceArn), whatever the app's
	// feature flags say. Unscoped: CDK's own SqsSubscription.
	Scoped    bool   `json:"scoped"`
	Key       Name   `json:"key"`
	Principal string `json:"principal"`
	TopicArn  string `json:"topicArn"`
	Region    string `json:"region"` // the topic's region across regions, or ""
}

// LogWrite lets Grantee write to LogGroup (LogGroup.grantWrite).
type LogWrite struct {
	LogGroup Name `json:"logGroup"`
	Grantee  Name `json:"grantee"`
}

// LambdaFunction is a Lambda function made from the given FunctionProps (Props),
// with Environment merged over theirs and the fields below set over them.
type LambdaFunction struct {
	Scope          Name       `json:"scope"`
	ID             string     `json:"id"`
	Props          Name       `json:"props"`
	Environment    []EnvEntry `json:"environment"`
	TimeoutSeconds int        `json:"timeoutSeconds"`
	FunctionName   string     `json:"functionName"` // "": the props' or a generated one
	MemorySize     int        `json:"memorySize"`   // 0: the props'
	Role           Name       `json:"role"`         // "": the props' or one CDK makes
	LogGroup       Name       `json:"logGroup"`     // "": the props'
	As             Name       `json:"as"`
}

// EnvEntry is one environment variable.
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EventSource wires Queue to Function, reporting partial batch failures.
type EventSource struct {
	Function      Name `json:"function"`
	Queue         Name `json:"queue"`
	BatchSize     int  `json:"batchSize"`
	WindowSeconds int  `json:"windowSeconds"` // 0: no batching window
}

// Grant is Resource.grant(Grantee, Actions...) (a queue's or a key's), or,
// with QueueKey, the grant on the key of the queue Resource.
type Grant struct {
	Resource Name     `json:"resource"`
	QueueKey bool     `json:"queueKey"`
	Grantee  Name     `json:"grantee"`
	Actions  []string `json:"actions"`
}

// Variable adds one environment variable to Function.
type Variable struct {
	Function Name   `json:"function"`
	Name     string `json:"name"`
	Value    string `json:"value"`
}

// Output is a CfnOutput of the join of Join, with its logical id.
type Output struct {
	Scope       Name     `json:"scope"`
	ID          string   `json:"id"`
	Description string   `json:"description"`
	LogicalID   string   `json:"logicalId"`
	Join        []string `json:"join"`
}

// LookupRole is an IAM role (CfnRole) with its trust policy and inline
// policies, as CloudFormation takes them.
type LookupRole struct {
	Scope            Name           `json:"scope"`
	ID               string         `json:"id"`
	RoleName         string         `json:"roleName"`
	Path             string         `json:"path"`
	Description      string         `json:"description"`
	AssumeRolePolicy PolicyDocument `json:"assumeRolePolicy"`
	Policies         []InlinePolicy `json:"policies"`
	As               Name           `json:"as"`
}

// InlinePolicy is a role's inline policy.
type InlinePolicy struct {
	PolicyName string         `json:"policyName"`
	Document   PolicyDocument `json:"document"`
}

// NamedMetric is a CloudWatch metric (Metric), with the options the caller
// holds as Options ("" for none: an awscloudwatch.MetricOptions) over it.
type NamedMetric struct {
	Metric  Metric `json:"metric"`
	Options Name   `json:"options"`
	As      Name   `json:"as"`
}

// Alarm alarms, in one evaluation period with missing data not breaching,
// when its metric (QueueMetric's, or the metric the applier holds as
// Metric) passes Threshold.
type Alarm struct {
	Scope       Name         `json:"scope"`
	ID          string       `json:"id"`
	Description string       `json:"description"`
	QueueMetric *QueueMetric `json:"queueMetric,omitempty"`
	Metric      Name         `json:"metric"`
	Threshold   float64      `json:"threshold"`
	Comparison  Comparison   `json:"comparison"`
	As          Name         `json:"as"`
}

// Comparison is a CloudWatch alarm's comparison operator.
type Comparison string

// The comparison operators the constructs alarm with.
const (
	GreaterThanOrEqual Comparison = "GREATER_THAN_OR_EQUAL_TO_THRESHOLD"
	GreaterThan        Comparison = "GREATER_THAN_THRESHOLD"
)

// QueueMetric is one of a queue's own SQS metrics.
type QueueMetric struct {
	Queue         Name            `json:"queue"`
	Metric        QueueMetricName `json:"metric"`
	Statistic     string          `json:"statistic"`
	PeriodMinutes int             `json:"periodMinutes"`
}

// QueueMetricName names an SQS queue metric the constructs alarm on.
type QueueMetricName string

// The queue metrics the constructs alarm on.
const (
	MessagesVisible     QueueMetricName = "ApproximateNumberOfMessagesVisible"
	AgeOfOldestMessage  QueueMetricName = "ApproximateAgeOfOldestMessage"
	QueueAlarmStatistic                 = "Maximum" // a queue alarm reads its metric's maximum
	QueueAlarmMinutes                   = 1         // over one minute
)

// Metric is a CloudWatch metric by namespace, name and dimensions.
type Metric struct {
	Namespace     string            `json:"namespace"`
	MetricName    string            `json:"metricName"`
	Dimensions    map[string]string `json:"dimensions"`
	Statistic     string            `json:"statistic"`
	PeriodMinutes int               `json:"periodMinutes"`
}

// Suppression suppresses cdk-nag's findings Rules on each of Scopes and
// their CloudFormation children, as cdk-nag's
// NagSuppressions.addResourceSuppressions(scope, rules, true) does, unless
// the app's context sets UnlessContextOff (NagContextKey) to false.
type Suppression struct {
	Scopes           []Name    `json:"scopes"`
	Rules            []NagRule `json:"rules"`
	UnlessContextOff string    `json:"unlessContextOff"`
}

// NagRule is one cdk-nag suppression (cdk-nag's NagPackSuppression).
type NagRule struct {
	ID        string   `json:"id"`
	Reason    string   `json:"reason"`
	AppliesTo []string `json:"appliesTo,omitempty"`
}

// Reads asks the applier for tokens of what it holds, after it has built the
// design: the account and region of Stack's stack, each queue's URL and
// ARN, each role's ARN and id, each function's role, and the facts of a
// subscriber's topic and response queue.
type Reads struct {
	Stack         Name   `json:"stack,omitempty"`
	Topic         Name   `json:"topic,omitempty"`
	ResponseQueue Name   `json:"responseQueue,omitempty"`
	Queues        []Name `json:"queues,omitempty"`
	Roles         []Name `json:"roles,omitempty"`
	FunctionRoles []Name `json:"functionRoles,omitempty"`
}

// Answer is what the applier read (Reads), by name.
type Answer struct {
	Account string                   `json:"account"`
	Region  string                   `json:"region"`
	Queues  map[Name]QueueAttributes `json:"queues"`
	Roles   map[Name]RoleFacts       `json:"roles"`
	// FunctionRoles are the roles of the functions Reads named: nil where
	// the function has none.
	FunctionRoles map[Name]*RoleFacts `json:"functionRoles"`
	// Topic and ResponseQueue are the facts Reads asked for, or nil.
	Topic         *TopicFacts         `json:"topic,omitempty"`
	ResponseQueue *ResponseQueueFacts `json:"responseQueue,omitempty"`
}

// TopicFacts are what the decisions read of the erasure topic.
type TopicFacts struct {
	Arn string `json:"arn"` // its TopicArn (a token for a topic of this app)
	// StackRegion is the region of the topic's stack (a token for an
	// environment-agnostic one).
	StackRegion string `json:"stackRegion"`
	FIFO        bool   `json:"fifo"`
	// RestrictsSqsDecryption: the topic's app sets
	// @aws-cdk/aws-sns-subscriptions:restrictSqsDescryption.
	RestrictsSqsDecryption bool `json:"restrictsSqsDecryption"`
}

// ResponseQueueFacts are what the decisions read of the response queue.
type ResponseQueueFacts struct {
	URL    string `json:"url"`    // its QueueUrl (a token)
	FIFO   bool   `json:"fifo"`   // a FIFO queue
	HasKey bool   `json:"hasKey"` // its encryptionMasterKey is known
	InApp  bool   `json:"inApp"`  // it is a queue of this app (it has a default child)
}

// RoleFacts are a handler role's ARN and, for a role of this app, its
// unique id (nil for an imported role).
type RoleFacts struct {
	Arn string  `json:"arn"`
	ID  *string `json:"id"`
}

// QueueAttributes are a queue's URL and ARN (tokens).
type QueueAttributes struct {
	URL string `json:"url"`
	Arn string `json:"arn"`
}

// Comparisons are every Comparison, for the applier's types.
var Comparisons = []Comparison{GreaterThanOrEqual, GreaterThan}

// QueueMetricNames are every QueueMetricName, for the applier's types.
var QueueMetricNames = []QueueMetricName{MessagesVisible, AgeOfOldestMessage}
