package main

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/linn-cloud/erasure-channel/internal/local"
)

// awsFlags choose the account: the standard AWS credential chain, or a local
// endpoint (the emulator) with --endpoint-url.
type awsFlags struct {
	EndpointURL string `name:"endpoint-url" help:"Send to this endpoint instead of AWS (e.g. the local channel's emulator)."`
	Region      string `default:"eu-west-1" env:"AWS_REGION" help:"The AWS region."`
}

func (f awsFlags) clients(ctx context.Context) (local.Clients, error) {
	if f.EndpointURL != "" {
		// The local channel's gate authenticates every call: sign with the
		// credentials it issued (erasurectl local --keep prints them) when
		// they are in the environment.
		id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		if id != "" && secret != "" {
			return local.NewClientsWith(f.EndpointURL, f.Region, credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN"))), nil
		}
		return local.NewClients(f.EndpointURL, f.Region), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(f.Region))
	if err != nil {
		return local.Clients{}, fail(exitEnvironment, "AWS configuration: %v", err)
	}
	return local.Clients{SQS: sqs.NewFromConfig(cfg), SNS: sns.NewFromConfig(cfg)}, nil
}
