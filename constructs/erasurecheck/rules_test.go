package erasurecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
)

// A rule's fixtures: a template that fails it and one that passes, each an
// edit of testdata/store-clean.yaml (or of the bitmap store built on it).

// edit is one replacement in the base template; n < 0 replaces every match.
type edit struct {
	old, new string
}

// ruleFixture is a rule's failing and passing template: edits of a base.
type ruleFixture struct {
	bitmap bool   // on the bitmap store (bitmapStore), not the plain one
	fail   []edit // the failing template
	pass   []edit // the passing template (none: the base as is)
	// cfg changes the check's configuration for both.
	cfg func(c *Config)
	// failCfg changes it for the failing template only.
	failCfg func(c *Config)
	// execRole, when set, deploys both templates as a cloud assembly's stack
	// in 111111111111/eu-west-1 whose manifest names this CloudFormation
	// execution role.
	execRole string
}

// appFixtureRules are the rules whose fixtures need the channel itself in
// the app (its roster, its publishers, its access matrix): their failing and
// passing assemblies are the example app's, in test/rule_fixtures_test.go.
var appFixtureRules = map[string]bool{"EC319": true, "EC320": true, "EC611": true, "EC612": true, "EC613": true, "EC614": true}

const (
	subscription = "      RawMessageDelivery: true\n"
	requestsQ    = "      VisibilityTimeout: 360\n"
	mappingEnd   = "      FunctionResponseTypes: [ReportBatchItemFailures]\n"
	handlerEnv   = "          ERASURE_SUBSCRIBER: plain\n"
	timeoutLine  = "      Timeout: 60\n"
	otherRole    = "  Poller:\n    Type: AWS::IAM::Role\n    Properties:\n      AssumeRolePolicyDocument:\n        Statement:\n          - Effect: Allow\n            Principal: { Service: ec2.amazonaws.com }\n            Action: sts:AssumeRole\n" +
		"      Policies:\n        - PolicyName: poll\n          PolicyDocument:\n            Statement:\n              - Effect: Allow\n                Action: sqs:ReceiveMessage\n                Resource: !GetAtt Requests.Arn\n"
	inlineTopic = "  Topic:\n    Type: AWS::SNS::Topic\n    Properties:\n      TopicName: erasure-topic\n"
	keyedTopic  = "  Topic:\n    Type: AWS::SNS::Topic\n    Properties:\n      TopicName: erasure-topic\n      KmsMasterKeyId: !GetAtt Key.Arn\n"
)

// keyPolicyStart is where the store key's statements begin.
const keyPolicyStart = "      KeyPolicy:\n        Version: 2012-10-17\n        Statement:\n"

// dataPerimeter is AWS's data perimeter statement (the data perimeter
// guidance's resource-based policy: only the organisation's principals, AWS
// services exempt).
const dataPerimeter = "          - Sid: DataPerimeter\n            Effect: Deny\n            Principal: \"*\"\n            Action: \"*\"\n            Resource: \"*\"\n            Condition:\n" +
	"              StringNotEqualsIfExists: { aws:PrincipalOrgID: o-abcdefghij }\n              BoolIfExists: { aws:PrincipalIsAWSService: \"false\" }\n"

// lookupRole is the store's lookup role as ErasureSubscriber makes it, for
// the ledger's reader of the channel's account.
const lookupRole = "  LookupRole:\n    Type: AWS::IAM::Role\n    Properties:\n      RoleName: erasure-roleid-plain\n      Path: /erasure-channel-lookup/\n      AssumeRolePolicyDocument:\n        Statement:\n          - Effect: Allow\n            Principal: { AWS: arn:aws:iam::111111111111:root }\n            Action: sts:AssumeRole\n" +
	"      Policies:\n        - PolicyName: ReadTheHandlerRoleId\n          PolicyDocument:\n            Statement:\n              - Effect: Allow\n                Action: iam:GetRole\n                Resource: !GetAtt HandlerRole.Arn\n"

// keyGrant is the handler role's grant on its queue's key.
const keyGrant = "              - Effect: Allow\n                Action: [kms:Decrypt, kms:GenerateDataKey]\n                Resource: !GetAtt Key.Arn\n"

