// Package channelpolicy declares, once, who may do what on the erasure
// channel: every action of SNS, SQS, KMS and S3 that reaches a kind of channel
// resource, the few of them the data path needs, and whom the channel takes
// for its administrators. The constructs write their policies from it and the
// access matrix (erasurecheck) judges the synthesized policies against it, so
// the two cannot drift apart. It knows nothing of CDK.
package channelpolicy

import (
	"fmt"
	"slices"
	"sync"
)

// Kind is a kind of channel resource.
type Kind string

// The kinds of resource on the channel's data path.
const (
	Topic         Kind = "topic"          // the erasure topic
	TopicKey      Kind = "topic-key"      // its KMS key
	Queue         Kind = "queue"          // a store's erasure queue
	DeadLetters   Kind = "dlq"            // a store's dead-letter queue
	QueueKey      Kind = "queue-key"      // the key of a store's queues
	ResponseQueue Kind = "response-queue" // the channel's response queue
	ResponseDLQ   Kind = "response-dlq"   // its dead-letter queue
	ResponseKey   Kind = "response-key"   // the key of both
	Bucket        Kind = "bucket"         // a bitmap store's bucket
	BucketObjects Kind = "bucket-objects" // the objects in it
	BucketKey     Kind = "bucket-key"     // the bucket's key
	// BucketRows are a bitmap bucket's registry rows (<prefix>registry/…):
	// the store reads and writes them, and nobody reads or deletes their
	// versions (their history stays for a restore). BucketOutside are its
	// objects outside the store's prefix, which the data path never reaches.
	BucketRows    Kind = "bucket-rows"
	BucketOutside Kind = "bucket-outside"
	// LedgerAnchor is the ledger's anchor bucket (Object Lock): the signed
	// tree heads of its receipt log; LedgerAnchorObjects the heads in it.
	LedgerAnchor        Kind = "ledger-anchor"
	LedgerAnchorObjects Kind = "ledger-anchor-objects"
)

// Kinds lists every kind, in a stable order.
var Kinds = []Kind{Topic, TopicKey, Queue, DeadLetters, QueueKey, ResponseQueue, ResponseDLQ, ResponseKey, Bucket, BucketObjects, BucketKey,
	BucketRows, BucketOutside, LedgerAnchor, LedgerAnchorObjects}

// IsKey says whether resources of the kind are KMS keys.
func (k Kind) IsKey() bool {
	return k == TopicKey || k == QueueKey || k == ResponseKey || k == BucketKey
}

// The data path's actions: the only ones a principal that is not an
// administrator is ever let take on a channel resource (which principal may
// take which is the channel's business; see erasurecheck's access matrix).
var (
	// TopicData: the account service publishes; a store account's deployer
	// subscribes its queue.
	TopicData = []string{"sns:Publish", "sns:Subscribe"}
	// QueueConsume: the handler's event source takes requests with these.
	QueueConsume = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"}
	// QueueData: consuming, sending (SNS, pass two, answers) and the
	// attributes an event source reads.
	QueueData = []string{"sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"}
	// KeyUse: what SNS and SQS call a key with for their callers.
	KeyUse = []string{"kms:Decrypt", "kms:GenerateDataKey"}
	// BucketList and ObjectData: what the bitmap library issues.
	BucketList = []string{"s3:ListBucket", "s3:ListBucketVersions"}
	ObjectData = []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:GetObjectVersion", "s3:DeleteObjectVersion", "s3:AbortMultipartUpload"}
	// VersionData are the object actions on versions: the bitmap library
	// takes them on its generations (segments) only, never on its registry.
	VersionData = []string{"s3:GetObjectVersion", "s3:DeleteObjectVersion"}
	// AnchorList and AnchorData: the ledger's sweeper lists the anchor's
	// heads (every version) and writes and reads them; it deletes nothing.
	AnchorList = []string{"s3:ListBucketVersions"}
	AnchorData = []string{"s3:PutObject", "s3:GetObject", "s3:GetObjectVersion"}
)

