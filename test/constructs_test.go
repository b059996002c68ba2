package test

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/constructs-go/constructs/v10"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/stacks"
)

var update = flag.Bool("update", false, "rewrite golden files")

func num(v interface{}) int {
	f, _ := v.(float64)
	return int(f)
}

// TestSubscriberTemplate asserts every property the subscriber derives from
// the constants, for each example store.
func TestSubscriberTemplate(t *testing.T) {
	c := contract.Channel()
	tpls := defaultApp(t)
	for _, name := range []string{"SpaceStore", "LedgerStore"} {
		t.Run(name, func(t *testing.T) {
			tpl := tpls[name]
			queues := tpl.resources("AWS::SQS::Queue")
			if len(queues) != 2 {
				t.Fatalf("%d queues, want queue + DLQ", len(queues))
			}
			var main, dlq map[string]interface{}
			var dlqID string
			for id, q := range queues {
				p := q["Properties"].(map[string]interface{})
				if _, ok := p["RedrivePolicy"]; ok {
					main = p
				} else {
					dlq, dlqID = p, id
				}
			}
			if main == nil || dlq == nil {
				t.Fatal("no redriving queue")
			}
			if got := num(main["VisibilityTimeout"]); got != c.VisibilityTimeoutMultiplier*c.HandlerTimeoutCapSeconds {
				t.Errorf("visibility %d, want %d x T", got, c.VisibilityTimeoutMultiplier)
			}
			redrive := main["RedrivePolicy"].(map[string]interface{})
			if got := num(redrive["maxReceiveCount"]); got != c.MaxReceiveCount {
				t.Errorf("maxReceiveCount %d, want N = %d", got, c.MaxReceiveCount)
			}
			if !strings.Contains(fmt.Sprint(redrive["deadLetterTargetArn"]), dlqID) {
				t.Errorf("redrive does not target the DLQ")
			}
			for what, q := range map[string]map[string]interface{}{"queue": main, "DLQ": dlq} {
				if got := num(q["MessageRetentionPeriod"]); got != c.QueueRetentionSeconds {
					t.Errorf("%s retention %d, want %d", what, got, c.QueueRetentionSeconds)
				}
				if _, ok := q["KmsMasterKeyId"]; !ok {
					t.Errorf("%s is not KMS-encrypted", what)
				}
				if _, ok := q["FifoQueue"]; ok {
					t.Errorf("%s is FIFO", what)
				}
			}
			keyID, key := tpl.one(t, "AWS::KMS::Key")
			if key["EnableKeyRotation"] != true {
				t.Error("key rotation off")
			}
			if !strings.Contains(fmt.Sprint(main["KmsMasterKeyId"]), keyID) || !strings.Contains(fmt.Sprint(dlq["KmsMasterKeyId"]), keyID) {
				t.Error("queues are not under the store's own key")
			}
			if !strings.Contains(fmt.Sprint(key["KeyPolicy"]), "sns.amazonaws.com") {
				t.Error("the store key does not let SNS deliver")
			}
			_, sub := tpl.one(t, "AWS::SNS::Subscription")
			if sub["RawMessageDelivery"] != true || sub["Protocol"] != "sqs" {
				t.Errorf("subscription %v", sub)
			}
			_, esm := tpl.one(t, "AWS::Lambda::EventSourceMapping")
			if fmt.Sprint(esm["FunctionResponseTypes"]) != "[ReportBatchItemFailures]" {
				t.Errorf("no partial batch failures: %v", esm["FunctionResponseTypes"])
			}
			if num(esm["BatchSize"]) != 1 {
				t.Errorf("batch size %v, want the default 1", esm["BatchSize"])
			}
			_, fn := tpl.one(t, "AWS::Lambda::Function")
			if num(fn["Timeout"]) != c.HandlerTimeoutCapSeconds || fn["Runtime"] != "provided.al2023" {
				t.Errorf("function timeout %v runtime %v", fn["Timeout"], fn["Runtime"])
			}
			env := fn["Environment"].(map[string]interface{})["Variables"].(map[string]interface{})
			for _, v := range contract.HandlerEnvironmentVariables {
				if _, ok := env[v]; !ok {
					t.Errorf("handler environment lacks %s", v)
				}
			}
			if env[contract.EnvPassTwoDelaySeconds] != fmt.Sprint(c.PassTwoDelayCapSeconds) || env[contract.EnvBatchTimeoutSeconds] != fmt.Sprint(c.BatchTimeoutCapSeconds) {
				t.Errorf("timing environment %v", env)
			}
			// TLS only on both queues.
			if got := strings.Count(fmt.Sprint(tpl.resources("AWS::SQS::QueuePolicy")), "aws:SecureTransport"); got < 2 {
				t.Errorf("TLS-only policy on %d queues, want 2", got)
			}
			// Least privilege: only these actions, no wildcard.
			allowed := map[string]bool{"logs:CreateLogStream": true, "logs:PutLogEvents": true, "sqs:SendMessage": true,
				"sqs:ReceiveMessage": true, "sqs:ChangeMessageVisibility": true, "sqs:GetQueueUrl": true, "sqs:DeleteMessage": true,
				"sqs:GetQueueAttributes": true, "kms:Decrypt": true, "kms:GenerateDataKey": true}
			for _, pol := range tpl.resources("AWS::IAM::Policy") {
				for _, st := range pol["Properties"].(map[string]interface{})["PolicyDocument"].(map[string]interface{})["Statement"].([]interface{}) {
					acts := st.(map[string]interface{})["Action"]
					list, ok := acts.([]interface{})
					if !ok {
						list = []interface{}{acts}
					}
					for _, a := range list {
						if !allowed[a.(string)] {
							t.Errorf("handler may %v", a)
						}
					}
				}
			}
			if len(tpl.resources("AWS::CloudWatch::Alarm")) < 2 {
				t.Error("missing DLQ / oldest-message alarms")
			}
		})
	}
}

