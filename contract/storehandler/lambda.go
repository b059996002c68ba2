package storehandler

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/sender"
)

// Start runs a store's handler in AWS Lambda: it reads the handler
// environment the ErasureSubscriber construct set, builds the SQS client from
// the default AWS configuration, and serves SQS batches. It exits the process
// if the environment or the implementations are wrong, naming variables and
// pairs, never values.
func Start(impls map[contract.Pair]Func) {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	h, err := NewFromEnvironment(context.Background(), impls, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lambda.Start(h.Handle)
}

// NewFromEnvironment builds a Handler from the process environment and the
// default AWS configuration.
func NewFromEnvironment(ctx context.Context, impls map[contract.Pair]Func, log *slog.Logger) (*Handler, error) {
	env, err := contract.LoadHandlerEnvironment(os.LookupEnv, contract.Channel())
	if err != nil {
		return nil, err
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("storehandler: AWS configuration: %w", err)
	}
	client := sqs.NewFromConfig(awsCfg)
	return New(Config{
		Env:             env,
		Implementations: impls,
		Responses:       sender.New(client, env.ResponseQueueURL, log),
		Queue:           client,
		Log:             log,
		PassTwoSender:   contract.HandlerSenderID(env.RoleID, os.Getenv("AWS_LAMBDA_FUNCTION_NAME")),
	})
}