// Catalogue is every action of the resource's service that reads, writes or
// deletes it or its data, or changes its policy, attributes, tags or state
// (the Service Authorization Reference's actions whose resource type is this
// kind). The access matrix asks each of them of every principal class.
var Catalogue = map[Kind][]string{
	Topic:         topicActions,
	TopicKey:      keyActions,
	Queue:         queueActions,
	DeadLetters:   queueActions,
	QueueKey:      keyActions,
	ResponseQueue: queueActions,
	ResponseDLQ:   queueActions,
	ResponseKey:   keyActions,
	Bucket:        bucketActions,
	BucketObjects: objectActions,
	BucketKey:     keyActions,
	BucketRows:    objectActions,
	BucketOutside: objectActions,
	// The anchor is a bucket like the bitmap store's.
	LedgerAnchor:        bucketActions,
	LedgerAnchorObjects: objectActions,
}

var topicActions = []string{
	"sns:AddPermission", "sns:ConfirmSubscription", "sns:DeleteTopic", "sns:GetDataProtectionPolicy",
	"sns:GetTopicAttributes", "sns:ListSubscriptionsByTopic", "sns:ListTagsForResource", "sns:Publish",
	"sns:PutDataProtectionPolicy", "sns:RemovePermission", "sns:SetTopicAttributes", "sns:Subscribe",
	"sns:TagResource", "sns:UntagResource",
}

var queueActions = []string{
	"sqs:AddPermission", "sqs:CancelMessageMoveTask", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage",
	"sqs:DeleteQueue", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListDeadLetterSourceQueues",
	"sqs:ListMessageMoveTasks", "sqs:ListQueueTags", "sqs:PurgeQueue", "sqs:ReceiveMessage",
	"sqs:RemovePermission", "sqs:SendMessage", "sqs:SetQueueAttributes", "sqs:StartMessageMoveTask",
	"sqs:TagQueue", "sqs:UntagQueue",
}

var keyActions = []string{
	"kms:CancelKeyDeletion", "kms:CreateAlias", "kms:CreateGrant", "kms:Decrypt", "kms:DeleteAlias",
	"kms:DeleteImportedKeyMaterial", "kms:DeriveSharedSecret", "kms:DescribeKey", "kms:DisableKey",
	"kms:DisableKeyRotation", "kms:EnableKey", "kms:EnableKeyRotation", "kms:Encrypt", "kms:GenerateDataKey",
	"kms:GenerateDataKeyPair", "kms:GenerateDataKeyPairWithoutPlaintext", "kms:GenerateDataKeyWithoutPlaintext",
	"kms:GenerateMac", "kms:GetKeyPolicy", "kms:GetKeyRotationStatus", "kms:GetParametersForImport",
	"kms:GetPublicKey", "kms:ImportKeyMaterial", "kms:ListGrants", "kms:ListKeyPolicies", "kms:ListKeyRotations",
	"kms:ListResourceTags", "kms:PutKeyPolicy", "kms:ReEncryptFrom", "kms:ReEncryptTo", "kms:ReplicateKey",
	"kms:RetireGrant", "kms:RevokeGrant", "kms:RotateKeyOnDemand", "kms:ScheduleKeyDeletion", "kms:Sign",
	"kms:TagResource", "kms:UntagResource", "kms:UpdateAlias", "kms:UpdateKeyDescription",
	"kms:UpdatePrimaryRegion", "kms:Verify", "kms:VerifyMac",
}

var bucketActions = []string{
	"s3:DeleteBucket", "s3:DeleteBucketPolicy", "s3:GetBucketAcl", "s3:GetBucketPolicy", "s3:GetBucketVersioning",
	"s3:GetEncryptionConfiguration", "s3:GetLifecycleConfiguration", "s3:GetReplicationConfiguration",
	"s3:ListBucket", "s3:ListBucketMultipartUploads", "s3:ListBucketVersions", "s3:PutBucketAcl",
	"s3:PutBucketLogging", "s3:PutBucketNotification", "s3:PutBucketObjectLockConfiguration",
	"s3:PutBucketOwnershipControls", "s3:PutBucketPolicy", "s3:PutBucketPublicAccessBlock", "s3:PutBucketTagging",
	"s3:PutBucketVersioning", "s3:PutEncryptionConfiguration", "s3:PutIntelligentTieringConfiguration",
	"s3:PutInventoryConfiguration", "s3:PutLifecycleConfiguration", "s3:PutReplicationConfiguration",
}

