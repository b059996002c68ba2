package emulator

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/linn-cloud/erasure-channel/internal/emulator/sqssns"
)

// DynamoDB is a running DynamoDB API emulator (npm dynalite, pinned in
// tools/, in memory): the ledger's table in tests and in the local channel.
type DynamoDB struct {
	// Endpoint is the base URL DynamoDB clients point at.
	Endpoint string
	proc     *sqssns.Process
}

// StartDynamoDB launches the DynamoDB emulator on 127.0.0.1 at a free port.
func StartDynamoDB(ctx context.Context, root string) (*DynamoDB, error) {
	root, node, err := PinnedNode(root)
	if err != nil {
		return nil, err
	}
	proc, endpoint, err := sqssns.StartScript(ctx, node, root, "dynamodb.mjs", 30*time.Second)
	if err != nil {
		return nil, err
	}
	return &DynamoDB{Endpoint: endpoint, proc: proc}, nil
}

// Stop ends the emulator; its tables are gone.
func (d *DynamoDB) Stop() { d.proc.Stop() }

// Client is a DynamoDB client of the emulator (it takes any credentials).
func (d *DynamoDB) Client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(d.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
}
