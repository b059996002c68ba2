package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableAPI is what CreateTable calls.
type TableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// CreateTable creates the ledger's table (on-demand) with its pending index,
// for a local emulator; on AWS the ErasureLedger construct creates it with the
// same keys. A table that already exists is not an error.
func CreateTable(ctx context.Context, db TableAPI, name string) error {
	str := types.ScalarAttributeTypeS
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: str}, {AttributeName: aws.String("SK"), AttributeType: str},
			{AttributeName: aws.String("Pending"), AttributeType: str}, {AttributeName: aws.String("Due"), AttributeType: str},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String(PendingIndex),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("Pending"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("Due"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	var exists *types.ResourceInUseException
	if err != nil && !errors.As(err, &exists) {
		return err
	}
	// Wait until the table and its index are ACTIVE.
	for {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return err
		}
		active := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