var objectActions = []string{
	"s3:AbortMultipartUpload", "s3:BypassGovernanceRetention", "s3:DeleteObject", "s3:DeleteObjectTagging",
	"s3:DeleteObjectVersion", "s3:DeleteObjectVersionTagging", "s3:GetObject", "s3:GetObjectAcl",
	"s3:GetObjectAttributes", "s3:GetObjectTagging", "s3:GetObjectVersion", "s3:GetObjectVersionAcl",
	"s3:GetObjectVersionAttributes", "s3:GetObjectVersionTagging", "s3:ListMultipartUploadParts",
	"s3:PutObject", "s3:PutObjectAcl", "s3:PutObjectLegalHold", "s3:PutObjectRetention", "s3:PutObjectTagging",
	"s3:PutObjectVersionAcl", "s3:PutObjectVersionTagging", "s3:ReplicateDelete", "s3:ReplicateObject",
	"s3:RestoreObject",
}

// HandlerPermissions are the actions CloudFormation's resource handlers call
// to create, read, update and delete a resource of the type, on the resource
// itself (a list handler's account-wide action, such as sqs:ListQueues, is
// left out): what the administrators, who deploy with CloudFormation, must
// keep. Each type's set is its registry schema's handlers.*.permissions
// (`aws cloudformation describe-type --type RESOURCE --type-name <type>`);
// cfn-lint's bundled schemas leave the handlers out. Source names where the
// copy read was published.
var HandlerPermissions = map[string]TypeHandlers{
	"AWS::SQS::Queue": {Source: "localstack: localstack-core/localstack/services/sqs/resource_providers/generated/aws_sqs_queue.schema.json",
		Actions: []string{"sqs:CreateQueue", "sqs:GetQueueUrl", "sqs:GetQueueAttributes", "sqs:ListQueueTags", "sqs:TagQueue",
			"sqs:SetQueueAttributes", "sqs:UntagQueue", "sqs:DeleteQueue"},
		DeleteOnly: []string{"sqs:DeleteQueue"}},
	"AWS::SQS::QueuePolicy": {Source: "localstack: localstack-core/localstack/services/sqs/resource_providers/generated/aws_sqs_queuepolicy.schema.json",
		Actions: []string{"sqs:SetQueueAttributes"}},
	"AWS::SNS::Topic": {Source: "pulumi/pulumi-aws-native: aws-cloudformation-schema/aws-sns-topic.json",
		Actions: []string{"sns:CreateTopic", "sns:TagResource", "sns:Subscribe", "sns:GetTopicAttributes", "sns:ListTagsForResource",
			"sns:ListSubscriptionsByTopic", "sns:GetDataProtectionPolicy", "sns:PutDataProtectionPolicy", "sns:SetTopicAttributes",
			"sns:UntagResource", "sns:Unsubscribe", "sns:DeleteTopic"},
		DeleteOnly: []string{"sns:DeleteTopic"}},
	"AWS::SNS::TopicPolicy": {Source: "aws-cloudformation/aws-cloudformation-resource-providers-sns: aws-sns-topicpolicy/aws-sns-topicpolicy.json",
		Actions: []string{"sns:SetTopicAttributes"}},
	"AWS::KMS::Key": {Source: "aws-cloudformation/aws-cloudformation-resource-providers-kms: key/aws-kms-key.json (the same in pulumi/pulumi-aws-native: aws-cloudformation-schema/aws-kms-key.json)",
		Actions: []string{"kms:CreateKey", "kms:EnableKeyRotation", "kms:DisableKey", "kms:TagResource", "kms:DescribeKey",
			"kms:GetKeyPolicy", "kms:GetKeyRotationStatus", "kms:ListResourceTags", "kms:DisableKeyRotation", "kms:EnableKey",
			"kms:PutKeyPolicy", "kms:UntagResource", "kms:UpdateKeyDescription", "kms:ScheduleKeyDeletion"},
		// handlers.delete: DescribeKey (also read's) and ScheduleKeyDeletion.
		DeleteOnly: []string{"kms:ScheduleKeyDeletion"},
		// key/src/main/java/software/amazon/kms/key/CreateHandler.java
		// and UpdateHandler.java: DisableKey only for a key that is not
		// to be enabled, DisableKeyRotation only for one whose rotation is
		// to be off.
		Gates: map[string]Gate{
			"kms:DisableKey":         {Property: "Enabled", When: false, Default: true},
			"kms:DisableKeyRotation": {Property: "EnableKeyRotation", When: false, Default: false},
		}},
	"AWS::S3::Bucket": {Source: "pulumi/pulumi-aws-native: aws-cloudformation-schema/aws-s3-bucket.json",
		Actions: []string{"s3:CreateBucket", "s3:PutBucketTagging", "s3:PutAnalyticsConfiguration", "s3:PutEncryptionConfiguration",
			"s3:PutBucketCORS", "s3:PutInventoryConfiguration", "s3:PutLifecycleConfiguration", "s3:PutMetricsConfiguration",
			"s3:PutBucketNotification", "s3:PutBucketReplication", "s3:PutBucketWebsite", "s3:PutAccelerateConfiguration",
			"s3:PutBucketPublicAccessBlock", "s3:PutReplicationConfiguration", "s3:PutObjectAcl", "s3:PutBucketObjectLockConfiguration",
			"s3:GetBucketAcl", "s3:ListBucket", "s3:DeleteObject", "s3:PutBucketLogging", "s3:PutBucketVersioning",
			"s3:PutObjectLockConfiguration", "s3:PutBucketOwnershipControls", "s3:PutBucketIntelligentTieringConfiguration",
			"s3:GetAccelerateConfiguration", "s3:GetLifecycleConfiguration", "s3:GetBucketPublicAccessBlock",
			"s3:GetAnalyticsConfiguration", "s3:GetBucketCORS", "s3:GetEncryptionConfiguration", "s3:GetInventoryConfiguration",
			"s3:GetBucketLogging", "s3:GetMetricsConfiguration", "s3:GetBucketNotification", "s3:GetBucketVersioning",
			"s3:GetReplicationConfiguration", "s3:GetBucketWebsite", "s3:GetBucketObjectLockConfiguration", "s3:GetBucketTagging",
			"s3:GetBucketOwnershipControls", "s3:GetIntelligentTieringConfiguration", "s3:PutBucketAcl", "s3:DeleteBucketWebsite",
			"s3:DeleteBucketAnalyticsConfiguration", "s3:DeleteBucketCors", "s3:DeleteBucketMetricsConfiguration",
			"s3:DeleteBucketEncryption", "s3:DeleteBucketLifecycle", "s3:DeleteBucketReplication", "s3:DeleteBucket"},
		DeleteOnly: []string{"s3:DeleteBucket"}},
	"AWS::S3::BucketPolicy": {Source: "pulumi/pulumi-aws-native: aws-cloudformation-schema/aws-s3-bucketpolicy.json",
		Actions: []string{"s3:GetBucketPolicy", "s3:PutBucketPolicy", "s3:DeleteBucketPolicy"}},
}

