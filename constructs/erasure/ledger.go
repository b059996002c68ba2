package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"github.com/linn-cloud/erasure-channel/contract/timing"

	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsssm"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract"
)

// The ledger functions' role names: fixed, so that the channel's lockdown can
// name them (LedgerPrincipals) before they exist.
const (
	LedgerReaderRoleName  = contract.LedgerReaderRoleName
	LedgerSweeperRoleName = contract.LedgerSweeperRoleName
)

// LedgerPrincipals are the ARNs of the ledger's reader and sweeper roles in an
// account: the reader belongs in ErasureChannelProps.ResponseReaders, the
// sweeper (which re-broadcasts) in Publishers.
func LedgerPrincipals(partition, account string) (reader, sweeper string) {
	return contract.LedgerRoleARN(partition, account, LedgerReaderRoleName), contract.LedgerRoleARN(partition, account, LedgerSweeperRoleName)
}

// ErasureLedgerProps configure an ErasureLedger.
type ErasureLedgerProps struct {
	// Channel is the channel whose answers the ledger records. Its Publishers
	// must name the sweeper and its ResponseReaders the reader
	// (LedgerPrincipals). Required.
	Channel *ErasureChannel
	// Code is the ledger's Lambda handler (cmd/erasure-ledger, built for
	// provided.al2023 on arm64). Required.
	Code awslambda.Code
	// RoleIDs are roster stores' handler role ids the app knows (a token is
	// fine: an ErasureSubscriber's role RoleId). The reader counts a store's
	// answer only from "<role id>:<function name>"; for a store without one
	// it reads the id itself, in the store's account through the lookup role
	// the store's ErasureSubscriber made (contract.RosterLookupRoleARN), or in
	// its own account directly, so that a store joins with its own deploy.
	// Until the id is found, every answer of the store is refused and alarmed.
	RoleIDs map[string]*string
	// LingeringDays is each bitmap store's bound on how long an erased id
	// lingers in noncurrent versions, copied into its receipts.
	LingeringDays map[string]int
	// Administrators are the ARN patterns of the principals that deploy and
	// administer the ledger's anchor: only they may take an action off its
	// data path. Default: the CloudFormation execution role of CDK's default
	// bootstrap in the ledger's account (channelpolicy.DefaultAdministrators).
	Administrators []string
	// Auditors are the ARNs (or patterns) of the principals that verify the
	// receipt log against the anchor (erasurectl evidence verify --anchor)
	// besides the administrators: they may list and read its heads.
	Auditors []string
	// Constants default to the channel constants.
	Constants *contract.Constants
}

// ErasureLedger is the account service's ledger on AWS: a DynamoDB table under
// its own key, its secrets in Secrets Manager, the reader on the response
// queue (partial batch failures) and the sweeper on a schedule of the
// publisher's tick. ErasureChannel alarms on what it emits.
type ErasureLedger struct {
	constructs.Construct
	// Key encrypts the table and the secret.
	Key awskms.Key
	// Table is the ledger (ledger.CreateTable's keys and pending index).
	Table awsdynamodb.Table
	// Secret is the ledger's root secret: the key digest's HMAC key, the
	// vault's key and the receipt log's signing key are derived from it.
	Secret awssecretsmanager.Secret
	// Anchor is the receipt log's anchor: every signed tree head is written
	// here by the sweeper, under Object Lock in compliance mode for
	// ledgerAnchorRetentionDays, where nobody who can write the table (nor
	// the account's root user) can delete or overwrite it. erasurectl
	// evidence verify --anchor checks the table's log extends its latest head.
	Anchor awss3.Bucket
	// Reader records the response queue's answers; Sweeper publishes,
	// re-broadcasts, expires and appends receipts.
	Reader, Sweeper awslambda.Function
	// RosterPath is the SSM path of the roster's pages (contract.ParseLedgerRoster),
	// and RosterPages the parameters: stores, handler role ids and lingering bounds.
	RosterPath  string
	RosterPages []awsssm.StringParameter
}