func add(anchor, text string) edit { return edit{anchor, anchor + text} }
func drop(text string) edit        { return edit{text, ""} }
func resources(text string) edit   { return edit{"Resources:\n", "Resources:\n" + text} }
func bucketProps(text string) edit { return add("    Type: AWS::S3::Bucket\n    Properties:\n", text) }
func bucketEnv(name, value string) edit {
	return edit{"ERASURE_BITMAP_READ_TTL_MS: \"1000\"\n", "ERASURE_BITMAP_READ_TTL_MS: \"1000\"\n          " + name + ": " + value + "\n"}
}

// bitmapStore is the clean store made a bitmap store: its handler names a
// versioned bucket whose lifecycle bounds noncurrent versions and aborts
// multipart uploads, under a key of its own.
var bitmapStore = []edit{
	add(handlerEnv, "          ERASURE_BITMAP_BUCKET: !Ref Library\n          ERASURE_BITMAP_PREFIX: lib/\n          ERASURE_BITMAP_READ_TTL_MS: \"1000\"\n"),
	resources("  LibraryKey:\n    Type: AWS::KMS::Key\n    Properties:\n      KeyPolicy:\n        Statement:\n          - Effect: Allow\n            Principal: { AWS: arn:aws:iam::111111111111:root }\n            Action: kms:*\n            Resource: \"*\"\n" +
		"  Library:\n    Type: AWS::S3::Bucket\n    Properties:\n      VersioningConfiguration: { Status: Enabled }\n" +
		"      BucketEncryption:\n        ServerSideEncryptionConfiguration:\n          - ServerSideEncryptionByDefault: { SSEAlgorithm: aws:kms, KMSMasterKeyID: !GetAtt LibraryKey.Arn }\n" +
		"      LifecycleConfiguration:\n        Rules:\n          - Id: bound\n            Status: Enabled\n            Prefix: lib/\n            NoncurrentVersionExpiration: { NoncurrentDays: 7 }\n            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }\n"),
}

const backupPlan = "  Plan:\n    Type: AWS::Backup::BackupPlan\n    Properties:\n      BackupPlan:\n        BackupPlanName: library\n        BackupPlanRule:\n          - RuleName: daily\n            TargetBackupVault: vault\n"
const backupSelection = "  Selection:\n    Type: AWS::Backup::BackupSelection\n    Properties:\n      BackupPlanId: %s\n      BackupSelection:\n        SelectionName: library\n        IamRoleArn: arn:aws:iam::111111111111:role/backup\n        Resources: [!GetAtt Library.Arn]\n"

func selection(plan string) string { return strings.Replace(backupSelection, "%s", plan, 1) }

