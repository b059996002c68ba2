// Command example-store is the example stores' Lambda handler, built for
// provided.al2023 (GOOS=linux GOARCH=arm64 CGO_ENABLED=0 -tags lambda.norpc)
// and deployed as the asset of the example store stacks.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/linn-cloud/erasure-channel/contract"
)

func main() {
	env, err := contract.LoadHandlerEnvironment(os.LookupEnv, contract.Channel())
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // names variables, never values
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, rec := range ev.Records {
			if _, err := contract.ParseRequest([]byte(rec.Body)); err != nil {
				fmt.Printf("erasure: record refused: %s\n", err) // the code alone
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			}
		}
		_ = env
		return resp, nil
	})
}