// NewErasureLedger builds the ledger beside a channel.
func NewErasureLedger(scope constructs.Construct, id *string, props *ErasureLedgerProps) *ErasureLedger {
	this := constructs.NewConstruct(scope, id)
	l := &ErasureLedger{Construct: this}
	var problems problem.List
	if props == nil || props.Channel == nil || props.Code == nil {
		problems.Add(problem.Root("ErasureLedger"), problem.Missing, "an ErasureLedger needs its Channel and Code (the ledger's Lambda handler)")
		this.Node().AddValidation(problemsValidation(problems))
		return l
	}
	c := constantsOr(props.Constants)
	ch := props.Channel
	st := awscdk.Stack_Of(this)
	if !namesRole(ch.responseReaders, *st.Account(), LedgerReaderRoleName) {
		problems.Add(problem.Root("ErasureLedger").Child("channel").Child("responseReaders"), problem.Missing, "the channel's ResponseReaders must name the ledger's reader role ("+LedgerReaderRoleName+", LedgerPrincipals): its lockdown would deny the reader the response queue")
	}
	if !namesRole(ch.publishers, *st.Account(), LedgerSweeperRoleName) {
		problems.Add(problem.Root("ErasureLedger").Child("channel").Child("publishers"), problem.Missing, "the channel's Publishers must name the ledger's sweeper role ("+LedgerSweeperRoleName+", LedgerPrincipals): its lockdown would deny the sweeper's re-broadcasts")
	}

	l.newStorage(this, c)
	l.newAnchor(this, c)

	for n := range props.RoleIDs {
		if !ch.roster.has(n) {
			problems.Add(problem.Root("ErasureLedger").Child("roleIds").Key(n), problem.Missing, "a role id is given for a store that is not on the channel's roster")
		}
	}
	for n := range props.LingeringDays {
		if !ch.roster.has(n) {
			problems.Add(problem.Root("ErasureLedger").Child("lingeringDays").Key(n), problem.Missing, "lingering days are given for a store that is not on the channel's roster")
		}
	}
	// The roster lives in SSM parameters (pages of at most
	// contract.SSMParameterValueMaxBytes), never in the functions'
	// environment: it grows with every store, the environment is 4 KB.
	l.RosterPath = "/erasure-ledger/" + *awscdk.Names_UniqueId(this) + "/roster"
	l.RosterPages = l.rosterPages(ch.roster.stores, ch.roster.channelAccount, *st.Account(), props.RoleIDs, props.LingeringDays)

	// The reader: the response queue's event source, batch answers with
	// partial failures (an answer kept is read again, then dead-lettered).
	readerTimeout := timing.HandlerFor(c, c.VisibilityTimeoutCapSeconds)
	l.Reader = l.newFunction(this, props.Code, ch, "Reader", LedgerReaderRoleName, "reader", readerTimeout)
	l.Reader.AddEventSource(awslambdaeventsources.NewSqsEventSource(ch.ResponseQueue, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize: jsii.Number(10), ReportBatchItemFailures: jsii.Bool(true),
	}))
	// A response reader reads the response dead-letter queue too (the
	// channel's readers redrive what was kept for investigation), and the
	// response key both ways.
	ch.ResponseDeadLetterQueue.GrantConsumeMessages(l.Reader)
	ch.ResponseKey.Grant(l.Reader, jsii.String("kms:Decrypt"), jsii.String("kms:GenerateDataKey"))
	suppress(map[string]string{"Serverless-LambdaEventSourceMappingDestination": design.ReasonESMDest}, l.Reader)
	// The sweeper: one at a time, each publisher tick; it publishes on the topic.
	l.Sweeper = l.newFunction(this, props.Code, ch, "Sweeper", LedgerSweeperRoleName, "sweeper", c.HandlerTimeoutCapSeconds*5)
	// One sweeper at a time on AWS: a tick that would overlap a sweep still
	// running is throttled. The append is correct under overlap by itself;
	// this keeps the table's writes and the re-broadcasts from doubling.
	l.Sweeper.Node().DefaultChild().(awslambda.CfnFunction).SetReservedConcurrentExecutions(jsii.Number(1))
	ch.Topic.GrantPublish(l.Sweeper)
	l.lockAnchor(this, props, &problems)
	rule := awsevents.NewRule(this, jsii.String("SweepSchedule"), &awsevents.RuleProps{
		Description: jsii.String("Erasure ledger: the sweeper, each publisher tick (publisherTickSeconds)"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Seconds(jsii.Number(float64(c.PublisherTickSeconds)))),
		Targets:     &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(l.Sweeper, &awseventstargets.LambdaFunctionProps{RetryAttempts: jsii.Number(0)})},
	})
	suppress(map[string]string{
		"AwsSolutions-SMG4":                            design.ReasonLedgerRotation,
		"NIST.800.53.R5-SecretsManagerRotationEnabled": design.ReasonLedgerRotation,
		"NIST.800.53.R5-DynamoDBInBackupPlan":          design.ReasonLedgerBackup,
		"NIST.800.53.R5-DynamoDBAutoscalingEnabled":    design.ReasonLedgerOnDemand,
	}, l.Secret, l.Table)
	suppress(map[string]string{"Serverless-EventBusDLQ": design.ReasonLedgerSchedule}, rule)
	if len(problems) > 0 {
		this.Node().AddValidation(problemsValidation(problems))
	}
	return l
}