// ruleFixtures are every store rule's fixtures, by rule id.
var ruleFixtures = map[string]ruleFixture{
	"EC001": {fail: nil, pass: []edit{add(timeoutLine, "      ReservedConcurrentExecutions: 2\n")},
		cfg: func(c *Config) {
			c.Acknowledgements = []Acknowledgement{{Rule: "EC312", Stack: "store", LogicalID: "Handler", Reason: "a store of ten requests a day is never throttled"}}
		}},
	"EC101": {fail: []edit{{"      Protocol: sqs\n", "      Protocol: lambda\n"}}},
	"EC102": {fail: []edit{{"      Endpoint: !GetAtt Requests.Arn\n", "      Endpoint: arn:aws:sqs:eu-west-1:999999999999:elsewhere\n"}}},
	"EC103": {fail: []edit{{"      Endpoint: !GetAtt Requests.Arn\n", "      Endpoint: !GetAtt Key.Arn\n"}}},
	"EC104": {fail: []edit{{subscription, "      RawMessageDelivery: false\n"}}},
	"EC105": {fail: []edit{add(subscription, "      FilterPolicy: { store: [orders] }\n")}},
	"EC106": {fail: []edit{add(subscription, "      Region: us-east-1\n")}, pass: []edit{add(subscription, "      Region: eu-west-1\n")}},
	"EC107": {fail: []edit{resources(inlineTopic + "      Subscription:\n        - Protocol: sqs\n          Endpoint: !GetAtt Requests.Arn\n")}, pass: []edit{resources(inlineTopic)}},
	"EC111": {fail: []edit{add(requestsQ, "      FifoQueue: true\n")}},
	"EC112": {fail: []edit{{"  Mapping:\n    Type: AWS::Lambda::EventSourceMapping\n", "  Mapping:\n    Type: AWS::CloudFormation::WaitConditionHandle\n"}}},
	"EC113": {fail: []edit{drop("      RedrivePolicy:\n        deadLetterTargetArn: !GetAtt DeadLetters.Arn\n        maxReceiveCount: 5\n")}},
	"EC114": {fail: []edit{{"      KmsMasterKeyId: !Ref Key\n      MessageRetentionPeriod: 86400\n", "      KmsMasterKeyId: !Ref Key\n      MessageRetentionPeriod: 1209600\n"}}},
	"EC201": {fail: []edit{{timeoutLine, "      Timeout: 61\n"}}},
	"EC202": {fail: []edit{{requestsQ, "      VisibilityTimeout: 300\n"}}},
	"EC203": {fail: []edit{{"        maxReceiveCount: 5\n", "        maxReceiveCount: 9\n"}}},
	"EC204": {fail: []edit{add(handlerEnv, "          ERASURE_PASS_TWO_DELAY_SECONDS: \"301\"\n")}, pass: []edit{add(handlerEnv, "          ERASURE_PASS_TWO_DELAY_SECONDS: \"300\"\n")}},
	"EC205": {fail: []edit{add(handlerEnv, fmt.Sprintf("          ERASURE_BATCH_TIMEOUT_SECONDS: \"%d\"\n", contract.Channel().BatchTimeoutCapSeconds+1))},
		pass: []edit{add(handlerEnv, fmt.Sprintf("          ERASURE_BATCH_TIMEOUT_SECONDS: \"%d\"\n", contract.Channel().BatchTimeoutCapSeconds))}},
	"EC206": {fail: []edit{{"      BatchSize: 1\n", "      BatchSize: 11\n"}}, pass: []edit{{"      BatchSize: 1\n", "      BatchSize: 10\n"}}},
	"EC207": {fail: []edit{add("      BatchSize: 1\n", "      MaximumBatchingWindowInSeconds: 301\n")}},
	"EC208": {fail: []edit{{"      MessageRetentionPeriod: 86400\n" + requestsQ, "      MessageRetentionPeriod: 345600\n" + requestsQ}}},
	"EC209": {fail: []edit{add(requestsQ, "      DelaySeconds: 901\n")}, pass: []edit{add(requestsQ, "      DelaySeconds: 5\n")}},
	"EC210": {fail: []edit{add("      BatchSize: 1\n", "      MaximumBatchingWindowInSeconds: 300\n")}},
	"EC211": {fail: []edit{{requestsQ, "      VisibilityTimeout: !ImportValue other-app-visibility\n"}}},
	"EC301": {fail: []edit{{"      FunctionName: !Ref Handler\n", "      FunctionName: arn:aws:lambda:eu-west-1:999999999999:function:elsewhere\n"}}},
	"EC302": {fail: []edit{add(mappingEnd, "      FilterCriteria: { Filters: [{ Pattern: '{\"body\":{\"k\":[\"x\"]}}' }] }\n")}},
	"EC303": {fail: []edit{add(mappingEnd, "      StartingPosition: LATEST\n")}},
	"EC304": {fail: []edit{drop(mappingEnd)}},
	"EC305": {fail: []edit{add(mappingEnd, "      Enabled: false\n")}, pass: []edit{add(mappingEnd, "      Enabled: true\n")}},
	"EC311": {fail: []edit{add(timeoutLine, "      ReservedConcurrentExecutions: 0\n")}, pass: []edit{add(timeoutLine, "      ReservedConcurrentExecutions: 5\n")}},
	"EC312": {fail: []edit{add(timeoutLine, "      ReservedConcurrentExecutions: 2\n")}, pass: []edit{add(timeoutLine, "      ReservedConcurrentExecutions: 5\n")}},
	"EC313": {fail: []edit{add(handlerEnv, "          ERASURE_PASS_TWO_DELAY_SECONDS: 600s\n")}},
	"EC314": {fail: []edit{{"          ERASURE_QUEUE_URL: !Ref Requests\n", "          ERASURE_QUEUE_URL: !ImportValue other-app-queue-url\n"}}},
	"EC315": {fail: []edit{{"          ERASURE_QUEUE_URL: !Ref Requests\n", "          ERASURE_QUEUE_URL: !Ref DeadLetters\n"}}},
	"EC316": {fail: []edit{{"          ERASURE_RESPONSE_QUEUE_URL: !Sub", "          ERASURE_RESPONSE_QUEUE_URL: !Ref DeadLetters\n          UNUSED: !Sub"}}},
	"EC317": {fail: []edit{drop(keyGrant)}},
	"EC318": {fail: []edit{{"          ERASURE_RESPONSE_QUEUE_URL: !Sub", "          ERASURE_RESPONSE_QUEUE_URL: !ImportValue other-app-responses\n          UNUSED: !Sub"}}},
	"EC321": {fail: []edit{{"Resource: arn:aws:sqs:eu-west-1:111111111111:erasure-responses", "Resource: arn:aws:sqs:eu-west-1:111111111111:another-queue"}}},
	"EC322": {fail: []edit{drop("              - Effect: Allow\n                Action: [kms:GenerateDataKey, kms:Decrypt]\n                Resource: arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000\n")}},
	// Without the boundary's document, a line; with it (or an AWS managed
	// policy the check knows), judged.
	"EC323": {fail: []edit{add("    Type: AWS::IAM::Role\n    Properties:\n", "      PermissionsBoundary: arn:aws:iam::111111111111:policy/landing-zone\n")},
		pass: []edit{add("    Type: AWS::IAM::Role\n    Properties:\n", "      PermissionsBoundary: arn:aws:iam::111111111111:policy/landing-zone\n")},
		cfg: func(c *Config) {
			c.Boundaries = map[string]any{"arn:aws:iam::111111111111:policy/landing-zone": map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}}
		},
		failCfg: func(c *Config) { c.Boundaries = nil }},
	"EC331": {fail: []edit{resources(otherRole)}},
	"EC324": {fail: []edit{{"[sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes, sqs:SendMessage]", "[sqs:ReceiveMessage, sqs:GetQueueAttributes, sqs:SendMessage]"}}},
	"EC325": {fail: []edit{{"[sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes, sqs:SendMessage]", "[sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes]"}}},
	// AWS's data perimeter on the key: decided with the organisation's id,
	// undecided without it.
	"EC326": {fail: []edit{add(keyPolicyStart, dataPerimeter)}, pass: []edit{add(keyPolicyStart, dataPerimeter)},
		cfg: func(c *Config) { c.OrganizationID = "o-abcdefghij" }, failCfg: func(c *Config) { c.OrganizationID = "" }},
	"EC327": {fail: []edit{add("    Type: AWS::IAM::Role\n    Properties:\n", "      RoleName: erasure-handler-plain\n      Path: /landing-zone/\n")},
		pass: []edit{add("    Type: AWS::IAM::Role\n    Properties:\n", "      RoleName: erasure-handler-plain\n      Path: /erasure-channel/\n")}},
	"EC328": {fail: []edit{resources(lookupRole + "      PermissionsBoundary: arn:aws:iam::aws:policy/PowerUserAccess\n")}, pass: []edit{resources(lookupRole)}},
	"EC604": {execRole: "arn:${AWS::Partition}:iam::111111111111:role/landing-zone/cfn-exec",
		fail: []edit{add(keyPolicyStart, "          - Sid: OnlyAdministratorsAdminister\n            Effect: Deny\n            Principal: { AWS: \"*\" }\n            NotAction: [kms:Decrypt, kms:GenerateDataKey]\n            Resource: \"*\"\n            Condition:\n              ArnNotLike: { aws:PrincipalArn: \"arn:aws:iam::111111111111:role/cdk-*-cfn-exec-role-*\" }\n")},
		pass: []edit{add(keyPolicyStart, "          - Sid: OnlyAdministratorsAdminister\n            Effect: Deny\n            Principal: { AWS: \"*\" }\n            NotAction: [kms:Decrypt, kms:GenerateDataKey]\n            Resource: \"*\"\n            Condition:\n              ArnNotLike: { aws:PrincipalArn: [\"arn:aws:iam::111111111111:role/cdk-*-cfn-exec-role-*\", \"arn:aws:iam::111111111111:role/landing-zone/cfn-exec\"] }\n")}},
	"EC401": {fail: []edit{drop("      KmsMasterKeyId: !GetAtt Key.Arn\n")}},
	"EC402": {fail: []edit{{"      KmsMasterKeyId: !GetAtt Key.Arn\n", "      KmsMasterKeyId: alias/aws/sqs\n"}}},
	"EC403": {fail: []edit{resources(keyedTopic), {"      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n", "      TopicArn: !Ref Topic\n"}},
		pass: []edit{resources(inlineTopic), {"      TopicArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic\n", "      TopicArn: !Ref Topic\n"}}},
	"EC404": {fail: []edit{{"Action: [kms:Decrypt, kms:GenerateDataKey]", "Action: [kms:Decrypt]"}}},
	"EC405": {fail: []edit{{"            Resource: \"*\"\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n  DeadLetters:", "            Resource: \"*\"\n  DeadLetters:"}}},
	"EC406": {fail: []edit{{"sns.amazonaws.com }\n            Action: sqs:SendMessage", "events.amazonaws.com }\n            Action: sqs:SendMessage"}}},
	"EC407": {fail: []edit{{"            Resource: !GetAtt Requests.Arn\n            Condition:\n              ArnEquals: { aws:SourceArn: arn:aws:sns:eu-west-1:111111111111:erasure-topic }\n", "            Resource: !GetAtt Requests.Arn\n"},
		{"          # Only the topic's SNS and the handler send", "  Unused:\n    Type: AWS::SNS::Topic\n    Properties:\n      Tags:\n          # Only the topic's SNS and the handler send"}}},
	"EC501": {bitmap: true, fail: []edit{bucketProps("      ObjectLockEnabled: true\n")}},
	"EC502": {bitmap: true, fail: []edit{{"{ Status: Enabled }", "{ Status: Suspended }"}}},
	"EC503": {bitmap: true, fail: []edit{add("            Prefix: lib/\n", "            ExpirationInDays: 30\n")}},
	"EC504": {bitmap: true, fail: []edit{{"NoncurrentDays: 7", "NoncurrentDays: 90"}}},
	"EC505": {bitmap: true, fail: []edit{drop("            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }\n")}},
	"EC506": {bitmap: true, fail: []edit{{"ERASURE_BITMAP_READ_TTL_MS: \"1000\"", "ERASURE_BITMAP_READ_TTL_MS: \"0\""}}},
	"EC511": {bitmap: true, fail: []edit{bucketProps("      ReplicationConfiguration:\n        Role: arn:aws:iam::111111111111:role/replication\n        Rules:\n          - Status: Enabled\n            Prefix: lib/\n            Destination: { Bucket: arn:aws:s3:::replica }\n")},
		pass: []edit{bucketProps("      ReplicationConfiguration:\n        Role: arn:aws:iam::111111111111:role/replication\n        Rules:\n          - Status: Enabled\n            Prefix: logs/\n            Destination: { Bucket: arn:aws:s3:::replica }\n")}},
	"EC512": {bitmap: true, fail: []edit{bucketProps("      IntelligentTieringConfigurations:\n        - Id: archive\n          Status: Enabled\n          Prefix: lib/\n          Tierings: [{ AccessTier: ARCHIVE_ACCESS, Days: 90 }]\n")}},
	"EC513": {bitmap: true, fail: []edit{resources(selection("plan-of-another-app"))}, pass: []edit{resources(backupPlan + "            Lifecycle: { DeleteAfterDays: 7 }\n" + selection("!Ref Plan"))}},
	"EC514": {bitmap: true, fail: []edit{resources(backupPlan + selection("!Ref Plan"))}, pass: []edit{resources(backupPlan + "            Lifecycle: { DeleteAfterDays: 7 }\n" + selection("!Ref Plan"))}},
	"EC515": {bitmap: true, fail: []edit{resources(backupPlan + "            Lifecycle: { DeleteAfterDays: 90 }\n" + selection("!Ref Plan"))}, pass: []edit{resources(backupPlan + "            Lifecycle: { DeleteAfterDays: 7 }\n" + selection("!Ref Plan"))}},
	"EC516": {bitmap: true, fail: []edit{{"KMSMasterKeyID: !GetAtt LibraryKey.Arn", "KMSMasterKeyID: arn:aws:kms:eu-west-1:111111111111:key/topic-key"}},
		cfg: func(c *Config) { c.TopicKeyArns = []string{"arn:aws:kms:eu-west-1:111111111111:key/topic-key"} }},
	"EC517": {bitmap: true, fail: []edit{{"KMSMasterKeyID: !GetAtt LibraryKey.Arn", "KMSMasterKeyID: arn:aws:kms:eu-west-1:222222222222:key/elsewhere"}}},
	"EC518": {bitmap: true, fail: []edit{{"KMSMasterKeyID: !GetAtt LibraryKey.Arn", "KMSMasterKeyID: !GetAtt Key.Arn"}}},
	"EC601": {fail: []edit{{"AWSTemplateFormatVersion: \"2010-09-09\"\n", "AWSTemplateFormatVersion: \"2010-09-09\"\nTransform: AWS::LanguageExtensions\n"}}},
	"EC602": {fail: []edit{add("      PolicyDocument:\n        Statement:\n", strings.Repeat("          - Sid: "+strings.Repeat("Padding", 40)+"\n            Effect: Deny\n            Principal: { AWS: arn:aws:iam::999999999999:root }\n            Action: sqs:PurgeQueue\n            Resource: !GetAtt Requests.Arn\n", 40))}},
	"EC603": {fail: []edit{add(handlerEnv, "          PADDING: "+strings.Repeat("x", 5000)+"\n")}},
}