func TestChannelTemplate(t *testing.T) {
	c := contract.Channel()
	tpl := defaultApp(t)["ErasureChannel"]
	_, topic := tpl.one(t, "AWS::SNS::Topic")
	if topic["KmsMasterKeyId"] == nil {
		t.Error("topic not encrypted")
	}
	if _, ok := topic["FifoTopic"]; ok {
		t.Error("FIFO topic")
	}
	keys := tpl.resources("AWS::KMS::Key")
	if len(keys) != 2 {
		t.Fatalf("%d keys, want a topic key and a response key", len(keys))
	}
	for id, k := range keys {
		if k["Properties"].(map[string]interface{})["EnableKeyRotation"] != true {
			t.Errorf("%s: rotation off", id)
		}
	}
	if !strings.Contains(fmt.Sprint(tpl.resources("AWS::SNS::TopicPolicy")), "aws:SecureTransport") {
		t.Error("topic policy is not TLS-only")
	}
	if !strings.Contains(fmt.Sprint(tpl.resources("AWS::SNS::TopicPolicy")), "sns:Subscribe") {
		t.Error("store accounts may not subscribe")
	}
	for id, q := range tpl.resources("AWS::SQS::Queue") {
		p := q["Properties"].(map[string]interface{})
		if num(p["MessageRetentionPeriod"]) != c.QueueRetentionSeconds {
			t.Errorf("%s retention %v", id, p["MessageRetentionPeriod"])
		}
		if rp, ok := p["RedrivePolicy"].(map[string]interface{}); ok && num(rp["maxReceiveCount"]) != c.MaxReceiveCount {
			t.Errorf("%s maxReceiveCount %v", id, rp["maxReceiveCount"])
		}
	}
	alarms := fmt.Sprint(tpl.resources("AWS::CloudWatch::Alarm"))
	if !strings.Contains(alarms, fmt.Sprintf("Threshold:%d", c.ExpiryPeriodSeconds)) {
		t.Errorf("no oldest-response alarm at R: %s", alarms)
	}
	outputs := tpl["Outputs"].(map[string]interface{})
	for _, o := range []string{stacks.OutputTopicArn, stacks.OutputResponseQueueURL, stacks.OutputResponseQueueArn, stacks.OutputResponseKeyArn} {
		if _, ok := outputs[o]; !ok {
			t.Errorf("missing output %s", o)
		}
	}
}

// TestCrossAccountStore: the store in account B subscribes to the topic of
// account A by ARN, and the channel lets account B subscribe and answer.
func TestCrossAccountStore(t *testing.T) {
	cfg := stacks.DefaultAppConfig()
	tpls := defaultApp(t)
	_, sub := tpls["LedgerStore"].one(t, "AWS::SNS::Subscription")
	want := fmt.Sprintf("arn:aws:sns:%s:%s:%s", cfg.Region, cfg.ChannelAccount, stacks.TopicName)
	if sub["TopicArn"] != want || sub["Region"] != cfg.Region {
		t.Errorf("subscription topic %v region %v", sub["TopicArn"], sub["Region"])
	}
	ch := tpls["ErasureChannel"]
	for _, typ := range []string{"AWS::SNS::TopicPolicy", "AWS::SQS::QueuePolicy", "AWS::KMS::Key"} {
		if !strings.Contains(fmt.Sprint(ch.resources(typ)), cfg.StoreAccount) {
			t.Errorf("%s does not admit the store account", typ)
		}
	}
}

