package erasurecheck_test

import (
	"fmt"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

// Check a store deployed by plain CloudFormation (YAML, short-form
// intrinsics) without erasurectl: every problem, with the resource it is on.
func ExampleCheckPaths() {
	res, err := erasurecheck.CheckPaths([]string{"testdata/store-broken.yaml"}, erasurecheck.Config{
		TopicArns: []string{"arn:aws:sns:eu-west-1:111111111111:erasure-topic"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Stores), "store")
	for _, f := range res.Findings {
		fmt.Printf("%s: %s (on %s)\n", f.Path, f.Type, f.LogicalID)
	}
	// Output:
	// 1 store
	// ErasureSubscriber[plain].responseQueue: Missing (on Handler)
	// ErasureSubscriber[plain].rawMessageDelivery: Invalid (on Subscription)
	// ErasureSubscriber[plain].visibilityTimeout: NotDerived (on Requests)
}