// TestEveryRuleHasFixtures: every rule of the registry has a failing and a
// passing template here (or, for the channel's own rules, in
// test/rule_fixtures_test.go), and each fixture fails its rule and passes
// it: the rule is tested by what it refuses and by what it lets through.
func TestEveryRuleHasFixtures(t *testing.T) {
	base := cleanStore(t)
	for _, r := range Rules() {
		if r.Source == FromConstruct {
			continue // no template shows a prop: test/construct_rules_test.go holds them to the construct's refusals
		}
		fx, ok := ruleFixtures[r.ID]
		if !ok {
			if !appFixtureRules[r.ID] {
				t.Errorf("rule %s (%s) has no fixtures", r.ID, r.Name)
			}
			continue
		}
		t.Run(r.ID+"_"+r.Name, func(t *testing.T) {
			start := base
			if fx.bitmap {
				start = applyEdits(t, base, bitmapStore)
			}
			cfg := Config{TopicArns: []string{benchTopic}}
			if fx.cfg != nil {
				fx.cfg(&cfg)
			}
			failCfg := cfg
			if fx.failCfg != nil {
				fx.failCfg(&failCfg)
			}
			if got := ruleFindingsAs(t, applyEdits(t, start, fx.fail), failCfg, r.ID, fx.execRole); len(got) == 0 {
				t.Errorf("the failing template has no finding of %s", r.ID)
			} else if got[0].Rule.Type != r.Type && r.ID != "EC504" {
				t.Errorf("a finding of %s has type %s, the rule %s", r.ID, got[0].Type, r.Type)
			}
			for _, f := range ruleFindingsAs(t, applyEdits(t, start, fx.pass), cfg, r.ID, fx.execRole) {
				t.Errorf("the passing template has a finding of %s: %s", r.ID, f.String())
			}
		})
	}
	for id := range ruleFixtures {
		if RuleByID(id) == nil {
			t.Errorf("fixtures for %s, which is no rule", id)
		}
	}
}