// TypeHandlers is one resource type's handler permissions and where they
// were read.
type TypeHandlers struct {
	Source  string
	Actions []string
	// Gates are the actions the handlers call only when a property of the
	// resource asks for them.
	Gates map[string]Gate
	// DeleteOnly are the actions only the type's delete handler calls
	// (handlers.delete.permissions that no other handler lists):
	// CloudFormation calls it when the stack deletes the resource or a
	// replacement removes the old one, never for a resource whose
	// DeletionPolicy and UpdateReplacePolicy are both Retain. A policy type's
	// (QueuePolicy, TopicPolicy, BucketPolicy) are not gated: the kind's
	// resource, whose policies the access matrix reads, is not the policy.
	DeleteOnly []string
}

// Resource is what the gates read of a kind's own resource: its
// properties as CloudFormation resolves them and its deletion policies.
type Resource struct {
	Properties                          map[string]any
	DeletionPolicy, UpdateReplacePolicy string
}

// retained says that CloudFormation never calls r's delete handler: both
// its policies are Retain (RetainExceptOnCreate deletes a failed create).
func (r *Resource) retained() bool {
	return r != nil && r.DeletionPolicy == "Retain" && r.UpdateReplacePolicy == "Retain"
}

// Gate says when a handler calls a gated action: when the resource's
// Property is When (Default when the property is absent).
type Gate struct {
	Property      string
	When, Default bool
}

// needed says whether the handlers may call the gated action for a
// resource of these properties (nil: unknown, so they may).
func (g Gate) needed(props map[string]any) bool {
	if props == nil {
		return true
	}
	v, ok := props[g.Property]
	if !ok {
		return g.Default == g.When
	}
	switch v {
	case true, "true":
		return g.When
	case false, "false":
		return !g.When
	}
	return true // not a literal: it may be When
}