// TestLogicalIDsAreStable: a changed logical id replaces a queue and loses its
// messages. Run with -update to accept a deliberate change.
func TestLogicalIDsAreStable(t *testing.T) {
	var lines []string
	for stack, tpl := range defaultApp(t) {
		for _, typ := range []string{"AWS::SQS::Queue", "AWS::SNS::Topic", "AWS::KMS::Key", "AWS::SNS::Subscription", "AWS::Lambda::Function", "AWS::Lambda::EventSourceMapping", "AWS::S3::Bucket"} {
			for id := range tpl.resources(typ) {
				lines = append(lines, stack+" "+typ+" "+id)
			}
		}
	}
	sort.Strings(lines)
	const golden = "testdata/logical-ids.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		want = append(want, sc.Text())
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logical ids changed:\n got %v\nwant %v", lines, want)
	}
}

// explainedSuppressions are the only cdk-nag findings the app suppresses,
// each with its reason in the construct that suppresses it
// (constructs/erasure/nag_suppressions.go).
var explainedSuppressions = map[string]bool{
	"AwsSolutions-S1": true, "AwsSolutions-IAM5": true,
	"NIST.800.53.R5-CloudWatchAlarmAction": true, "NIST.800.53.R5-LambdaDLQ": true,
	"NIST.800.53.R5-CloudWatchLogGroupEncrypted": true, "NIST.800.53.R5-IAMNoInlinePolicy": true,
	"NIST.800.53.R5-LambdaConcurrency": true, "NIST.800.53.R5-LambdaInsideVPC": true,
	"NIST.800.53.R5-S3BucketLoggingEnabled": true, "NIST.800.53.R5-S3BucketReplicationEnabled": true,
	"Serverless-SQSRedrivePolicy": true, "Serverless-SNSRedrivePolicy": true, "Serverless-LambdaDLQ": true,
	"Serverless-LambdaTracing": true, "Serverless-LambdaEventSourceMappingDestination": true,
	// The ErasureLedger's: its root secret is not rotated, its table is on demand with point-in-time recovery
	// and no backup plan of the construct's choosing, its schedule has nothing to re-deliver.
	"AwsSolutions-SMG4": true, "NIST.800.53.R5-SecretsManagerRotationEnabled": true,
	"NIST.800.53.R5-DynamoDBInBackupPlan": true, "NIST.800.53.R5-DynamoDBAutoscalingEnabled": true, "Serverless-EventBusDLQ": true,
	// The ledger's anchor: signed tree heads under S3's own key, so that nobody who administers a KMS key can
	// make the anchor unreadable.
	"NIST.800.53.R5-S3DefaultEncryptionKMS": true,
}

// nagPacks are the cdk-nag packs the app runs.
var nagPacks = []string{"AwsSolutions", "Serverless", "NIST.800.53.R5", "HIPAA.Security", "PCI.DSS.321"}

// explained says whether a suppressed finding is one of
// explainedSuppressions: a HIPAA Security or PCI DSS rule as its NIST 800-53
// rev 5 twin of the same name (design.NewSuppression suppresses both).
func explained(rule string) bool {
	for _, p := range []string{"HIPAA.Security-", "PCI.DSS.321-"} {
		if r, ok := strings.CutPrefix(rule, p); ok {
			rule = "NIST.800.53.R5-" + r
		}
	}
	return explainedSuppressions[rule]
}

// TestAppIsNagClean: cdk-nag's AwsSolutions, Serverless, NIST 800-53 rev 5,
// HIPAA Security and PCI DSS 3.2.1 packs ran over every stack of the default app, every rule they checked is
// Compliant, and nothing is suppressed but the explained findings, each with
// a reason.
func TestAppIsNagClean(t *testing.T) {
	tpls := defaultApp(t)
	var reports []string
	for _, pack := range nagPacks {
		r, _ := filepath.Glob(filepath.Join(defaultDir, pack+"-*-NagReport.csv"))
		if len(r) != len(tpls) {
			t.Fatalf("%d %s reports for %d stacks", len(r), pack, len(tpls))
		}
		reports = append(reports, r...)
	}
	rules := 0
	for _, path := range reports {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows[1:] {
			rules++
			if row[2] == "Suppressed" && explained(row[0]) && strings.TrimSpace(row[4]) != "" {
				continue
			}
			if row[2] != "Compliant" {
				t.Errorf("%s: %s on %s is %s (%s)", filepath.Base(path), row[0], row[1], row[2], row[3])
			}
		}
	}
	if rules == 0 {
		t.Fatal("no nag rule was checked")
	}
	for name, tpl := range tpls {
		for id, r := range tpl.all() {
			meta, _ := r["Metadata"].(map[string]interface{})
			nag, _ := meta["cdk_nag"].(map[string]interface{})
			rules, _ := nag["rules_to_suppress"].([]interface{})
			for _, rule := range rules {
				m := rule.(map[string]interface{})
				if !explained(fmt.Sprint(m["id"])) || fmt.Sprint(m["reason"]) == "" {
					t.Errorf("%s/%s suppresses %v without an explained reason", name, id, m["id"])
				}
			}
		}
	}
}

