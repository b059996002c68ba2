package plan

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// SubscriberInput is an ErasureSubscriber's props and the facts of the app
// that its decisions read, as data: every CDK language's construct gathers
// the same facts and gets the same designs.
//
// The applier holds the given objects by name: NameScope (the construct's
// scope), NameTopic and NameResponseQueue (when given: HasTopic,
// HasResponseQueue), NameHandler and NameHandlerProps (the props as given),
// and NameThis when Self. The topic's and the response queue's facts are
// read by the first step (its Answer's Topic and ResponseQueue), so
// that no construct reads or caches them itself; a caller that knows them
// may give them instead.
type SubscriberInput struct {
	// ID is the construct's id.
	ID string `json:"id"`
	// Self: the applier already holds the construct as NameThis (a
	// TypeScript construct is its own scope); else the first design makes it.
	Self bool `json:"self"`
	// Name is the store's subscriber name, as given.
	Name string `json:"name"`
	// Partition is the app's token for the partition (Aws.PARTITION).
	Partition string `json:"partition"`

	HasTopic         bool                       `json:"hasTopic"`                // the applier holds NameTopic
	HasResponseQueue bool                       `json:"hasResponseQueue"`        // the applier holds NameResponseQueue
	Topic            *design.TopicFacts         `json:"topic,omitempty"`         // nil: none given, or read by the first step
	ResponseQueue    *design.ResponseQueueFacts `json:"responseQueue,omitempty"` // nil: none given, or read by the first step
	Handler          *HandlerFacts              `json:"handler,omitempty"`       // nil: no handler function given
	HandlerProps     *HandlerPropsFacts         `json:"handlerProps,omitempty"`  // nil: no handler props given

	HandlerTimeout    *DurationFact `json:"handlerTimeout,omitempty"`
	VisibilityTimeout *DurationFact `json:"visibilityTimeout,omitempty"`
	PassTwoDelay      *DurationFact `json:"passTwoDelay,omitempty"`
	BatchTimeout      *DurationFact `json:"batchTimeout,omitempty"`
	MaxBatchingWindow *DurationFact `json:"maxBatchingWindow,omitempty"`
	RetentionPeriod   *DurationFact `json:"retentionPeriod,omitempty"`
	MaxReceiveCount   *NumberFact   `json:"maxReceiveCount,omitempty"`
	BatchSize         *NumberFact   `json:"batchSize,omitempty"`

	// Administrators are the given administrators' ARN patterns, or none.
	Administrators []string `json:"administrators,omitempty"`

	// Constants overrides the embedded channel constants (Go tests only).
	Constants *contract.Constants `json:"-"`

	// QueuesAnswer is what the first step read (nil before it).
	QueuesAnswer *design.Answer `json:"queuesAnswer,omitempty"`
	// FunctionAnswer is what the second read, when CDK made the handler's
	// role and the second design asked for it.
	FunctionAnswer *design.Answer `json:"functionAnswer,omitempty"`
}

// HandlerFacts are what the decisions read of a given handler function.
type HandlerFacts struct {
	Timeout *DurationFact     `json:"timeout,omitempty"` // nil: Lambda's default
	Role    *design.RoleFacts `json:"role,omitempty"`    // nil: it has none
}

// HandlerPropsFacts say which of the given handler props are set.
type HandlerPropsFacts struct {
	Timeout      bool              `json:"timeout"`
	FunctionName bool              `json:"functionName"`
	MemorySize   bool              `json:"memorySize"`
	LogGroup     bool              `json:"logGroup"`
	Role         *design.RoleFacts `json:"role,omitempty"` // the given role, or nil
}

// DurationFact is a Duration prop: unresolved (a token), or its milliseconds.
type DurationFact struct {
	Unresolved bool    `json:"unresolved"`
	Millis     float64 `json:"millis"`
}

// NumberFact is a number prop: unresolved (a token), or its value.
type NumberFact struct {
	Unresolved bool    `json:"unresolved"`
	Value      float64 `json:"value"`
}

