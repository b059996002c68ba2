package erasurecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTopic is the erasure topic the generated stores subscribe to.
const benchTopic = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"

// handRolledStore is testdata/store-clean.yaml's store as JSON, its logical
// ids prefixed with p: a key, a queue and its dead-letter queue, the queue's
// policy, the subscription, the handler's role, the handler and its event
// source (8 resources).
func handRolledStore(p string) map[string]any {
	ref := func(id string) any { return map[string]any{"Ref": p + id} }
	arn := func(id string) any { return map[string]any{"Fn::GetAtt": []any{p + id, "Arn"}} }
	fromTopic := map[string]any{"ArnEquals": map[string]any{"aws:SourceArn": benchTopic}}
	return map[string]any{
		p + "Key": map[string]any{"Type": "AWS::KMS::Key", "Properties": map[string]any{"EnableKeyRotation": true, "KeyPolicy": map[string]any{
			"Version": "2012-10-17", "Statement": []any{
				map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": map[string]any{"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}, "Action": "kms:*", "Resource": "*"},
				map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": "sns.amazonaws.com"}, "Action": []any{"kms:Decrypt", "kms:GenerateDataKey"}, "Resource": "*", "Condition": fromTopic},
			}}}},
		p + "DeadLetters": map[string]any{"Type": "AWS::SQS::Queue", "Properties": map[string]any{"KmsMasterKeyId": ref("Key"), "MessageRetentionPeriod": 86400}},
		p + "Requests": map[string]any{"Type": "AWS::SQS::Queue", "Properties": map[string]any{"KmsMasterKeyId": arn("Key"), "MessageRetentionPeriod": 86400,
			"VisibilityTimeout": 360, "RedrivePolicy": map[string]any{"deadLetterTargetArn": arn("DeadLetters"), "maxReceiveCount": 5}}},
		p + "RequestsPolicy": map[string]any{"Type": "AWS::SQS::QueuePolicy", "Properties": map[string]any{"Queues": []any{ref("Requests")}, "PolicyDocument": map[string]any{
			"Statement": []any{
				map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage", "Resource": arn("Requests"), "Condition": fromTopic},
				map[string]any{"Effect": "Deny", "Principal": map[string]any{"AWS": "*"}, "Action": "sqs:SendMessage", "Resource": arn("Requests"),
					"Condition": map[string]any{"ArnNotLike": map[string]any{"aws:SourceArn": benchTopic, "aws:PrincipalArn": arn("HandlerRole")}}},
			}}}},
		p + "Subscription": map[string]any{"Type": "AWS::SNS::Subscription", "Properties": map[string]any{"TopicArn": benchTopic, "Protocol": "sqs",
			"Endpoint": arn("Requests"), "RawMessageDelivery": true}},
		p + "HandlerRole": map[string]any{"Type": "AWS::IAM::Role", "Properties": map[string]any{
			"AssumeRolePolicyDocument": map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}}},
			"Policies": []any{map[string]any{"PolicyName": "erasure", "PolicyDocument": map[string]any{"Statement": []any{
				map[string]any{"Effect": "Allow", "Action": []any{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:SendMessage"}, "Resource": arn("Requests")},
				map[string]any{"Effect": "Allow", "Action": []any{"kms:Decrypt", "kms:GenerateDataKey"}, "Resource": arn("Key")},
				map[string]any{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "arn:aws:sqs:eu-west-1:111111111111:erasure-responses"},
				map[string]any{"Effect": "Allow", "Action": []any{"kms:GenerateDataKey", "kms:Decrypt"}, "Resource": "arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000"},
			}}}}}},
		p + "Handler": map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{"Runtime": "nodejs22.x", "Handler": "index.handler",
			"Role": arn("HandlerRole"), "Timeout": 60, "Code": map[string]any{"ZipFile": "exports.handler = async () => ({ batchItemFailures: [] })"},
			"Environment": map[string]any{"Variables": map[string]any{"ERASURE_SUBSCRIBER": "store-" + strings.ToLower(p),
				"ERASURE_RESPONSE_QUEUE_URL": map[string]any{"Fn::Sub": "https://sqs.eu-west-1.${AWS::URLSuffix}/111111111111/erasure-responses"},
				"ERASURE_QUEUE_URL":          ref("Requests")}}}},
		p + "Mapping": map[string]any{"Type": "AWS::Lambda::EventSourceMapping", "Properties": map[string]any{"FunctionName": ref("Handler"),
			"EventSourceArn": arn("Requests"), "BatchSize": 1, "FunctionResponseTypes": []any{"ReportBatchItemFailures"}}},
	}
}

// writeHandRolledAssembly writes a cloud assembly of n hand-rolled stores,
// perStack to a stack (CloudFormation's 500 resources a template bound).
func writeHandRolledAssembly(tb testing.TB, dir string, n, perStack int) {
	tb.Helper()
	artifacts := map[string]any{}
	for s := 0; s*perStack < n; s++ {
		res := map[string]any{}
		for i := s * perStack; i < min(n, (s+1)*perStack); i++ {
			for id, r := range handRolledStore(fmt.Sprintf("S%04d", i)) {
				res[id] = r
			}
		}
		name := fmt.Sprintf("Stores%02d", s)
		b, err := json.Marshal(map[string]any{"Resources": res})
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".template.json"), b, 0o644); err != nil {
			tb.Fatal(err)
		}
		artifacts[name] = map[string]any{"type": "aws:cloudformation:stack", "environment": "aws://111111111111/eu-west-1",
			"properties": map[string]any{"templateFile": name + ".template.json"}}
	}
	b, _ := json.Marshal(map[string]any{"version": "55.0.0", "artifacts": artifacts})
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkCheckHandRolled2000 is issue 48's speed case: the check, then the
// check with the access matrix, over an assembly of 2,000 hand-rolled stores
// (16,000 resources in 40 stacks). Goals: check ≤ 10 s, access ≤ 30 s.
func BenchmarkCheckHandRolled2000(b *testing.B) { benchHandRolled(b, 2000, 50) }

// BenchmarkCheckOneTemplate2000 is issue 57's look-up case: the same 2,000
// hand-rolled stores in one template (16,000 resources, past
// CloudFormation's quota, but a file anyone can hand the command). Goal:
// check and access each within 60 s.
func BenchmarkCheckOneTemplate2000(b *testing.B) { benchHandRolled(b, 2000, 2000) }

// benchHandRolled checks, then checks with the access matrix, stores
// hand-rolled stores, perStack to a template. The stores are clean: the
// check finds nothing but a template's quotas (one past 500 resources and
// 1 MB); the access matrix also judges who else of the account may use each
// key (its policy delegates to IAM).
func benchHandRolled(b *testing.B, stores, perStack int) {
	dir := b.TempDir()
	writeHandRolledAssembly(b, dir, stores, perStack)
	for _, access := range []bool{false, true} {
		b.Run(fmt.Sprintf("access=%v", access), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := CheckPaths([]string{dir}, Config{TopicArns: []string{benchTopic}, Access: access})
				if err != nil {
					b.Fatal(err)
				}
				var other []string
				for _, f := range res.Findings {
					if f.Rule != ruleServiceQuota {
						other = append(other, f.String())
					}
				}
				if len(res.Stores) != stores || !access && len(other) != 0 {
					b.Fatalf("%d stores checked, want %d; findings beside the quotas', want none: %v", len(res.Stores), stores, other)
				}
			}
		})
	}
}