func applyEdits(t *testing.T, body string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if !strings.Contains(body, e.old) {
			t.Fatalf("the fixture's anchor is not in the template: %q", e.old)
		}
		body = strings.Replace(body, e.old, e.new, 1)
	}
	return body
}

// ruleFindings checks body (as store.yaml) and returns the findings of rule id.
func ruleFindings(t *testing.T, body string, cfg Config, id string) Findings {
	t.Helper()
	return ruleFindingsAs(t, body, cfg, id, "")
}

// ruleFindingsAs is ruleFindings, the template deployed as a cloud
// assembly's stack with CloudFormation execution role execRole when one is
// given.
func ruleFindingsAs(t *testing.T, body string, cfg Config, id, execRole string) Findings {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "store.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if execRole != "" {
		manifest := `{"version":"55.0.0","artifacts":{"store":{"type":"aws:cloudformation:stack","environment":"aws://111111111111/eu-west-1",` +
			`"properties":{"templateFile":"store.yaml","cloudFormationExecutionRoleArn":"` + execRole + `"}}}}`
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		p = dir
	}
	res, err := CheckPaths([]string{p}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out Findings
	for _, f := range res.Findings {
		if f.Rule == nil {
			t.Errorf("a finding without a rule: %s", f.String())
			continue
		}
		if f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}