// SubscriberStep is the next step: apply Design, then, unless Final,
// call Subscriber again with what it read (QueuesAnswer, then FunctionAnswer).
type SubscriberStep struct {
	Design design.Design `json:"design"`
	Final  bool          `json:"final"`
	// Settings are the timing settings the props resolve to.
	Settings timing.SubscriberSettings `json:"settings"`
	// Problems (with Final) are every problem, one line each, each naming
	// the property, the problem type, the value and the cap: the construct
	// adds them as its validation, and synth fails with all of them.
	Problems []string `json:"problems"`
	// HandlerRoleID (with Final) is the handler role's unique id (a token),
	// or "" when it is unknown.
	HandlerRoleID string `json:"handlerRoleId,omitempty"`
}

// queueFacts is what the subscriber's first step read: its stack's
// account and region and its queues' ARNs (tokens).
type queueFacts struct {
	Account            string `json:"account"`
	Region             string `json:"region"`
	QueueArn           string `json:"queueArn"`
	DeadLetterQueueArn string `json:"deadLetterQueueArn"`
}

// DefaultHandlerMemoryMB is the handler's memory when its props set none:
// above Lambda's 128 MB default, which also buys CPU for a batch's
// validation and a store's destructive call.
const DefaultHandlerMemoryMB = 256

// lambdaDefaultTimeoutSeconds is Lambda's timeout for a function that sets none.
const lambdaDefaultTimeoutSeconds = 3

// globalSNSPrincipal is the principal SNS presents between default regions.
const globalSNSPrincipal = "sns.amazonaws.com"

