package erasure

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelmeta"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/contract"
)

// ErasureChannelProps configures the channel.
type ErasureChannelProps struct {
	// Stores is the roster: every store that may answer, by name and account.
	// The response queue then accepts sqs:SendMessage only from the roster's
	// handler roles (named by contract.HandlerName, which ErasureSubscriber gives its
	// handler) and denies every other sender, in any account; the accounts of
	// stores outside the channel's account may subscribe an SQS queue.
	Stores []RosterStore
	// StoreAccounts is the older, broader form: every principal of these
	// accounts may subscribe and answer. Refused together with Stores.
	StoreAccounts []string
	// OrganizationID (o-…) admits the handler path of every account of the
	// AWS organisation (aws:PrincipalOrgID) instead of naming the roster's
	// accounts in the shared policies: no policy of the channel then grows
	// with the accounts, and a store in an account new to the roster changes
	// no policy. The ledger's reader still counts an answer only from a
	// roster store's exact handler role. Default: the roster's accounts, by
	// id (a channel without an organisation; about 435 store accounts fit
	// SQS's 8,192-byte queue policy).
	OrganizationID string
	// TopicName and ResponseQueueName give the topic and the response queue
	// physical names, so that a store in another account can build their ARNs
	// from the channel's account and region. Default: names CDK generates.
	TopicName         string
	ResponseQueueName string
	// Publishers are the account service's publishing principals, by IAM
	// role or user ARN (they need not exist yet: the topic names them through
	// aws:PrincipalArn). The topic then allows sns:Publish, and its key the
	// data keys, to them alone and denies them to every other principal in
	// every account. The app-wide check refuses a channel without them.
	Publishers []string
	// ResponseReaders are the principals that read answers (receive, delete,
	// change visibility), by ARN: every other principal is denied. Default:
	// Publishers (the account service both publishes and reads).
	ResponseReaders []string
	// Administrators are the ARN patterns of the principals that deploy and
	// operate the channel, in any of its accounts: they alone may change a
	// channel resource's policy or attributes, delete it, read its dead
	// letters, or subscribe a roster store's queue. Default: the
	// CloudFormation execution role of CDK's default bootstrap in each of the
	// roster's accounts (channelpolicy.DefaultAdministrators).
	Administrators []string
	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// ErasureChannel is the part of the channel deployed once: the erasure topic
// under its own KMS key, and the response queue with its dead-letter queue
// under another.
type ErasureChannel struct {
	constructs.Construct

	// TopicKey encrypts Topic. It is never a subscriber queue's key.
	TopicKey awskms.Key
	// Topic is the erasure topic (standard, TLS only).
	Topic awssns.Topic
	// ResponseKey encrypts ResponseQueue and ResponseDeadLetterQueue.
	ResponseKey awskms.Key
	// ResponseQueue receives every store's answers.
	ResponseQueue awssqs.Queue
	// ResponseDeadLetterQueue receives an answer after N receives.
	ResponseDeadLetterQueue awssqs.Queue
	// ResponseDeadLetterAlarm fires when an answer reached the dead-letter queue.
	ResponseDeadLetterAlarm awscloudwatch.Alarm
	// OldestResponseAlarm fires when an answer has waited longer than R: the
	// request it answers has expired and the account service is not reading.
	OldestResponseAlarm awscloudwatch.Alarm
	// RefusedAnswersAlarm fires when the account service's response reader
	// refused an answer whose sender is not the handler of the store it names
	// (contract.MetricAnswersRefused): a forged or misrouted answer.
	RefusedAnswersAlarm awscloudwatch.Alarm
	// ConflictingAnswersAlarm fires when a store's answer contradicted its
	// earlier answer to the same round (contract.MetricAnswersConflicting):
	// DONE after NOT_APPLICABLE, or the reverse.
	ConflictingAnswersAlarm awscloudwatch.Alarm
	// LedgerRefusedAnswersAlarm fires when the account service's ledger
	// refused an authenticated answer (contract.LedgerRefusalCodes).
	LedgerRefusedAnswersAlarm awscloudwatch.Alarm
	// ExhaustedRebroadcastsAlarm fires when an erasure's last broadcast
	// (maxBroadcasts) expired without every answer.
	ExhaustedRebroadcastsAlarm awscloudwatch.Alarm
	// OverdueRequestsAlarm fires while an erasure is incomplete within
	// erasureDeadlineWarningSeconds of its one-month deadline.
	OverdueRequestsAlarm awscloudwatch.Alarm
	// ReceiptLogRefusedAlarm fires when the ledger refuses to sign a record
	// of its receipt log that it did not write (LOG_FORGED): the log grows no
	// more until an operator removes the record.
	ReceiptLogRefusedAlarm awscloudwatch.Alarm
	// ReceiptLogRolledBackAlarm fires when the ledger's log does not extend
	// the head its anchor holds (LOG_ROLLED_BACK).
	ReceiptLogRolledBackAlarm awscloudwatch.Alarm

	env                         stackEnv // the channel stack's account and region, read once
	roster                      roster
	publishers, responseReaders []string
	organization                string
}

// RosterMetadataKey marks the response queue with the roster's store names
// (ErasureChannelProps.Stores), so that tools reading a cloud assembly
// (erasurectl watch) know which stores every round waits for.
const RosterMetadataKey = channelmeta.RosterMetadataKey

// NewErasureChannel builds the topic and the response queue.
func NewErasureChannel(scope constructs.Construct, id *string, props *ErasureChannelProps) *ErasureChannel {
	this := constructs.NewConstruct(scope, id)
	if props == nil {
		props = &ErasureChannelProps{}
	}
	c := constantsOr(props.Constants)
	env := envOf(this)
	ch := &ErasureChannel{Construct: this, env: env, roster: newRoster(props.Stores, env.account), publishers: props.Publishers, responseReaders: props.ResponseReaders,
		organization: props.OrganizationID}
	if len(ch.responseReaders) == 0 {
		ch.responseReaders = props.Publishers
	}
	var problems problem.List
	for i, a := range props.StoreAccounts {
		if !isAccountID(a) {
			problems.Add(problem.Root("ErasureChannel").Child("storeAccounts").Index(i), problem.Invalid, "%q is not a 12-digit AWS account id", a)
		}
	}
	problems = append(problems, checkRoster(props.Stores, props.StoreAccounts)...)
	if o := props.OrganizationID; o != "" && !contract.IsOrganizationID(o) {
		problems.Add(problem.Root("ErasureChannel").Child("organizationId"), problem.Invalid, "%q is not an AWS Organizations id: o- and 10 to 32 of a-z and 0-9", o)
	} else if o != "" && len(props.Stores) == 0 {
		problems.Add(problem.Root("ErasureChannel").Child("organizationId"), problem.Invalid, "an organisation admits the roster's handlers (Stores): give the roster, not StoreAccounts")
	}
	checkPrincipalArns(&problems, problem.Root("ErasureChannel").Child("publishers"), props.Publishers, false)
	checkPrincipalArns(&problems, problem.Root("ErasureChannel").Child("responseReaders"), props.ResponseReaders, false)
	checkPrincipalArns(&problems, problem.Root("ErasureChannel").Child("administrators"), props.Administrators, true)

	ch.TopicKey = newKey(this, "TopicKey", "Erasure topic")
	ch.Topic = awssns.NewTopic(this, jsii.String("Topic"), &awssns.TopicProps{
		MasterKey:  ch.TopicKey,
		EnforceSSL: jsii.Bool(true),
		TopicName:  optional(props.TopicName),
	})
	// Marks the topic for the app-wide check (erasurecheck), which finds every
	// subscription to it in the synthesized templates (applied with the
	// roster's admission, in one call).
	topicMark := topicLock(ch.Topic)
	topicMark.MarkFlag(channelmeta.TopicMetadataKey, true)
	ch.ResponseKey = newKey(this, "ResponseKey", "Erasure response queue and its dead-letter queue")
	ch.ResponseQueue, ch.ResponseDeadLetterQueue = buildPair(this, ch.ResponseKey, design.QueuePair{
		IDPrefix: "Response", RetentionSeconds: c.QueueRetentionSeconds,
		MaxReceiveCount: c.MaxReceiveCount, QueueName: props.ResponseQueueName,
	})

	early := []*pendingLock{topicMark}
	if len(props.Stores) > 0 && len(problems) == 0 {
		early = append(early, ch.admitRoster(topicMark)...)
	}
	applyLocks(early...)
	if len(problems) == 0 {
		ch.lockDown(props)
	}
	if len(props.StoreAccounts) > 0 && len(problems) == 0 {
		var principals []awsiam.IPrincipal
		for _, a := range props.StoreAccounts {
			principals = append(principals, awsiam.NewAccountPrincipal(jsii.String(a)))
		}
		ch.admitAccounts("StoreAccounts", principals)
	}

	ch.newAlarms(this, c)
	suppress(map[string]string{"NIST.800.53.R5-CloudWatchAlarmAction": design.ReasonAlarmAction},
		ch.ResponseDeadLetterAlarm, ch.OldestResponseAlarm, ch.RefusedAnswersAlarm, ch.ConflictingAnswersAlarm, ch.LedgerRefusedAnswersAlarm,
		ch.ExhaustedRebroadcastsAlarm, ch.OverdueRequestsAlarm, ch.ReceiptLogRefusedAlarm, ch.ReceiptLogRolledBackAlarm)
	suppress(map[string]string{"Serverless-SQSRedrivePolicy": design.ReasonDLQRedrive}, ch.ResponseDeadLetterQueue)
	if len(problems) > 0 {
		this.Node().AddValidation(problemsValidation(problems))
	}
	return ch
}

// admitRoster lets the roster's handlers answer, in policies whose size does
// not depend on how many stores there are: the response queue allows
// sqs:SendMessage, and the response key its use through SQS, to the handler
// path (contract.HandlerRolePath) in the roster's accounts, named once each
// as bare ids (aws:PrincipalAccount), and denies it to every principal off
// the path in any account. A store that joins an account already on the
// roster changes no policy. The response reader authenticates every answer
// by its store's exact role id and function name, so a role under the path
// that is not a roster store's handler is refused and alarmed.
//
// The statements go to topic (the topic's) and to the locks it returns (the
// response queue's, with the roster's metadata, and its key's), for the
// caller to apply.
func (ch *ErasureChannel) admitRoster(topic *pendingLock) []*pendingLock {
	r := ch.roster
	handlers := rosterHandlers()
	responses := queueLock(ch.ResponseQueue)
	locks := []*pendingLock{responses}
	if ch.organization != "" || len(r.others) > 0 {
		key := keyLock(ch.ResponseKey)
		ch.admitRosterAccounts(ch.principalsOfOtherAccounts(), handlers, topic, responses, key)
		locks = append(locks, key)
	}
	responses.Deny("OnlyRosterHandlersAnswer", []string{"sqs:SendMessage"}, nil, design.Conditions{"ArnNotLike": {"aws:PrincipalArn": design.One(handlers)}})
	if !r.inChannelAccount {
		// No store of the channel's own account: its roles under the handler
		// path are no roster store's (a same-account role needs no Allow).
		responses.Deny("NoHandlerOfTheChannelAccountAnswers", []string{"sqs:SendMessage"}, nil, channelAccountHandlers(r.channelAccount, handlers))
	}
	names := make([]string, 0, len(r.stores))
	for _, st := range r.stores {
		names = append(names, st.Name)
	}
	// The roster's names grow with every store: they go to the cloud
	// assembly (the stack's metadata file), which tools read, and never into
	// the template, which keeps their number alone.
	ch.ResponseQueue.Node().DefaultChild().Node().AddMetadata(jsii.String(RosterMetadataKey), names, nil)
	responses.MarkCount(channelmeta.RosterSizeMetadataKey, len(names))
	accounts := r.accounts
	if ch.organization != "" {
		// The organisation stands for the roster's other accounts; the
		// channel's own is admitted only while a store is in it.
		responses.MarkText(channelmeta.OrganizationMetadataKey, ch.organization)
		accounts = nil
		if r.inChannelAccount {
			accounts = []string{r.channelAccount}
		}
	}
	responses.MarkList(channelmeta.RosterAccountsMetadataKey, accounts)
	return locks
}

// principalsOfOtherAccounts is the condition on the principal's account the
// shared policies admit the roster's other accounts by: the organisation
// (aws:PrincipalOrgID, one id however many accounts), or the roster's
// accounts other than the channel's, by id (aws:PrincipalAccount).
func (ch *ErasureChannel) principalsOfOtherAccounts() map[string]design.Values {
	if ch.organization != "" {
		return map[string]design.Values{"aws:PrincipalOrgID": design.One(ch.organization)}
	}
	return map[string]design.Values{"aws:PrincipalAccount": design.List(ch.roster.others...)}
}

// channelAccountHandlers is the condition of a principal under the handler
// path in the channel's own account.
func channelAccountHandlers(channelAccount, handlers string) design.Conditions {
	return design.Conditions{
		"StringEquals": {"aws:PrincipalAccount": design.One(channelAccount)},
		"ArnLike":      {"aws:PrincipalArn": design.One(handlers)},
	}
}

// lockDown locks every resource of the channel to the principals of its
// path: only administrators act off the data path; only publishers publish
// (and use the topic key, as SNS does for them); a subscription only for a
// store queue of the subscriber's own account, over SQS, from a roster
// account; only readers consume answers and only the roster's handlers
// (admitRoster) send them; nobody sends to a dead-letter queue. No statement
// names a store: the roster's accounts are listed once per policy at most.
func (ch *ErasureChannel) lockDown(props *ErasureChannelProps) {
	r := ch.roster
	channelAccount, region := r.channelAccount, ch.env.region
	admins := props.Administrators
	if len(admins) == 0 {
		if len(r.others) > 0 || ch.organization != "" {
			// One pattern for the default bootstrap's execution role of every
			// account: a roster account's own administrators subscribe its
			// stores, and off the data path every other account needs an
			// Allow no policy here gives.
			admins = []string{channelpolicy.DefaultAdministrators(partition(), "*", "*")}
		} else {
			admins = []string{channelpolicy.DefaultAdministrators(partition(), channelAccount, region)}
		}
	}
	readers := props.ResponseReaders
	if len(readers) == 0 {
		readers = props.Publishers
	}
	topic := topicLock(ch.Topic)
	topic.AdministeredBy(channelpolicy.Topic, admins, channelpolicy.TopicData)
	// SNS answers over plain HTTP too, and the topic's EnforceSSL denies only
	// sns:Publish without TLS: every other action is denied here.
	topic.Deny("EveryActionOverTLSOnly", nil, []string{"sns:Publish"}, design.Conditions{"Bool": {"aws:SecureTransport": design.One("false")}})
	topicKey := keyLock(ch.TopicKey)
	topicKey.AdministeredBy(channelpolicy.TopicKey, admins, channelpolicy.KeyUse)
	if len(props.Publishers) > 0 {
		topic.MarkList(channelpolicy.PublishersMetadataKey, props.Publishers)
		topic.OnlyFrom("OnlyPublishersPublish", []string{"sns:Publish"}, props.Publishers, nil)
		// SNS uses the key for the publisher (its ARN is the caller's). A
		// service principal needs an Allow of the key policy, which has none,
		// so the Deny leaves services out rather than name the topic (which
		// would be a dependency cycle: the topic names the key).
		topicKey.Deny("OnlyTheDataPathUsesTheKey", channelpolicy.KeyUse, nil, design.Conditions{
			"ArnNotLike": {"aws:PrincipalArn": design.List(props.Publishers...)},
			"Bool":       {"aws:PrincipalIsAWSService": design.One("false")},
		})
	}
	if len(r.stores) > 0 {
		ch.lockSubscriptions(topic, admins)
	}
	applyLocks(topic, topicKey)
	// Declared principals of another account (or of any, where the stack's
	// account is not known at synth) need the resource policies' Allow too.
	if others := otherAccounts(props.Publishers, channelAccount); len(others) > 0 {
		ch.Topic.AddToResourcePolicy(allowDeclared("PublishersPublish", others, props.Publishers, []string{*ch.Topic.TopicArn()}, nil, "sns:Publish"))
		ch.TopicKey.AddToResourcePolicy(allowDeclared("PublishersUseTheKeyViaSns", others, props.Publishers, []string{"*"},
			map[string]any{"kms:ViaService": fmt.Sprintf("sns.%s.amazonaws.com", region)}, channelpolicy.KeyUse...), nil)
	}
	if others := otherAccounts(readers, channelAccount); len(others) > 0 {
		consume := append(append([]string{}, channelpolicy.QueueConsume...), "sqs:GetQueueAttributes")
		ch.ResponseQueue.AddToResourcePolicy(allowDeclared("ReadersConsume", others, readers, []string{*ch.ResponseQueue.QueueArn()}, nil, consume...))
		ch.ResponseDeadLetterQueue.AddToResourcePolicy(allowDeclared("ReadersConsume", others, readers, []string{*ch.ResponseDeadLetterQueue.QueueArn()}, nil, consume...))
		ch.ResponseKey.AddToResourcePolicy(allowDeclared("ReadersDecryptViaSqs", others, readers, []string{"*"},
			map[string]any{"kms:ViaService": fmt.Sprintf("sqs.%s.amazonaws.com", region)}, "kms:Decrypt"), nil)
	}

	responses := queueLock(ch.ResponseQueue)
	responses.AdministeredBy(channelpolicy.ResponseQueue, admins, channelpolicy.QueueData)
	dlq := queueLock(ch.ResponseDeadLetterQueue)
	consumeOrRead := append(append([]string{}, channelpolicy.QueueConsume...), "sqs:GetQueueAttributes")
	dlq.AdministeredBy(channelpolicy.ResponseDLQ, admins, consumeOrRead)
	dlq.NoOne("NoOneSendsDeadLetters", []string{"sqs:SendMessage"})
	dlq.OnlyFrom("OnlyReadersAndAdministratorsConsume", consumeOrRead, append(append([]string{}, readers...), admins...), nil)
	key := keyLock(ch.ResponseKey)
	key.AdministeredBy(channelpolicy.ResponseKey, admins, channelpolicy.KeyUse)
	if len(readers) > 0 {
		responses.MarkList(channelpolicy.ReadersMetadataKey, readers)
		responses.OnlyFrom("OnlyReadersConsume", channelpolicy.QueueConsume, readers, nil)
		responses.OnlyFrom("OnlyReadersAndAdministratorsReadAttributes", []string{"sqs:GetQueueAttributes"}, append(append([]string{}, readers...), admins...), nil)
		if len(r.stores) > 0 {
			key.OnlyFrom("OnlyTheDataPathUsesTheKey", channelpolicy.KeyUse, append([]string{rosterHandlers()}, readers...), nil)
			if !r.inChannelAccount {
				key.Deny("NoHandlerOfTheChannelAccountUsesTheKey", channelpolicy.KeyUse, nil, channelAccountHandlers(channelAccount, rosterHandlers()))
			}
		}
	}
	applyLocks(responses, dlq, key)
}

// lockSubscriptions admits a subscription only for a store queue
// (contract.QueueNamePrefix) of the subscriber's own account, in any region,
// over SQS, asked by an administrator of a roster account: one statement for
// every account, through the policy variable ${aws:PrincipalAccount}. A
// principal of another account needs the Allow of admitRosterAccounts, which
// names only roster accounts; the channel's own account, when it holds no
// store, is denied outright.
func (ch *ErasureChannel) lockSubscriptions(topic *pendingLock, admins []string) {
	r := ch.roster
	subscribe := []string{"sns:Subscribe"}
	topic.OnlyFrom("OnlyAdministratorsSubscribe", subscribe, admins, nil)
	topic.Deny("SubscribeOnlySqs", subscribe, nil, design.Conditions{"StringNotEquals": {"sns:Protocol": design.One("sqs")}})
	topic.Deny("SubscribeOnlyStoreQueuesOfTheSubscribersAccount", subscribe, nil, design.Conditions{"StringNotLike": {
		"sns:Endpoint": design.One(fmt.Sprintf("arn:%s:sqs:*:${aws:PrincipalAccount}:%s*", partition(), contract.QueueNamePrefix))}})
	switch {
	case !r.knowsChannelAccount:
		// An environment-agnostic channel: its account is only known at
		// deploy, so the roster's accounts are named outright (or the
		// organisation is).
		who := map[string]design.Values{"aws:PrincipalAccount": design.List(r.accounts...)}
		if ch.organization != "" {
			who = map[string]design.Values{"aws:PrincipalOrgID": design.One(ch.organization)}
		}
		topic.Deny("SubscribeOnlyFromRosterAccounts", subscribe, nil, design.Conditions{"StringNotEquals": who})
	case !r.inChannelAccount:
		topic.Deny("NoOneOfTheChannelAccountSubscribes", subscribe, nil, design.Conditions{"StringEquals": {"aws:PrincipalAccount": design.One(r.channelAccount)}})
	}
}

// otherAccounts are the accounts of arns other than channelAccount (every
// one when channelAccount is unknown at synth).
func otherAccounts(arns []string, channelAccount string) []string {
	known := !isToken(&channelAccount)
	var out []string
	for _, a := range arns {
		acct := strings.SplitN(a, ":", 6)
		if len(acct) == 6 && (!known || acct[4] != channelAccount) {
			out = appendNew(out, acct[4])
		}
	}
	return out
}

// allowDeclared lets the declared principals arns, of accounts, take
// actions on resources: the accounts as principals, narrowed to those ARNs
// (aws:PrincipalArn, so that they need not exist yet).
func allowDeclared(sid string, accounts, arns, resources []string, also map[string]any, actions ...string) awsiam.PolicyStatement {
	var principals []awsiam.IPrincipal
	for _, a := range accounts {
		principals = append(principals, awsiam.NewAccountPrincipal(jsii.String(a)))
	}
	cond := map[string]any{"ArnEquals": map[string]any{"aws:PrincipalArn": arns}}
	if len(also) > 0 {
		cond["StringEquals"] = also
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String(sid), Actions: jsii.Strings(actions...), Principals: &principals,
		Resources: jsii.Strings(resources...), Conditions: &cond,
	})
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func appendNew(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// admitRosterAccounts lets the handler path of accounts (the roster's other
// than the channel's), named as bare ids, send to the response queue and use
// its key through SQS, and lets their principals subscribe an SQS queue (the
// topic's locks narrow it to their administrators and their own store queues):
// Allows for every principal, on topic, responses and key.
func (ch *ErasureChannel) admitRosterAccounts(accounts map[string]design.Values, handlers string, topic, responses, key *pendingLock) {
	region := ch.env.region
	with := func(more map[string]design.Values) map[string]design.Values {
		out := maps.Clone(accounts)
		maps.Copy(out, more)
		return out
	}
	topic.Allow("RosterSubscribeSqs", []string{"sns:Subscribe"}, design.Conditions{"StringEquals": with(map[string]design.Values{"sns:Protocol": design.One("sqs")})})
	responses.Allow("RosterSendResponses", []string{"sqs:SendMessage"}, design.Conditions{
		"StringEquals": accounts,
		"ArnLike":      {"aws:PrincipalArn": design.One(handlers)},
	})
	key.Allow("RosterEncryptResponsesViaSqs", []string{"kms:GenerateDataKey", "kms:Decrypt"}, design.Conditions{
		"StringEquals": with(map[string]design.Values{"kms:ViaService": design.One(fmt.Sprintf("sqs.%s.amazonaws.com", region))}),
		"ArnLike":      {"aws:PrincipalArn": design.One(handlers)},
	})
}

// admitAccounts (the older StoreAccounts form) lets every principal of other
// accounts subscribe an SQS queue to the topic, send to the response queue and
// use its key through SQS.
func (ch *ErasureChannel) admitAccounts(sidPrefix string, principals []awsiam.IPrincipal) {
	viaSQS := map[string]interface{}{"StringEquals": map[string]interface{}{
		"kms:ViaService": fmt.Sprintf("sqs.%s.amazonaws.com", ch.env.region),
	}}
	ch.Topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "SubscribeSqs"),
		Actions:    jsii.Strings("sns:Subscribe"),
		Principals: &principals,
		Resources:  jsii.Strings(*ch.Topic.TopicArn()),
		Conditions: &map[string]interface{}{"StringEquals": map[string]interface{}{"sns:Protocol": "sqs"}},
	}))
	ch.ResponseQueue.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "SendResponses"),
		Actions:    jsii.Strings("sqs:SendMessage"),
		Principals: &principals,
		Resources:  jsii.Strings(*ch.ResponseQueue.QueueArn()),
	}))
	ch.ResponseKey.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(sidPrefix + "EncryptResponsesViaSqs"),
		Actions:    jsii.Strings("kms:GenerateDataKey", "kms:Decrypt"),
		Principals: &principals,
		Resources:  jsii.Strings("*"), // in a key policy, "*" is this key
		Conditions: &viaSQS,
	}), nil)
}