// anchorData is the anchor's data path: listing its heads, writing and
// reading them.
var anchorData = append(append([]string{}, channelpolicy.AnchorList...), channelpolicy.AnchorData...)

// anchorReads are the anchor's data-path actions but the write.
var anchorReads = slices.DeleteFunc(slices.Clone(anchorData), func(a string) bool { return a == "s3:PutObject" })

// rosterPages writes the roster into SSM parameters under l.RosterPath, each
// page at most contract.SSMParameterValueMaxBytes with every role id counted at
// its longest (contract.RoleIDMaxBytes), so that no page can outgrow the quota
// whatever IAM deploys. Its size grows by one parameter per page, not per store.
func (l *ErasureLedger) rosterPages(roster []RosterStore, channelAccount, ledgerAccount string, roleIDs map[string]*string, lingering map[string]int) []awsssm.StringParameter {
	type entry struct {
		store, account string
		id             *string
		days           int
	}
	var pages [][]entry
	size := 0
	header := len(contract.LedgerRosterPageHeader(9999, 9999))
	for _, st := range roster {
		days, ok := lingering[st.Name]
		if !ok {
			days = -1
		}
		e := entry{st.Name, ledgerRelative(or(st.Account, channelAccount), ledgerAccount), roleIDs[st.Name], days}
		n := len(contract.LedgerRosterEntryPrefix(false, e.store, e.account)) + len(contract.LedgerRosterEntrySuffix(days))
		if e.id != nil {
			// A role id the app gives (a token) counts at its longest; a
			// store without one is looked up by the reader, in its account.
			n += contract.RoleIDMaxBytes
		}
		if len(pages) == 0 || size+n > contract.SSMParameterValueMaxBytes-header {
			pages, size = append(pages, nil), 0
		}
		pages[len(pages)-1] = append(pages[len(pages)-1], e)
		size += n
	}
	if len(pages) == 0 {
		pages = [][]entry{nil} // an empty roster is one empty page, read as such
	}
	out := make([]awsssm.StringParameter, 0, len(pages))
	for i, page := range pages {
		parts := []*string{jsii.String(contract.LedgerRosterPageHeader(i+1, len(pages)))}
		for j, e := range page {
			parts = append(parts, jsii.String(contract.LedgerRosterEntryPrefix(j == 0, e.store, e.account)))
			if e.id != nil {
				parts = append(parts, e.id)
			}
			if sfx := contract.LedgerRosterEntrySuffix(e.days); sfx != "" {
				parts = append(parts, jsii.String(sfx))
			}
		}
		out = append(out, awsssm.NewStringParameter(l.Construct, jsii.String(fmt.Sprintf("RosterPage%d", i+1)), &awsssm.StringParameterProps{
			ParameterName: jsii.String(fmt.Sprintf("%s/%d", l.RosterPath, i+1)),
			StringValue:   awscdk.Fn_Join(jsii.String(""), &parts),
			Description:   jsii.String(fmt.Sprintf("Erasure ledger: roster page %d of %d (stores, handler role ids, lingering bounds)", i+1, len(pages))),
			Tier:          awsssm.ParameterTier_STANDARD,
		}))
	}
	return out
}

// ledgerRelative is a store's account as the ledger's roster writes it: ""
// for the ledger's own (the reader reads its role directly), the id
// otherwise (the reader looks it up through the store's lookup role). An
// account unknown at synth is taken to be the ledger's.
func ledgerRelative(account, ledgerAccount string) string {
	if account == ledgerAccount || isToken(&account) {
		return ""
	}
	return account
}