// TestSubscriberAcrossAnOptInRegion: a store in an opt-in region subscribed
// to a topic of a default region names the regional SNS principal in its
// queue and key policies (the global one would see every delivery dropped),
// and the check, which asks the evaluator with the principal SNS presents,
// passes it; the same store with the global principal forced is refused.
func TestSubscriberAcrossAnOptInRegion(t *testing.T) {
	cfg := stacks.DefaultAppConfig()
	build := func(forceGlobal bool) (awscdk.App, string) {
		app, dir := newApp(t)
		topicArn := fmt.Sprintf("arn:aws:sns:%s:%s:%s", cfg.Region, cfg.ChannelAccount, stacks.TopicName)
		awscdk.Validations_Of(app).AddPlugins(erasurecheck.NewPlugin(erasurecheck.Config{TopicArns: []string{topicArn}}))
		stack := awscdk.NewStack(app, jsii.String("OptInStore"), &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String(cfg.StoreAccount), Region: jsii.String("me-south-1")}})
		topic := awssns.Topic_FromTopicArn(stack, jsii.String("Topic"), jsii.String(topicArn))
		rq := awssqs.Queue_FromQueueAttributes(stack, jsii.String("Responses"), &awssqs.QueueAttributes{
			QueueArn: jsii.String(fmt.Sprintf("arn:aws:sqs:%s:%s:%s", cfg.Region, cfg.ChannelAccount, stacks.ResponseQueueName)),
			KeyArn:   jsii.String(fmt.Sprintf("arn:aws:kms:%s:%s:key/00000000-0000-0000-0000-000000000000", cfg.Region, cfg.ChannelAccount)),
		})
		sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
			Name: "optin", Topic: topic, ResponseQueue: rq, HandlerProps: nodeHandler(),
		})
		if forceGlobal { // the policy as CDK's own SqsSubscription writes it today
			for _, c := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
				p, ok := c.(awssqs.CfnQueuePolicy)
				if !ok {
					continue
				}
				doc, _ := stack.Resolve(p.PolicyDocument()).(map[string]interface{})
				stmts, _ := doc["Statement"].([]interface{})
				for i, st := range stmts {
					if strings.Contains(fmt.Sprint(st), "sns.me-south-1.amazonaws.com") {
						p.AddPropertyOverride(jsii.String(fmt.Sprintf("PolicyDocument.Statement.%d.Principal.Service", i)), jsii.String("sns.amazonaws.com"))
					}
				}
			}
		}
		_ = sub
		return app, dir
	}
	app, dir := build(false)
	if err := synth(app); err != nil {
		t.Fatalf("synth refused the store across an opt-in region: %v", err)
	}
	tpl := readTemplates(t, dir)["OptInStore"]
	for _, typ := range []string{"AWS::SQS::QueuePolicy", "AWS::KMS::Key"} {
		if doc := fmt.Sprint(tpl.resources(typ)); !strings.Contains(doc, "sns.me-south-1.amazonaws.com") {
			t.Errorf("%s does not name the regional SNS principal: %s", typ, doc)
		}
	}
	app, dir = build(true)
	if err := synth(app); err == nil {
		t.Fatal("synth passed with the global principal across an opt-in region")
	}
	vs, err := erasurecheck.ReadValidationReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(erasurecheck.FailingLines(vs), "\n")
	if !strings.Contains(lines, "ErasureSubscriber[optin].queuePolicy: BreaksErasure") || !strings.Contains(lines, "allow sqs:SendMessage to sns.me-south-1.amazonaws.com") || strings.Count(lines, "\n") != 0 {
		t.Errorf("the global principal across an opt-in region: want one queuePolicy line naming the regional principal, got:\n%s", lines)
	}
}