// MetricAnswersRefused is the count of answers the response reader refused
// because their sender is not the handler of the store they name (all codes
// summed), per 5 minutes.
func (ch *ErasureChannel) MetricAnswersRefused(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return readerMetric(contract.MetricAnswersRefused, contract.CodeSenderNotOnRoster, opts)
}

// MetricAnswersConflicting is the count of answers that contradicted their
// store's earlier answer to the same round, per 5 minutes.
func (ch *ErasureChannel) MetricAnswersConflicting(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return readerMetric(contract.MetricAnswersConflicting, contract.CodeConflictingAnswer, opts)
}

// MetricLedgerRefusals is the sum of the ledger's refusals of authenticated
// answers over every ledger refusal code, per 5 minutes.
func (ch *ErasureChannel) MetricLedgerRefusals() awscloudwatch.MathExpression {
	return ledgerRefusals()
}

// The response reader's metrics are sums over 5 minutes unless asked
// otherwise.
const (
	readerMetricStatistic     = "Sum"
	readerMetricPeriodMinutes = 5
)

// readerMetric is one of the response reader's metrics, by its code, with
// opts (when given) over it: every field of opts that is set applies.
func readerMetric(name, code string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	props := &awscloudwatch.MetricProps{
		Namespace: jsii.String(contract.MetricNamespace), MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{contract.MetricDimensionCode: jsii.String(code)},
		Statistic:     jsii.String(readerMetricStatistic), Period: awscdk.Duration_Minutes(jsii.Number(readerMetricPeriodMinutes)),
	}
	if opts != nil {
		props.Statistic = cmp.Or(opts.Statistic, props.Statistic)
		if opts.Period != nil {
			props.Period = opts.Period
		}
		props.Label, props.Color, props.Account, props.Region = opts.Label, opts.Color, opts.Account, opts.Region
		if opts.Unit != "" {
			props.Unit = opts.Unit
		}
	}
	return awscloudwatch.NewMetric(props)
}