// ManagedBy are the CloudFormation types that create and change a kind's
// resources and policy.
var ManagedBy = map[Kind][]string{
	Topic: {"AWS::SNS::Topic", "AWS::SNS::TopicPolicy"}, TopicKey: {"AWS::KMS::Key"}, QueueKey: {"AWS::KMS::Key"},
	ResponseKey: {"AWS::KMS::Key"}, BucketKey: {"AWS::KMS::Key"},
	Queue: {"AWS::SQS::Queue", "AWS::SQS::QueuePolicy"}, DeadLetters: {"AWS::SQS::Queue", "AWS::SQS::QueuePolicy"},
	ResponseQueue: {"AWS::SQS::Queue", "AWS::SQS::QueuePolicy"}, ResponseDLQ: {"AWS::SQS::Queue", "AWS::SQS::QueuePolicy"},
	Bucket: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"}, BucketObjects: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"},
	BucketRows: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"}, BucketOutside: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"},
	LedgerAnchor: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"}, LedgerAnchorObjects: {"AWS::S3::Bucket", "AWS::S3::BucketPolicy"},
}

// AdministratorNeeds says whether the administrators of a kind must keep
// action, off its data path: whether a type that manages the kind lists it
// among its handler permissions, a gated one only where r (the kind's own
// resource; nil when unknown) asks for it, and a delete handler's only where
// CloudFormation may delete r. A hardening Deny of any other, such as
// sqs:PurgeQueue or kms:ScheduleKeyDeletion on a retained key, is the
// operator's choice. known is false when a type's handlers are not
// declared: then every action off the data path is needed. The access
// matrix asks it of every cell off the data path.
func AdministratorNeeds(k Kind, action string, r *Resource) (needed, known bool) {
	types := ManagedBy[k]
	if len(types) == 0 {
		return false, false
	}
	for _, typ := range types {
		if _, ok := HandlerPermissions[typ]; !ok {
			return false, false
		}
	}
	var props map[string]any
	if r != nil {
		props = r.Properties
	}
	sets := handlerSets()
	for _, typ := range types {
		if !sets[typ][action] {
			continue
		}
		if g, gated := HandlerPermissions[typ].Gates[action]; gated && !g.needed(props) {
			continue
		}
		if slices.Contains(HandlerPermissions[typ].DeleteOnly, action) && r.retained() {
			continue
		}
		return true, true
	}
	return false, true
}

// handlerSets are HandlerPermissions as sets, built once.
var handlerSets = sync.OnceValue(func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for typ, h := range HandlerPermissions {
		out[typ] = map[string]bool{}
		for _, a := range h.Actions {
			out[typ][a] = true
		}
	}
	return out
})

// DefaultAdministrators is whom the channel takes for the administrators of
// its resources in one account when none are declared: the CloudFormation
// execution role of CDK's default bootstrap (any qualifier), which creates,
// updates and deletes every resource of a `cdk deploy`. Only administrators
// may change a channel resource's policy or attributes, delete it, or use an
// action off the data path.
func DefaultAdministrators(partition, account, region string) string {
	return fmt.Sprintf("arn:%s:iam::%s:role/cdk-*-cfn-exec-role-%s-%s", partition, account, account, region)
}

// Metadata keys the constructs mark the channel's resources with, so that
// the access matrix knows what was declared, not only what was written.
const (
	// PublishersMetadataKey (on the topic): the declared publishers' ARNs.
	PublishersMetadataKey = "erasure:publishers"
	// ReadersMetadataKey (on the response queue): the declared readers' ARNs;
	// on the ledger's anchor, its declared auditors'.
	ReadersMetadataKey = "erasure:readers"
	// AdministratorsMetadataKey (on every locked resource): the declared
	// administrators' ARN patterns.
	AdministratorsMetadataKey = "erasure:administrators"
	// WritersMetadataKey (on the ledger's anchor): the ARN of the one role
	// that writes it, the ledger's sweeper.
	WritersMetadataKey = "erasure:writers"
	// KindMetadataKey (on every locked resource): its Kind.
	KindMetadataKey = "erasure:kind"
)
