package design

import (
	"sort"
	"strings"
)

// NagContextKey is the context key of an app that says whether it runs
// cdk-nag. When the app's context sets it to false (JSON false, 0, or a
// string strconv.ParseBool reads as false),
// the constructs write no cdk-nag suppressions: nothing in that synth reads
// them, and they were nearly half of a store's template. Absent, or any other
// value, the suppressions are written, for a cdk-nag the app may run.
const NagContextKey = "erasure:nag"

// The cdk-nag findings the constructs suppress, each with the reason it does
// not apply to the erasure channel. Every other rule of the AwsSolutions,
// Serverless, NIST 800-53 rev 5, HIPAA Security and PCI DSS 3.2.1 packs is
// met at its cause.
const (
	ReasonAlarmAction       = "Where an alarm pages (on-call tool, chat, ticket) is the operator's choice; wire it with Alarm.AddAlarmAction. The construct cannot pick a destination."
	ReasonDLQRedrive        = "This is the dead-letter queue: a queue behind it would move failed erasure requests further from the operator; the DLQ is alarmed instead."
	ReasonLambdaDLQ         = "The function is invoked by an SQS event source, never asynchronously: failed requests go to the queue's dead-letter queue through its redrive policy."
	ReasonESMDest           = "An SQS event source has no on-failure destination; the queue's redrive policy sends a failed request to its dead-letter queue intact."
	ReasonTracing           = "The channel's evidence is its answers, ErasureAnswers/ErasureNotApplicable metrics and DLQ alarms; X-Ray would need a wildcard grant. Teams may enable it on their own function."
	ReasonLogsKMS           = "The handler's logs carry codes, message types, outcomes and counts only, never a body, key, address or requestId (tested); CloudWatch Logs encrypts them at rest."
	ReasonInline            = "CDK's per-role default policy holds this store's least-privilege statements; a managed policy would be shared between stores."
	ReasonConcurrency       = "A reserved concurrency limit can throttle erasure requests into the dead-letter queue; the queue's visibility timeout and redrive already bound the work. Limit the event source's maximum concurrency if a store must."
	ReasonVPC               = "The handler reaches only AWS APIs (SQS and its store); placing it in a VPC is the store team's network decision, not the channel's."
	ReasonSNSRedrive        = "SNS retries deliveries to SQS for days (AWS's SQS delivery policy); a delivery that keeps failing is a wiring fault the app-wide check (erasurecheck) refuses at synth: a key SNS cannot use, no queue policy."
	ReasonBucketLogs        = "Server access logs would record every object key, including the subject directory's account digests, in a log bucket that outlives each erasure; audit access with CloudTrail data events instead."
	ReasonLedgerDLQ         = "The reader is invoked by the response queue's event source (a failed answer returns to the queue, then its dead-letter queue); the sweeper by a schedule that runs again each publisher tick and finds what a failed run left."
	ReasonLedgerIndex       = "The only wildcard is the table's own pending index (<table>/index/pending), which the sweeper queries; every action is named."
	ReasonLedgerLookups     = "The reader also reads store handler roles' ids: iam:GetRole on the handler path of its own account, and sts:AssumeRole on the lookup path (/erasure-channel-lookup/) in any account, where each store's own stack creates a role that trusts the reader alone and may read that store's handler role alone; every action is named."
	ReasonLookupInline      = "The lookup role's one statement (iam:GetRole on this store's handler role) belongs to it alone and is deleted with it; a managed policy would add a resource per store for nothing."
	ReasonLedgerRotation    = "The ledger's root secret keys the receipts' key digests and the receipt log's signatures: rotating it would orphan every digest and tree head already issued. It is encrypted under the ledger's own key and readable by the ledger's two roles only."
	ReasonLedgerBackup      = "Point-in-time recovery is on; an AWS Backup plan is the operator's retention choice (receipts must outlive a deletion, not live forever)."
	ReasonLedgerSchedule    = "A missed sweep has nothing to re-deliver: the next one, a publisher tick later, finds everything the missed one would have (the rule does not retry)."
	ReasonAnchorAccessLogs  = "The anchor holds only signed tree heads under Object Lock (compliance mode): no write can change or remove one, and the verifier checks every head it reads; CloudTrail data events are the account's choice for who wrote what."
	ReasonAnchorReplication = "A head that is lost to a Region's outage is rewritten by the next append and sweep; replication of a compliance-locked bucket is the operator's choice of a second Region."
	ReasonAnchorEncryption  = "Signed tree heads hold no personal data, and S3's own key keeps the anchor readable even if the ledger's key were disabled by someone who can administer it."
	ReasonLedgerOnDemand    = "The table is on-demand (PAY_PER_REQUEST): it scales without autoscaling policies."
	ReasonReplication       = "A replica is a copy subject erasure cannot reach (eraseSubject does not reach replicas); replication is kept off by design."
)