// ledgerRefusals is MetricLedgerRefusals: a math expression summing the
// reader's refusals of each ledger refusal code (contract.LedgerRefusalCodes),
// its terms r0, r1, ….
func ledgerRefusals() awscloudwatch.MathExpression {
	using := map[string]awscloudwatch.IMetric{}
	terms := make([]string, len(contract.LedgerRefusalCodes))
	for i, code := range contract.LedgerRefusalCodes {
		terms[i] = fmt.Sprintf("r%d", i)
		using[terms[i]] = readerMetric(contract.MetricAnswersRefused, code, nil)
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(strings.Join(terms, "+")), UsingMetrics: &using, Label: jsii.String("refused by the ledger"),
		Period: awscdk.Duration_Minutes(jsii.Number(readerMetricPeriodMinutes)),
	})
}

// GrantPublish lets grantee (the account service) publish to the topic,
// including the topic key's data-key permissions.
func (ch *ErasureChannel) GrantPublish(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.Topic.GrantPublish(grantee)
}

// GrantSendResponses lets grantee (a store handler in this account) answer.
// Stores in other accounts are allowed through StoreAccounts instead.
func (ch *ErasureChannel) GrantSendResponses(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.ResponseQueue.GrantSendMessages(grantee)
}

// GrantConsumeResponses lets grantee (the account service) read answers.
func (ch *ErasureChannel) GrantConsumeResponses(grantee awsiam.IGrantable) awsiam.Grant {
	return ch.ResponseQueue.GrantConsumeMessages(grantee)
}