// Subscriber is the next step of building an ErasureSubscriber: the design
// of its next step, decided from in alone. The first makes the
// construct, its key and queues (and, when it builds the handler, its log
// group and role) and reads their tokens; the next makes the function and
// wires everything. Problems never stop it: every problem is collected, the
// resources are built with the safe defaults, and the construct's
// validation fails the synth with all of them.
func Subscriber(in SubscriberInput) SubscriberStep {
	c := contract.Channel()
	if in.Constants != nil {
		c = *in.Constants
	}
	if a := in.QueuesAnswer; a != nil {
		in.Topic = cmp.Or(in.Topic, a.Topic)
		in.ResponseQueue = cmp.Or(in.ResponseQueue, a.ResponseQueue)
	}
	path := problem.Root("ErasureSubscriber").Key(in.Name)
	settings, problems := resolveSubscriber(in, c, path)
	// Build with the checked settings when they hold, else with the safe
	// defaults, so that CDK's own range checks never pre-empt the full list.
	// Only the props' problems count here: those of the topic and the
	// response queue are known after the first step, which builds the
	// queues, and fail the synth all the same.
	build := settings
	if slices.ContainsFunc(problems, func(p problem.Problem) bool { return !sharedObject(p.Path, path) }) {
		build = timing.Defaults(c)
	}
	step := SubscriberStep{Settings: settings}
	validName := contract.IsSubscriberName(in.Name)
	builds := in.HandlerProps != nil && in.Handler == nil
	ownRole := builds && in.HandlerProps.Role == nil && !in.HandlerProps.LogGroup

	if in.QueuesAnswer == nil {
		step.Design = queuesDesign(in, build, validName, ownRole)
		return step
	}
	queuesRead := in.QueuesAnswer
	if (in.HasTopic && in.Topic == nil) || (in.HasResponseQueue && in.ResponseQueue == nil) {
		// A fault of the applier: the first step reads both.
		panic("plan: the first step's answer lacks the topic's or the response queue's facts")
	}
	learned := &queueFacts{
		Account: queuesRead.Account, Region: queuesRead.Region,
		QueueArn: queuesRead.Queues[design.NameQueue].Arn, DeadLetterQueueArn: queuesRead.Queues[design.NameDeadLetterQueue].Arn,
	}

	// The wiring, in one step (two when CDK makes the handler's role
	// and the locks must name it).
	d := design.NewDesign()
	if t := in.Topic; t != nil {
		d.Subscriptions = append(d.Subscriptions, subscriptionTo(t, learned))
	}

	env := handlerEnvironment(in, queuesRead.Queues[design.NameQueue].URL, build)
	var fn design.Name         // the handler, "" for none
	var role *design.RoleFacts // the handler's role, nil for none
	switch {
	case in.Handler != nil && in.HandlerProps == nil:
		fn = design.NameHandler
		for _, k := range slices.Sorted(maps.Keys(env)) {
			d.Variables = append(d.Variables, design.Variable{Function: fn, Name: k, Value: env[k]})
		}
		role = in.Handler.Role
	case builds:
		f := design.LambdaFunction{Scope: design.NameThis, ID: "Handler", Props: design.NameHandlerProps, TimeoutSeconds: build.HandlerTimeoutSeconds, As: design.NameFunction}
		for _, k := range slices.Sorted(maps.Keys(env)) {
			f.Environment = append(f.Environment, design.EnvEntry{Name: k, Value: env[k]})
		}
		if !in.HandlerProps.FunctionName && validName {
			// SQS names an answer's sender "<role id>:<function name>": the
			// response reader's roster recognises the store by it.
			f.FunctionName = contract.HandlerName(in.Name)
		}
		if !in.HandlerProps.MemorySize {
			f.MemorySize = DefaultHandlerMemoryMB
		}
		if ownRole {
			// logs:CreateLogStream and logs:PutLogEvents on this group
			d.LogWrites = append(d.LogWrites, design.LogWrite{LogGroup: design.NameLogGroup, Grantee: design.NameRole})
			f.Role, f.LogGroup = design.NameRole, design.NameLogGroup
		}
		d.Functions = append(d.Functions, f)
		fn = design.NameFunction
		switch {
		case ownRole:
			role = ptr(queuesRead.Roles[design.NameRole])
		case in.HandlerProps.Role != nil:
			role = in.HandlerProps.Role
		default:
			// CDK makes the function a role of its own: make the function
			// now, and ask.
			if in.FunctionAnswer == nil {
				d.Reads = &design.Reads{FunctionRoles: []design.Name{design.NameFunction}}
				step.Design = d
				return step
			}
			role = in.FunctionAnswer.FunctionRoles[design.NameFunction]
			d = design.NewDesign() // the function is made: the rest goes to a third step
		}
	}
	admins := in.Administrators
	if len(admins) == 0 {
		admins = []string{channelpolicy.DefaultAdministrators(in.Partition, learned.Account, learned.Region)}
	}
	queue := design.ResourceLock(design.NameQueue, learned.QueueArn)
	if fn != "" {
		d.EventSources = append(d.EventSources, design.EventSource{Function: fn, Queue: design.NameQueue, BatchSize: build.BatchSize, WindowSeconds: build.MaxBatchingWindowSeconds})
		if in.ResponseQueue != nil {
			d.Grants = append(d.Grants, sendGrants(design.NameResponseQueue, in.ResponseQueue.HasKey, fn)...)
		}
		d.Grants = append(d.Grants, sendGrants(design.NameQueue, true, fn)...) // pass two re-sends to the store's own queue
		if role == nil {
			queue.AdministeredBy(channelpolicy.Queue, admins, channelpolicy.QueueData)
			d.Locks = append(d.Locks, queue.Build())
		} else {
			var topics []string
			if in.Topic != nil {
				topics = []string{in.Topic.Arn}
			}
			d.Locks = append(d.Locks, lockDown(queue, learned, role.Arn, admins, topics)...)
			if role.ID != nil {
				step.HandlerRoleID = *role.ID
				// Pass two is proven by identity: the handler accepts its
				// marker only from "<this role id>:<its function name>".
				d.Variables = append(d.Variables, design.Variable{Function: fn, Name: contract.EnvHandlerRoleID, Value: *role.ID})
				// The account service authenticates the store's answers by
				// this role id: cdk deploy --outputs-file hands it to
				// erasurectl watch --role-ids-from.
				d.Outputs = append(d.Outputs, design.Output{Scope: design.NameThis, ID: "HandlerRoleId",
					Description: "Erasure store " + in.Name + ": <store>=<its handler role's unique id>, for the account service's roster",
					LogicalID:   contract.RoleIDOutputPrefix + contract.NameDigest(in.Name), Join: []string{in.Name + "=", *role.ID}})
				if ledger := topicAccount(in.Topic); validName && ledger != "" && ledger != learned.Account {
					// A store outside the channel's account joins with its
					// own deploy: the ledger's reader reads this id itself.
					d.LookupRoles = append(d.LookupRoles, lookupRole(in.Partition, ledger, in.Name, role.Arn))
					d.Suppressions = append(d.Suppressions, design.NewSuppression(map[string]string{"NIST.800.53.R5-IAMNoInlinePolicy": design.ReasonLookupInline}, design.NameLookupRole))
				}
			} else {
				problems.Add(path.Child("handler").Child("role"), problem.Missing, "the handler's role is imported, so its unique id (RoleId) is unknown and the handler cannot prove a pass-two marker its own: give the handler a role built in this app")
			}
		}
	} else {
		queue.AdministeredBy(channelpolicy.Queue, admins, channelpolicy.QueueData)
		d.Locks = append(d.Locks, queue.Build())
	}

	addAlarms(&d, in.Name, build)
	addSuppressions(&d, fn, ownRole)
	step.Design, step.Final = d, true
	problems.Name(subscriberRule(path))
	step.Problems = problems.Refusals()
	if step.Problems == nil {
		step.Problems = []string{}
	}
	return step
}