// namesRole reports whether arns hold the role named name of account, in any
// partition.
func namesRole(arns []string, account, name string) bool {
	for _, a := range arns {
		if strings.HasPrefix(a, "arn:") && strings.HasSuffix(a, ":iam::"+account+":role/"+name) {
			return true
		}
	}
	return false
}

// newStorage makes the ledger's key, its table (with the pending index) and
// its root secret.
func (l *ErasureLedger) newStorage(this constructs.Construct, c contract.Constants) {
	l.Key = newKey(this, "Key", "Erasure ledger: encrypts the ledger's table and its secret")
	l.Table = awsdynamodb.NewTable(this, jsii.String("Table"), &awsdynamodb.TableProps{
		PartitionKey:                     &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
		SortKey:                          &awsdynamodb.Attribute{Name: jsii.String("SK"), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:                      awsdynamodb.BillingMode_PAY_PER_REQUEST,
		Encryption:                       awsdynamodb.TableEncryption_CUSTOMER_MANAGED,
		EncryptionKey:                    l.Key,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)},
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		// A receipted request's rounds and answers expire
		// (ledgerAnswerRetentionDays); the requests and the receipt log stay.
		TimeToLiveAttribute: jsii.String(contract.LedgerExpireAttribute),
	})
	l.Table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
		IndexName:      jsii.String("pending"),
		PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String("Pending"), Type: awsdynamodb.AttributeType_STRING},
		SortKey:        &awsdynamodb.Attribute{Name: jsii.String("Due"), Type: awsdynamodb.AttributeType_STRING},
		ProjectionType: awsdynamodb.ProjectionType_KEYS_ONLY,
	})
	l.Secret = awssecretsmanager.NewSecret(this, jsii.String("Secret"), &awssecretsmanager.SecretProps{
		Description:   jsii.String("Erasure ledger: the root secret its key digests, sealed keys and receipt-log signatures derive from"),
		EncryptionKey: l.Key,
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength: jsii.Number(64), ExcludePunctuation: jsii.Bool(true),
		},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
}

// newAnchor makes the bucket the sweeper anchors the receipt log's heads in.
func (l *ErasureLedger) newAnchor(this constructs.Construct, c contract.Constants) {
	// Heads hold a tree size and a hash, no personal data: the lock never
	// stands in an erasure's way, and S3's own key encrypts them (a key the
	// table's operators could disable would make the anchor unreadable).
	l.Anchor = awss3.NewBucket(this, jsii.String("Anchor"), &awss3.BucketProps{
		ObjectLockEnabled:          jsii.Bool(true),
		ObjectLockDefaultRetention: awss3.ObjectLockRetention_Compliance(awscdk.Duration_Days(jsii.Number(c.LedgerAnchorRetentionDays))),
		Versioned:                  jsii.Bool(true),
		Encryption:                 awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess:          awss3.BlockPublicAccess_BLOCK_ALL(),
		ObjectOwnership:            awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		EnforceSSL:                 jsii.Bool(true),
		RemovalPolicy:              awscdk.RemovalPolicy_RETAIN,
	})
	suppress(map[string]string{
		"AwsSolutions-S1":                           design.ReasonAnchorAccessLogs,
		"NIST.800.53.R5-S3BucketLoggingEnabled":     design.ReasonAnchorAccessLogs,
		"NIST.800.53.R5-S3BucketReplicationEnabled": design.ReasonAnchorReplication,
		"NIST.800.53.R5-S3DefaultEncryptionKMS":     design.ReasonAnchorEncryption,
	}, l.Anchor)
}

