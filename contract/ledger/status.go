package ledger

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Scanner is what Status and VerifyWith call: an operator's scan of the requests.
type Scanner interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Counts are the ledger's requests by state.
type Counts struct {
	Open, Overdue, Complete, AwaitingReceipt, Exhausted, Expired int
	// OldestOpen is the open (or exhausted) request received first.
	OldestOpen *Request `json:",omitempty"`
}

// Status reads every request's state. It scans the table (an operator's
// command: the alarms, not this, watch a large ledger).
func (l *Ledger) Status(ctx context.Context) (Counts, error) {
	var st Counts
	now := l.now()
	err := l.eachRequest(ctx, false, func(r Request) error {
		switch r.Status {
		case StatusOpen, StatusExhausted:
			if r.Status == StatusOpen {
				st.Open++
			} else {
				st.Exhausted++
			}
			if !now.Before(r.DueBy.Add(-l.c.ErasureDeadlineWarning())) {
				st.Overdue++
			}
			if st.OldestOpen == nil || r.ReceivedAt.Before(st.OldestOpen.ReceivedAt) {
				rr := r
				rr.Roster = nil
				st.OldestOpen = &rr
			}
		case StatusComplete:
			st.Complete++
			if r.LogIndex < 0 {
				st.AwaitingReceipt++
			}
		case StatusExpired:
			st.Expired++
		}
		return nil
	})
	return st, err
}

// eachRequest scans the table's request items (consistently when asked),
// calling fn on each until it returns an error.
func (l *Ledger) eachRequest(ctx context.Context, consistent bool, fn func(Request) error) error {
	db, ok := l.db.(Scanner)
	if !ok {
		return fail("NO_SCAN", nil)
	}
	var start item
	for {
		page, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(l.table), ExclusiveStartKey: start, ConsistentRead: aws.Bool(consistent),
			FilterExpression: aws.String("SK = :r"), ExpressionAttributeValues: item{":r": s("REQ")}})
		if err != nil {
			return fail("READ_FAILED", err)
		}
		for _, it := range page.Items {
			if err := fn(requestOf(str(it, "PK")[len("REQ#"):], it)); err != nil {
				return err
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			return nil
		}
		start = page.LastEvaluatedKey
	}
}