// handlerEnvironment is what the construct tells the handler: its
// subscriber, its own queue (pass two), the pass-two delay, the batch
// timeout and the response queue.
func handlerEnvironment(in SubscriberInput, queueURL string, build timing.SubscriberSettings) map[string]string {
	env := map[string]string{
		contract.EnvSubscriber:          in.Name,
		contract.EnvQueueURL:            queueURL,
		contract.EnvPassTwoDelaySeconds: strconv.Itoa(build.PassTwoDelaySeconds),
		contract.EnvBatchTimeoutSeconds: strconv.Itoa(build.BatchTimeoutSeconds),
	}
	if in.ResponseQueue != nil {
		env[contract.EnvResponseQueueURL] = in.ResponseQueue.URL
	}
	return env
}

// subscriptionTo is the store queue's subscription to the erasure topic t.
func subscriptionTo(t *design.TopicFacts, learned *queueFacts) design.Subscription {
	principal := iameval.SNSServicePrincipal(topicRegion(t), known(learned.Region))
	if t.RestrictsSqsDecryption && principal == globalSNSPrincipal {
		// CDK's own subscription scopes both statements to the topic under
		// this flag.
		return design.Subscription{Topic: design.NameTopic, Queue: design.NameQueue}
	}
	// Like SqsSubscription: a topic imported by ARN names its region, so a
	// store in another region subscribes across regions.
	region := ""
	if !IsToken(t.Arn) {
		if parts := strings.Split(t.Arn, ":"); len(parts) > 3 {
			region = parts[3]
		}
	}
	return design.Subscription{Topic: design.NameTopic, Queue: design.NameQueue, Scoped: true, Key: design.NameKey, Principal: principal, TopicArn: t.Arn, Region: region}
}

// addAlarms adds the subscriber's two alarms: a request dead-lettered, and
// a message older than the store's worst case.
func addAlarms(d *design.Design, name string, build timing.SubscriberSettings) {
	d.Alarms = append(d.Alarms,
		design.DeadLetterAlarm(design.NameThis, "DeadLetterAlarm", design.NameDeadLetterQueue,
			"Erasure requests for subscriber "+name+" reached the dead-letter queue: they were not handled and need an operator.", design.NameDeadLetterAlarm),
		design.OldestMessageAlarm(design.NameThis, "OldestMessageAlarm", design.NameQueue, build.WorstCaseSeconds(),
			fmt.Sprintf("A message on subscriber %s's erasure queue is older than the store's worst case of %d s: the handler is not consuming.", name, build.WorstCaseSeconds()),
			design.NameOldestMessageAlarm))
}