// newFunction makes one of the ledger's functions (the reader or the
// sweeper: mode), with its role of roleName, its log group, and its least
// privilege on the table, the key, the secret and the roster's pages.
func (l *ErasureLedger) newFunction(this constructs.Construct, code awslambda.Code, ch *ErasureChannel, id, roleName, mode string, timeoutSeconds int) awslambda.Function {
	st := awscdk.Stack_Of(this)
	runtime, arch := awslambda.Runtime_PROVIDED_AL2023(), awslambda.Architecture_ARM_64()
	logs := awslogs.NewLogGroup(this, jsii.String(id+"Logs"), &awslogs.LogGroupProps{Retention: awslogs.RetentionDays_ONE_MONTH})
	role := awsiam.NewRole(this, jsii.String(id+"Role"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String(plan.LambdaService), nil), RoleName: jsii.String(roleName),
		Description: jsii.String("Erasure ledger: the " + mode)})
	logs.GrantWrite(role)
	env := map[string]*string{
		contract.EnvLedgerMode: jsii.String(mode), contract.EnvLedgerTable: l.Table.TableName(), contract.EnvLedgerSecretArn: l.Secret.SecretArn(),
		contract.EnvLedgerRosterPath: jsii.String(l.RosterPath), contract.EnvLedgerTopicArn: ch.Topic.TopicArn(),
	}
	f := awslambda.NewFunction(this, jsii.String(id), &awslambda.FunctionProps{
		Runtime: runtime, Architecture: arch, Handler: jsii.String("bootstrap"), Code: code,
		Role: role, LogGroup: logs, Timeout: awscdk.Duration_Seconds(jsii.Number(float64(timeoutSeconds))), MemorySize: jsii.Number(plan.DefaultHandlerMemoryMB),
		Environment: &env, Description: jsii.String("Erasure ledger: the " + mode),
	})
	for _, page := range l.RosterPages {
		f.Node().AddDependency(page) // read at start: the pages exist first
	}
	// Least privilege on the table: items and the pending index, no scan.
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"),
		Resources: jsii.Strings(*l.Table.TableArn(), *l.Table.TableArn()+"/index/pending"),
	}))
	l.Key.Grant(role, jsii.String("kms:Decrypt"), jsii.String("kms:Encrypt"), jsii.String("kms:GenerateDataKey"), jsii.String("kms:DescribeKey"))
	l.Secret.GrantRead(role, nil)
	// The roster's pages: one path, read whole at start and again on a schedule.
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions: jsii.Strings("ssm:GetParametersByPath"),
		Resources: &[]*string{awscdk.Arn_Format(&awscdk.ArnComponents{Service: jsii.String("ssm"), Resource: jsii.String("parameter"),
			ResourceName: jsii.String(strings.TrimPrefix(l.RosterPath, "/"))}, st)},
	}))
	reasons := design.FunctionReasons(design.ReasonLedgerDLQ)
	reasons["AwsSolutions-IAM5"] = design.ReasonLedgerIndex
	suppress(reasons, f, role, logs)
	return f
}

// lockAnchor locks the anchor as the channel's resources are: its
// administrators alone act off its data path, and the sweeper alone on it;
// the sweeper writes heads and reads the latest one back (every version,
// past any delete marker) and can delete nothing.
func (l *ErasureLedger) lockAnchor(this constructs.Construct, props *ErasureLedgerProps, problems *problem.List) {
	st := awscdk.Stack_Of(this)
	checkPrincipalArns(problems, problem.Root("ErasureLedger").Child("administrators"), props.Administrators, true)
	checkPrincipalArns(problems, problem.Root("ErasureLedger").Child("auditors"), props.Auditors, true)
	_, sweeperArn := LedgerPrincipals(partition(), *st.Account())
	admins := administratorsOr(this, props.Administrators)
	anchor := bucketLock(l.Anchor)
	anchor.AdministeredBy(channelpolicy.LedgerAnchor, admins, anchorData)
	anchor.OnlyFrom("OnlyTheSweeperAnchors", []string{"s3:PutObject"}, []string{sweeperArn}, nil)
	anchor.OnlyFrom("OnlyTheSweeperAndAuditorsRead", anchorReads, append(append([]string{sweeperArn}, admins...), props.Auditors...), nil)
	applyLocks(anchor)
	cfnAnchor := l.Anchor.Node().DefaultChild().(awscdk.CfnResource)
	cfnAnchor.AddMetadata(jsii.String(channelpolicy.WritersMetadataKey), []string{sweeperArn})
	cfnAnchor.AddMetadata(jsii.String(channelpolicy.ReadersMetadataKey), append([]string{}, props.Auditors...))
	l.Sweeper.AddEnvironment(jsii.String(contract.EnvLedgerAnchorBucket), l.Anchor.BucketName(), nil)
	l.Sweeper.Role().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("s3:PutObject", "s3:GetObject", "s3:GetObjectVersion"),
		Resources: jsii.Strings(*l.Anchor.BucketArn() + "/" + contract.LedgerAnchorPrefix + "*"),
	}))
	l.Sweeper.Role().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions: jsii.Strings("s3:ListBucketVersions"), Resources: jsii.Strings(*l.Anchor.BucketArn()),
	}))
}
