package erasurecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckAssembly is one run of the check (the plugin's, with the
// access matrix) over the cloud assembly ERASURECHECK_BENCH_ASSEMBLY names;
// make bench-check-go synthesizes the channel with 100 stores for it.
func BenchmarkCheckAssembly(b *testing.B) {
	dir := os.Getenv("ERASURECHECK_BENCH_ASSEMBLY")
	if dir == "" {
		b.Skip("set ERASURECHECK_BENCH_ASSEMBLY to a cloud assembly (make bench-check-go)")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckPaths([]string{dir}, Config{Access: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckManySubscriptions is the check over one template of
// 5,000 queues each subscribed to the erasure topic (10,000 resources, far
// past CloudFormation's 500 a template): an oversized input must end with a
// verdict in bounded time. Every store is looked up by its ARN among all the
// queues and its policies among its template's; both were a scan of every
// resource for every store.
func BenchmarkCheckManySubscriptions(b *testing.B) {
	dir := b.TempDir()
	const stores = 5000
	res := map[string]any{}
	for i := range stores {
		res[fmt.Sprintf("Q%d", i)] = map[string]any{"Type": "AWS::SQS::Queue", "Properties": map[string]any{}}
		res[fmt.Sprintf("S%d", i)] = map[string]any{"Type": "AWS::SNS::Subscription", "Properties": map[string]any{
			"Protocol": "sqs", "TopicArn": "arn:aws:sns:eu-west-1:111111111111:erasure-topic", "RawMessageDelivery": true,
			"Endpoint": map[string]any{"Fn::GetAtt": []any{fmt.Sprintf("Q%d", i), "Arn"}}}}
	}
	tpl, _ := json.Marshal(map[string]any{"Resources": res})
	manifest, _ := json.Marshal(map[string]any{"version": "55.0.0", "artifacts": map[string]any{"Big": map[string]any{
		"type": "aws:cloudformation:stack", "environment": "aws://111111111111/eu-west-1", "properties": map[string]any{"templateFile": "Big.template.json"}}}})
	if os.WriteFile(filepath.Join(dir, "Big.template.json"), tpl, 0o644) != nil || os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644) != nil {
		b.Fatal("cannot write the assembly")
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := CheckPaths([]string{dir}, Config{TopicArns: []string{"arn:aws:sns:eu-west-1:111111111111:erasure-topic"}})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Stores) != stores {
			b.Fatalf("%d stores checked, want %d", len(res.Stores), stores)
		}
	}
}