// addSuppressions adds the subscriber's cdk-nag suppressions, each on the
// resources it concerns only: cdk-nag writes its reasons into every
// resource it is applied to, and a subscriber-wide suppression quintupled
// each store's template. fn is the handler ("" for none); ownRole says the
// construct built its role and log group.
func addSuppressions(d *design.Design, fn design.Name, ownRole bool) {
	d.Suppressions = append(d.Suppressions, design.AlarmActionsSuppression(design.NameDeadLetterAlarm, design.NameOldestMessageAlarm))
	if fn != "" {
		handler := []design.Name{fn} // a function's own default role is its child
		if ownRole {
			handler = append(handler, design.NameRole, design.NameLogGroup)
		}
		d.Suppressions = append(d.Suppressions, design.NewSuppression(design.FunctionReasons(design.ReasonLambdaDLQ), handler...))
	}
	// The subscription is the queue's child; the queue itself has a redrive policy.
	d.Suppressions = append(d.Suppressions, design.NewSuppression(map[string]string{"Serverless-SNSRedrivePolicy": design.ReasonSNSRedrive, "Serverless-SQSRedrivePolicy": design.ReasonDLQRedrive},
		design.NameQueue, design.NameDeadLetterQueue))
}

// queuesDesign is the subscriber's first design: the construct, its key and
// queues (and, when it builds the handler with a role of its own, its log
// group and role), and the tokens the wiring names them by.
func queuesDesign(in SubscriberInput, build timing.SubscriberSettings, validName, ownRole bool) design.Design {
	d := design.NewDesign()
	if !in.Self {
		d.Scope = &design.Scope{Under: design.NameScope, ID: in.ID, As: design.NameThis}
	}
	d.Keys = []design.Key{{Scope: design.NameThis, ID: "Key", Description: "Erasure queue and dead-letter queue of subscriber " + in.Name, As: design.NameKey}}
	pair := design.QueuePair{Scope: design.NameThis, Key: design.NameKey, RetentionSeconds: build.RetentionSeconds, MaxReceiveCount: build.MaxReceiveCount,
		VisibilitySeconds: build.VisibilityTimeoutSeconds, QueueAs: design.NameQueue, DeadLetterAs: design.NameDeadLetterQueue}
	if validName {
		// The name the channel's topic admits a subscription for.
		pair.QueueName = contract.QueueName(in.Name)
	}
	d.QueuePairs = []design.QueuePair{pair}
	d.Reads = &design.Reads{Stack: design.NameThis, Queues: []design.Name{design.NameQueue, design.NameDeadLetterQueue}}
	if in.HasTopic && in.Topic == nil {
		d.Reads.Topic = design.NameTopic
	}
	if in.HasResponseQueue && in.ResponseQueue == nil {
		d.Reads.ResponseQueue = design.NameResponseQueue
	}
	if ownRole {
		// Least privilege instead of AWSLambdaBasicExecutionRole: the
		// handler may write to its own log group and nothing else.
		d.LogGroups = []design.LogGroup{{Scope: design.NameThis, ID: "HandlerLogs", RetentionDays: handlerLogRetentionDays, As: design.NameLogGroup}}
		r := design.Role{Scope: design.NameThis, ID: "HandlerRole", Service: LambdaService, Description: "Erasure handler of subscriber " + in.Name, As: design.NameRole}
		if validName {
			// The name the channel's roster admits (contract.HandlerName).
			r.RoleName = contract.HandlerName(in.Name)
			// The path the channel's shared policies admit once for every
			// store (contract.HandlerRolePath).
			r.Path = contract.HandlerRolePath
		}
		d.Roles = []design.Role{r}
		d.Reads.Roles = []design.Name{design.NameRole}
	}
	return d
}

// LambdaService is the service principal a handler's role trusts.
const LambdaService = "lambda.amazonaws.com"

// handlerLogRetentionDays is how long the handler's log group keeps its
// events: one month (CloudWatch Logs' ONE_MONTH).
const handlerLogRetentionDays = 30

func ptr[T any](v T) *T { return &v }

// topicAccount is the account of a topic imported by ARN, "" when the ARN
// is a token (a topic of this app: the ledger reads the id there itself).
func topicAccount(t *design.TopicFacts) string {
	if t == nil || IsToken(t.Arn) {
		return ""
	}
	if f := strings.SplitN(t.Arn, ":", 6); len(f) == 6 && contract.IsAWSAccountID(f[4]) {
		return f[4]
	}
	return ""
}