func isAccountID(s string) bool { return contract.IsAWSAccountID(s) }

// newAlarms hands the channel's alarms to the applier in one design: each on
// its metric (a queue's, the response reader's or the ledger's), one
// evaluation period, missing data not breaching.
func (ch *ErasureChannel) newAlarms(this constructs.Construct, c contract.Constants) {
	const responseQueue, responseDLQ design.Name = "responseQueue", "responseDeadLetterQueue"
	d := design.NewDesign()
	objects := map[design.Name]any{design.NameThis: this, responseQueue: ch.ResponseQueue, responseDLQ: ch.ResponseDeadLetterQueue}
	queueMetric := func(q design.Name, m design.QueueMetricName) *design.QueueMetric {
		return &design.QueueMetric{Queue: q, Metric: m, Statistic: design.QueueAlarmStatistic, PeriodMinutes: design.QueueAlarmMinutes}
	}
	add := func(id, description string, onQueue *design.QueueMetric, metric awscloudwatch.IMetric, threshold float64, compare design.Comparison) {
		a := design.Alarm{Scope: design.NameThis, ID: id, Description: description, QueueMetric: onQueue, Threshold: threshold, Comparison: compare, As: design.Name(id)}
		if metric != nil {
			a.Metric = design.Name(id + "Metric")
			objects[a.Metric] = metric
		}
		d.Alarms = append(d.Alarms, a)
	}
	atLeastOnce := design.GreaterThanOrEqual
	// onReader is an alarm on one of the response reader's or the ledger's
	// counts by code (readerMetric): at least one in a period.
	onReader := func(id, description, metricName, code string) {
		add(id, description, nil, readerMetric(metricName, code, nil), 1, atLeastOnce)
	}
	add("ResponseDeadLetterAlarm", "Store answers reached the response dead-letter queue: the account service failed to process them.",
		queueMetric(responseDLQ, design.MessagesVisible), nil, 1, atLeastOnce)
	add("OldestResponseAlarm",
		fmt.Sprintf("An answer has waited on the response queue longer than R = %d s (expiryPeriodSeconds): the account service is not reading answers.", c.ExpiryPeriodSeconds),
		queueMetric(responseQueue, design.AgeOfOldestMessage), nil, float64(c.ExpiryPeriodSeconds), design.GreaterThan)
	onReader("RefusedAnswersAlarm",
		"The response reader refused an answer whose sender is not the handler of the store it names: a forged or misrouted answer was kept for investigation, and that store's round is still open.",
		contract.MetricAnswersRefused, contract.CodeSenderNotOnRoster)
	onReader("ConflictingAnswersAlarm",
		"A store's answer contradicted its earlier answer to the same round (DONE after NOT_APPLICABLE, or the reverse): the first answer stands; find out which one the store means.",
		contract.MetricAnswersConflicting, contract.CodeConflictingAnswer)
	add("LedgerRefusedAnswersAlarm",
		"The account service's ledger refused an authenticated answer: to a request or broadcast it never recorded, of a type that does not answer its request, about another key, or from a store off the request's roster. It is recorded in the ledger (REFUSED#<day>) with its code and never counted.",
		nil, ledgerRefusals(), 1, atLeastOnce)
	onReader("ExhaustedRebroadcastsAlarm",
		fmt.Sprintf("An erasure's broadcast %d (maxBroadcasts) expired without every roster store's answer: the ledger re-broadcasts it no more; find the store that does not answer.", c.MaxBroadcasts),
		contract.MetricRebroadcastsExhausted, contract.CodeExhausted)
	onReader("OverdueRequestsAlarm",
		fmt.Sprintf("An erasure is still incomplete %d days before its one-month deadline (GDPR Art. 12(3)): erasureDeadlineWarningSeconds.", c.ErasureDeadlineWarningSeconds/86400),
		contract.MetricRequestsOverdue, contract.CodeOverdue)
	onReader("ReceiptLogRefusedAlarm",
		"The ledger refused to sign a record of its receipt log that it did not write (LOG_FORGED): someone who can write the ledger's table put a receipt at the log's next index. It is left for investigation; no receipt is appended until it is removed.",
		contract.MetricReceiptLogRefused, contract.CodeLogForged)
	onReader("ReceiptLogRolledBackAlarm",
		"The ledger's receipt log does not extend the latest signed head in its anchor bucket (LOG_ROLLED_BACK): the table was restored from a backup or its log rewritten. Erasures go on; no receipt is appended until an operator restores the log the anchor holds.",
		contract.MetricReceiptLogRefused, contract.CodeLogRolledBack)
	made, _ := applyDesign(d, objects)
	alarm := func(id string) awscloudwatch.Alarm { return made[design.Name(id)].(awscloudwatch.Alarm) }
	ch.ResponseDeadLetterAlarm, ch.OldestResponseAlarm = alarm("ResponseDeadLetterAlarm"), alarm("OldestResponseAlarm")
	ch.RefusedAnswersAlarm, ch.ConflictingAnswersAlarm = alarm("RefusedAnswersAlarm"), alarm("ConflictingAnswersAlarm")
	ch.LedgerRefusedAnswersAlarm, ch.ExhaustedRebroadcastsAlarm = alarm("LedgerRefusedAnswersAlarm"), alarm("ExhaustedRebroadcastsAlarm")
	ch.OverdueRequestsAlarm = alarm("OverdueRequestsAlarm")
	ch.ReceiptLogRefusedAlarm, ch.ReceiptLogRolledBackAlarm = alarm("ReceiptLogRefusedAlarm"), alarm("ReceiptLogRolledBackAlarm")
}