// NewSuppression suppresses each finding of reasons (id → reason) on each
// of scopes and their children, in the order of the ids: a template must
// not change between two synths of one app (CloudFormation would see a
// change set in every deploy).
func NewSuppression(reasons map[string]string, scopes ...Name) Suppression {
	reasons = withTwins(reasons)
	ids := make([]string, 0, len(reasons))
	for id := range reasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rules := make([]NagRule, len(ids))
	for i, id := range ids {
		rules[i] = NagRule{ID: id, Reason: reasons[id]}
	}
	return Suppression{Scopes: scopes, Rules: rules, UnlessContextOff: NagContextKey}
}

// SuppressionApplying suppresses the finding id of cdk-nag on each of
// scopes and their children for the findings appliesTo names only
// (cdk-nag's NagPackSuppression.appliesTo).
func SuppressionApplying(id, reason string, appliesTo []string, scopes ...Name) Suppression {
	s := Suppression{Scopes: scopes, UnlessContextOff: NagContextKey}
	for _, twin := range twinsOf(id) {
		s.Rules = append(s.Rules, NagRule{ID: twin, Reason: reason, AppliesTo: appliesTo})
	}
	return s
}

// The HIPAA Security and PCI DSS 3.2.1 packs hold most of the NIST 800-53
// rev 5 pack's rules under the same names (cdk-nag 2.38.2's packs;
// TestNagTwinsAreCdkNags reads them): a finding suppressed for one is
// suppressed, for the same reason, for each pack that has the rule.
const (
	nistPrefix  = "NIST.800.53.R5-"
	hipaaPrefix = "HIPAA.Security-"
	pciPrefix   = "PCI.DSS.321-"
)

// nistNotInHIPAA and nistNotInPCI are the NIST 800-53 rev 5 rules the other
// packs do not have.
var (
	nistNotInHIPAA = setOf("ALBWAFEnabled", "APIGWAssociatedWithWAF", "KMSBackingKeyRotationEnabled")
	nistNotInPCI   = setOf("CloudWatchAlarmAction", "DynamoDBAutoScalingEnabled", "DynamoDBInBackupPlan", "DynamoDBPITREnabled", "EC2EBSInBackupPlan",
		"EC2EBSOptimizedInstance", "EC2IMDSv2Enabled", "EFSInBackupPlan", "ELBCrossZoneLoadBalancingEnabled", "ELBDeletionProtectionEnabled",
		"ElastiCacheRedisClusterAutomaticBackup", "ElasticBeanstalkEnhancedHealthReportingEnabled", "ElasticBeanstalkManagedUpdatesEnabled",
		"LambdaConcurrency", "LambdaDLQ", "RDSEnhancedMonitoringEnabled", "RDSInBackupPlan", "RDSInstanceBackupEnabled",
		"RDSInstanceDeletionProtectionEnabled", "RDSMultiAZSupport", "RedshiftBackupEnabled", "SecretsManagerRotationEnabled")
)

func setOf(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// twinsOf is id and, for a NIST 800-53 rev 5 rule, the same rule of each
// pack that has it.
func twinsOf(id string) []string {
	rule, ok := strings.CutPrefix(id, nistPrefix)
	if !ok {
		return []string{id}
	}
	out := []string{id}
	if !nistNotInHIPAA[rule] {
		out = append(out, hipaaPrefix+rule)
	}
	if !nistNotInPCI[rule] {
		out = append(out, pciPrefix+rule)
	}
	return out
}

// withTwins is reasons with each NIST 800-53 rev 5 rule's twins (twinsOf).
func withTwins(reasons map[string]string) map[string]string {
	out := make(map[string]string, len(reasons)*2)
	for id, reason := range reasons {
		for _, twin := range twinsOf(id) {
			out[twin] = reason
		}
	}
	return out
}

// AlarmActionsSuppression suppresses cdk-nag's finding that alarms have no
// action: where an alarm pages is the operator's choice.
func AlarmActionsSuppression(alarms ...Name) Suppression {
	return NewSuppression(map[string]string{"NIST.800.53.R5-CloudWatchAlarmAction": ReasonAlarmAction}, alarms...)
}

// FunctionReasons are the cdk-nag findings every function the constructs
// build answers the same way, with dlq the reason it needs no DLQ of its own.
func FunctionReasons(dlq string) map[string]string {
	return map[string]string{
		"Serverless-LambdaDLQ":                           dlq,
		"NIST.800.53.R5-LambdaDLQ":                       dlq,
		"Serverless-LambdaEventSourceMappingDestination": ReasonESMDest,
		"Serverless-LambdaTracing":                       ReasonTracing,
		"NIST.800.53.R5-LambdaConcurrency":               ReasonConcurrency,
		"NIST.800.53.R5-LambdaInsideVPC":                 ReasonVPC,
		"NIST.800.53.R5-IAMNoInlinePolicy":               ReasonInline,
		"NIST.800.53.R5-CloudWatchLogGroupEncrypted":     ReasonLogsKMS,
	}
}