// lookupRole is the store's lookup role (contract.RosterLookupRoleName):
// the ledger's reader of the channel's account, and no other principal, may
// assume it, and it may read the store's handler role (iam:GetRole on that
// one role) and nothing else, so that the reader learns the role's unique id
// without the channel team's deploy.
func lookupRole(partition, ledgerAccount, store, handlerRoleArn string) design.LookupRole {
	reader := contract.LedgerRoleARN(partition, ledgerAccount, contract.LedgerReaderRoleName)
	return design.LookupRole{
		Scope: design.NameThis, ID: "RosterLookupRole", As: design.NameLookupRole,
		RoleName:    contract.RosterLookupRoleName(store),
		Path:        contract.RosterLookupRolePath,
		Description: "Erasure store " + store + ": lets the channel's ledger reader read its handler role's id",
		AssumeRolePolicy: design.PolicyDocument{Version: design.PolicyVersion, Statement: []design.Statement{{
			Effect: design.Allow, Action: design.One("sts:AssumeRole").Ref(),
			Principal: &design.Principal{AWS: design.One("arn:" + partition + ":iam::" + ledgerAccount + ":root")},
			// The reader by ARN: it need not exist when the store deploys.
			Condition: design.Conditions{"ArnEquals": {"aws:PrincipalArn": design.One(reader)}},
		}}},
		Policies: []design.InlinePolicy{{PolicyName: "ReadTheHandlerRoleId", Document: design.PolicyDocument{Version: design.PolicyVersion,
			Statement: []design.Statement{{Effect: design.Allow, Action: design.One("iam:GetRole").Ref(), Resource: design.One(handlerRoleArn).Ref()}}}}},
	}
}

// lockDown locks the store's queues and key to their path: only
// administrators act off the data path; only the erasure topic (through SNS)
// and the handler (pass two) send; only the handler consumes, reads the
// queue's attributes and uses the key besides SNS; nobody sends to the
// dead-letter queue, and only administrators read it.
func lockDown(q *design.LockBuilder, learned *queueFacts, roleArn string, admins, topics []string) []design.Lock {
	q.AdministeredBy(channelpolicy.Queue, admins, channelpolicy.QueueData)
	// Taking requests off the store's queue is denied to every principal but
	// the handler's role (the event source polls with it), in any account,
	// whatever its own policies allow: a request read by anyone else is a
	// request the store never erases.
	q.Deny("OnlyTheHandlerConsumes", channelpolicy.QueueConsume, nil, design.Conditions{"ArnNotEquals": {"aws:PrincipalArn": design.One(roleArn)}})
	q.OnlyFrom("OnlyTheTopicAndTheHandlerSend", []string{"sqs:SendMessage"}, []string{roleArn}, topics)
	q.OnlyFrom("OnlyTheHandlerAndAdministratorsReadAttributes", []string{"sqs:GetQueueAttributes"}, append([]string{roleArn}, admins...), nil)

	dlq := design.ResourceLock(design.NameDeadLetterQueue, learned.DeadLetterQueueArn)
	consumeOrRead := append(append([]string{}, channelpolicy.QueueConsume...), "sqs:GetQueueAttributes")
	dlq.AdministeredBy(channelpolicy.DeadLetters, admins, consumeOrRead)
	dlq.NoOne("NoOneSendsDeadLetters", []string{"sqs:SendMessage"})
	dlq.OnlyFrom("OnlyAdministratorsConsume", consumeOrRead, admins, nil)

	k := design.KeyLock(design.NameKey)
	k.AdministeredBy(channelpolicy.QueueKey, admins, channelpolicy.KeyUse)
	k.OnlyFrom("OnlyTheDataPathUsesTheKey", channelpolicy.KeyUse, []string{roleArn}, topics)
	return []design.Lock{q.Build(), dlq.Build(), k.Build()}
}

