package deployed

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Ledger is a deployed ErasureLedger, found from the response queue: the
// function its event source mapping feeds (ERASURE_LEDGER_MODE=reader), and
// the sweeper of the same table.
type Ledger struct {
	Reader, Sweeper Store // each as Store: its function, role, environment (Reader: the response queue)
	Table           string
	SecretArn       string
	// AnchorBucket is the sweeper's anchor (ERASURE_LEDGER_ANCHOR_BUCKET).
	AnchorBucket string
}

// FindLedger reads the response queue's event source mappings: a ledger's
// reader consumes it. ok is false when no ledger is deployed.
func FindLedger(ctx context.Context, home *Account, ch Channel) (Ledger, bool, error) {
	qa, err := home.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(ch.ResponseQueueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		return Ledger{}, false, fmt.Errorf("deployed: the response queue: %w", err)
	}
	arn := qa.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	maps, err := home.Lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(arn)})
	if err != nil {
		return Ledger{}, false, fmt.Errorf("deployed: the response queue's event source mappings: %w", err)
	}
	var l Ledger
	for _, m := range maps.EventSourceMappings {
		if aws.ToString(m.EventSourceArn) != arn {
			continue
		}
		fn, err := readFunction(ctx, home, aws.ToString(m.FunctionArn))
		if err != nil {
			return Ledger{}, false, err
		}
		if fn.Environment[contract.EnvLedgerMode] != "reader" {
			continue
		}
		fn.Name, fn.QueueArn, fn.QueueURL, fn.Readable = "ledger-reader", arn, ch.ResponseQueueURL, true
		fn.BatchSize, fn.MappingState = aws.ToInt32(m.BatchSize), aws.ToString(m.State)
		for _, t := range m.FunctionResponseTypes {
			fn.BatchFailures = fn.BatchFailures || t == "ReportBatchItemFailures"
		}
		l.Reader, l.Table, l.SecretArn = fn, fn.Environment[contract.EnvLedgerTable], fn.Environment[contract.EnvLedgerSecretArn]
	}
	if l.Table == "" {
		return Ledger{}, false, nil
	}
	pager := lambda.NewListFunctionsPaginator(home.Lambda, &lambda.ListFunctionsInput{})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return Ledger{}, false, fmt.Errorf("deployed: functions: %w", err)
		}
		for _, f := range page.Functions {
			if f.Environment == nil || f.Environment.Variables[contract.EnvLedgerMode] != "sweeper" || f.Environment.Variables[contract.EnvLedgerTable] != l.Table {
				continue
			}
			sw, err := readFunction(ctx, home, aws.ToString(f.FunctionArn))
			if err != nil {
				return Ledger{}, false, err
			}
			sw.Name, sw.Readable = "ledger-sweeper", true
			l.Sweeper, l.AnchorBucket = sw, sw.Environment[contract.EnvLedgerAnchorBucket]
		}
	}
	if l.Sweeper.Function == "" {
		return l, true, fmt.Errorf("deployed: the ledger's reader is deployed but no sweeper of its table")
	}
	return l, true, nil
}

func readFunction(ctx context.Context, acct *Account, arn string) (Store, error) {
	fn, err := acct.Lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(arn)})
	if err != nil {
		return Store{}, fmt.Errorf("deployed: a function: %w", err)
	}
	st := Store{Function: aws.ToString(fn.FunctionName), FunctionArn: arn, TimeoutSecs: aws.ToInt32(fn.Timeout), RoleArn: aws.ToString(fn.Role)}
	if fn.Environment != nil {
		st.Environment = fn.Environment.Variables
	}
	role, err := acct.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(st.RoleArn[strings.LastIndex(st.RoleArn, "/")+1:])})
	if err != nil {
		return Store{}, fmt.Errorf("deployed: a function's role: %w", err)
	}
	st.RoleID = aws.ToString(role.Role.RoleId)
	return st, nil
}