// sendGrants let grantee send to q and nothing more: sqs:SendMessage, and
// on an encrypted queue the two key actions SendMessage needs, on its key
// (CDK's grantSendMessages adds kms:Encrypt, kms:ReEncrypt* and
// kms:GenerateDataKey*).
func sendGrants(q design.Name, hasKey bool, grantee design.Name) []design.Grant {
	grants := []design.Grant{{Resource: q, Grantee: grantee, Actions: []string{"sqs:SendMessage"}}}
	if hasKey {
		grants = append(grants, design.Grant{Resource: q, QueueKey: true, Grantee: grantee, Actions: []string{"kms:GenerateDataKey", "kms:Decrypt"}})
	}
	return grants
}

// sharedObject says whether p is a problem of the topic or the response
// queue the subscriber was given (under path).
func sharedObject(p, path problem.Path) bool {
	s := p.String()
	return s == path.Child("topic").String() || s == path.Child("responseQueue").String()
}

// topicRegion is the topic's region as SNS's principal is decided by it:
// its ARN's, else its stack's, else unknown ("").
func topicRegion(t *design.TopicFacts) string {
	if !IsToken(t.Arn) {
		return iameval.ARNRegion(t.Arn)
	}
	return known(t.StackRegion)
}

// known is s, or "" when s is a token.
func known(s string) string {
	if IsToken(s) {
		return ""
	}
	return s
}

// IsToken says whether s holds an unresolved token, as Token.isUnresolved
// decides for a string: CDK's encoding ${Token[…]} (TokenString's) or
// #{Token[…]} (a list token's element), with letters, digits, _ and . inside.
// Matched by hand: the regexp package was a tenth of the WebAssembly module.
func IsToken(s string) bool {
	for i := 0; i+len("${Token[]}") <= len(s); i++ {
		if (s[i] != '$' && s[i] != '#') || s[i+1:i+1+len("{Token[")] != "{Token[" {
			continue
		}
		j := i + len("${Token[")
		k := j
		for k < len(s) && (s[k] == '_' || s[k] == '.' || '0' <= s[k] && s[k] <= '9' || 'a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z') {
			k++
		}
		if k > j && k+1 < len(s) && s[k] == ']' && s[k+1] == '}' {
			return true
		}
	}
	return false
}

// resolveSubscriber turns the props into timing settings and lists every problem.
func resolveSubscriber(p SubscriberInput, c contract.Constants, path problem.Path) (timing.SubscriberSettings, problem.List) {
	var l problem.List
	s := timing.Defaults(c)
	field := path.Child

	if !contract.IsSubscriberName(p.Name) {
		l.Add(field("name"), problem.Invalid, "%q is not a subscriber name: 1 to 64 of a-z, 0-9 and -, starting with a letter, not ending with -", p.Name)
	}
	if !p.HasTopic && p.Topic == nil {
		l.Add(field("topic"), problem.Invalid, "the erasure topic is required")
	} else if p.Topic != nil && p.Topic.FIFO {
		l.Add(field("topic"), problem.FIFO, "a FIFO topic cannot deliver to a standard queue, and pass two needs per-message delay")
	}
	if !p.HasResponseQueue && p.ResponseQueue == nil {
		l.Add(field("responseQueue"), problem.Invalid, "the response queue is required")
	} else if p.ResponseQueue == nil {
		// read by the first step: checked in the next step
	} else if p.ResponseQueue.FIFO {
		l.Add(field("responseQueue"), problem.FIFO, "the channel's response queue is a standard queue")
	} else if !p.ResponseQueue.HasKey && !p.ResponseQueue.InApp {
		l.Add(field("responseQueue"), problem.Missing, "imported without its key, so the handler cannot be granted the key every answer is encrypted with; "+
			"import it with its queue ARN and its key ARN (Queue.fromQueueAttributes with queueArn <ErasureResponseQueueArn> and keyArn <ErasureResponseKeyArn>, the channel stack's outputs)")
	}
	if (p.Handler == nil) == (p.HandlerProps == nil) {
		l.Add(field("handler"), problem.Invalid, "give exactly one of handler and handlerProps")
	}

	timeoutOK := true
	if p.HandlerTimeout != nil {
		s.HandlerTimeoutSeconds, timeoutOK = WholeSeconds(&l, field("handlerTimeout"), p.HandlerTimeout)
	}
	if p.Handler != nil {
		fnSeconds, ok := lambdaDefaultTimeoutSeconds, true
		if t := p.Handler.Timeout; t != nil {
			fnSeconds, ok = WholeSeconds(&l, path.Child("handler").Child("timeout"), t)
		}
		switch {
		case !ok:
			timeoutOK = false
		case p.HandlerTimeout == nil:
			s.HandlerTimeoutSeconds = fnSeconds
		case timeoutOK && fnSeconds != s.HandlerTimeoutSeconds:
			l.Add(field("handlerTimeout"), problem.NotDerived, "%d s differs from the handler function's timeout of %d s", s.HandlerTimeoutSeconds, fnSeconds)
		}
	}
	if p.HandlerProps != nil && p.HandlerProps.Timeout {
		l.Add(path.Child("handlerProps").Child("timeout"), problem.Invalid, "set handlerTimeout, not handlerProps.timeout: the construct derives the queue from it")
	}
	s.VisibilityTimeoutSeconds = timing.VisibilityFor(c, s.HandlerTimeoutSeconds)
	if p.VisibilityTimeout != nil {
		if v, ok := WholeSeconds(&l, field("visibilityTimeout"), p.VisibilityTimeout); ok && timeoutOK {
			s.VisibilityTimeoutSeconds = v
		}
	}
	overrideNumber(&l, field("maxReceiveCount"), p.MaxReceiveCount, &s.MaxReceiveCount)
	overrideSeconds(&l, field("passTwoDelay"), p.PassTwoDelay, &s.PassTwoDelaySeconds)
	if p.BatchTimeout != nil {
		if v, ok := WholeSeconds(&l, field("batchTimeout"), p.BatchTimeout); ok {
			s.BatchTimeoutSeconds = v
		}
	} else if s.HandlerTimeoutSeconds < s.BatchTimeoutSeconds && timeoutOK {
		s.BatchTimeoutSeconds = max(s.HandlerTimeoutSeconds, 1) // a shorter handler gets a batch timeout that fits
	}
	overrideNumber(&l, field("batchSize"), p.BatchSize, &s.BatchSize)
	overrideSeconds(&l, field("maxBatchingWindow"), p.MaxBatchingWindow, &s.MaxBatchingWindowSeconds)
	overrideSeconds(&l, field("retentionPeriod"), p.RetentionPeriod, &s.RetentionSeconds)
	if timeoutOK {
		l = append(l, s.Check(c, path)...)
	}
	return s, l
}

// WholeSeconds reads d as whole seconds. ok is false, with a problem added,
// for an unresolved token or a fraction of a second.
func WholeSeconds(l *problem.List, path problem.Path, d *DurationFact) (int, bool) {
	if d.Unresolved {
		l.Add(path, problem.UnresolvedToken, "a token cannot be checked against its cap at synth; give a literal duration")
		return 0, false
	}
	ms := d.Millis
	if ms != math.Trunc(ms) || math.Mod(ms, 1000) != 0 {
		l.Add(path, problem.Invalid, "%g ms is not a whole number of seconds", ms)
		return 0, false
	}
	return int(ms / 1000), true
}

// overrideSeconds sets *dst from d when d is given and reads as whole seconds.
func overrideSeconds(l *problem.List, path problem.Path, d *DurationFact, dst *int) {
	if d == nil {
		return
	}
	if v, ok := WholeSeconds(l, path, d); ok {
		*dst = v
	}
}

// overrideNumber sets *dst from n when n is given and is a whole number.
func overrideNumber(l *problem.List, path problem.Path, n *NumberFact, dst *int) {
	if n == nil {
		return
	}
	if n.Unresolved {
		l.Add(path, problem.UnresolvedToken, "a token cannot be checked against its cap at synth; give a literal number")
		return
	}
	if n.Value != math.Trunc(n.Value) {
		l.Add(path, problem.Invalid, "%g is not a whole number", n.Value)
		return
	}
	*dst = int(n.Value)
}
