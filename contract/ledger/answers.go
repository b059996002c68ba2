package ledger

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Result is what recording an answer did.
type Result string

// Results of RecordAnswer. A refusal carries one of contract.LedgerRefusalCodes.
const (
	Recorded  Result = "RECORDED"  // the first answer of this store to this broadcast
	Duplicate Result = "DUPLICATE" // the same answer again (a redelivery or a second reader)
	Conflict  Result = "CONFLICT"  // a different answer than the first: recorded as a conflict, the first stands
	Refused   Result = "REFUSED"   // not counted; see Answer.Code
)

// Answer is one authenticated answer as read from the response queue.
type Answer struct {
	Response contract.Response
	// Sender is the SQS SenderId the reader authenticated (role id:session).
	Sender string
	// MessageID is the SQS message id (refusals are recorded under it).
	MessageID string
}

// Recording is the outcome of RecordAnswer.
type Recording struct {
	Result   Result
	Code     string // for Refused
	Complete bool   // the request is complete (now or already)
}

// allowed is every outcome that answers a request of each type.
var allowed = map[contract.MessageType][]string{
	contract.TypeErase:    {string(contract.OutcomeDone), string(contract.OutcomeNotApplicable)},
	contract.TypeRefile:   {string(contract.OutcomeMoved), string(contract.OutcomeNoneOwned), string(contract.OutcomeNotMoved), string(contract.OutcomeNotApplicable)},
	contract.TypeCheck:    {string(contract.AnswerHoldsData), string(contract.AnswerHoldsNone), string(contract.AnswerCannotAnswer), string(contract.AnswerNotApplicable)},
	contract.TypeClassify: {string(contract.AnswerHoldsData), string(contract.AnswerHoldsNone), string(contract.AnswerCannotAnswer), string(contract.AnswerNotApplicable)},
}

// completing is the outcomes that complete a request: every one that answers
// it, except CANNOT_ANSWER, which says the store could not tell.
func completing(t contract.MessageType, outcome string) bool {
	return slices.Contains(allowed[t], outcome) && outcome != string(contract.AnswerCannotAnswer)
}

func outcomeOf(r contract.Response) string {
	if r.Type == contract.TypeHoldings {
		return string(r.Answer)
	}
	return string(r.Outcome)
}

// RecordAnswer records an answer exactly once: a conditional write keyed by
// (request, sendNo, store), so that any number of readers, duplicates and
// redeliveries record it once; a different later answer is a conflict. An
// answer to an unknown request or broadcast, of the wrong type, about another
// key, or from a store off the request's roster is refused with its code. It
// then decides completion from the table.
func (l *Ledger) RecordAnswer(ctx context.Context, a Answer) (Recording, error) {
	r := a.Response
	req, ok, err := l.Get(ctx, r.RequestID)
	if err != nil {
		return Recording{}, err
	}
	refuse := func(code string) (Recording, error) {
		return Recording{Result: Refused, Code: code}, l.recordRefusal(ctx, a, code)
	}
	if !ok {
		return refuse(contract.CodeUnknownRequest)
	}
	if req.Type.ResponseType() != r.Type {
		return refuse(contract.CodeWrongType)
	}
	if !slices.Contains(allowed[req.Type], outcomeOf(r)) {
		return refuse(contract.CodeNotAnOutcome)
	}
	if !slices.Contains(req.Roster, r.Subscriber) {
		return refuse(contract.CodeNotOnRoster)
	}
	if r.Type == contract.TypeHoldings && (r.KeyKind != req.KeyKind || l.keyDigest(r.KeyKind, r.Key) != req.KeyDigest) {
		return refuse(contract.CodeWrongKey)
	}
	round, err := l.consistentGet(ctx, key(reqPK(r.RequestID), roundSK(r.SendNo)))
	if err != nil {
		return Recording{}, err
	}
	if round == nil {
		return refuse(contract.CodeUnknownRound)
	}
	it := key(reqPK(r.RequestID), answerSK(r.SendNo, r.Subscriber))
	it["Outcome"], it["Sender"], it["AnsweredAt"], it["MessageId"] = s(outcomeOf(r)), s(a.Sender), s(stamp(l.now())), s(a.MessageID)
	_, err = l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	rec := Recording{Result: Recorded}
	switch {
	case isConditionFailed(err):
		first, err := l.consistentGet(ctx, key(reqPK(r.RequestID), answerSK(r.SendNo, r.Subscriber)))
		if err != nil {
			return Recording{}, err
		}
		rec.Result = Duplicate
		if str(first, "Outcome") != outcomeOf(r) {
			rec.Result = Conflict
			if err := l.recordConflict(ctx, a); err != nil {
				return Recording{}, err
			}
		}
	case err != nil:
		return Recording{}, fail("WRITE_FAILED", err)
	}
	// The round's set of stores that gave a completing answer: a set, so the
	// add is idempotent, and made on every answer, duplicates included, so a
	// reader that crashed after its write and before this add (or its delete)
	// completes the request on the redelivery.
	first := outcomeOf(r)
	if rec.Result != Recorded {
		f, err := l.consistentGet(ctx, key(reqPK(r.RequestID), answerSK(r.SendNo, r.Subscriber)))
		if err != nil {
			return Recording{}, err
		}
		first = str(f, "Outcome")
	}
	if !completing(req.Type, first) {
		return rec, nil
	}
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(r.RequestID), roundSK(r.SendNo)),
		UpdateExpression:          aws.String("ADD Completing :s"),
		ExpressionAttributeValues: item{":s": &types.AttributeValueMemberSS{Value: []string{r.Subscriber}}},
		ReturnValues:              types.ReturnValueAllNew})
	if err != nil {
		return Recording{}, fail("WRITE_FAILED", err)
	}
	done, err := l.complete(ctx, req, r.SendNo, stringSet(out.Attributes, "Completing"))
	rec.Complete = done
	return rec, err
}

func stringSet(it item, k string) []string {
	if v, ok := it[k].(*types.AttributeValueMemberSS); ok {
		return v.Value
	}
	return nil
}

// complete marks the request complete when every roster store has answered
// its latest broadcast with a completing outcome (answered: the round's
// Completing set). The mark is conditional on that broadcast still being the
// latest, so that a re-broadcast racing with the last answer wins or loses
// cleanly.
func (l *Ledger) complete(ctx context.Context, req Request, sendNo int, answered []string) (bool, error) {
	if req.Status == StatusComplete {
		return true, nil
	}
	if sendNo != req.SendNo {
		return false, nil
	}
	for _, st := range req.Roster {
		if !slices.Contains(answered, st) {
			return false, nil
		}
	}
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(req.RequestID), "REQ"),
		UpdateExpression:         aws.String("SET #st = :c, CompletedAt = :t, CompletedSendNo = :n, Pending = :p, Due = :t REMOVE SealedKey"),
		ConditionExpression:      aws.String("SendNo = :n AND #st IN (:o, :x)"),
		ExpressionAttributeNames: map[string]string{"#st": "Status"},
		ExpressionAttributeValues: item{":c": s(string(StatusComplete)), ":t": s(stamp(l.now())), ":n": n(sendNo),
			":p": s(pendingKey("RECEIPT", req.RequestID)), ":o": s(string(StatusOpen)), ":x": s(string(StatusExhausted))}})
	if isConditionFailed(err) {
		now, ok, err := l.Get(ctx, req.RequestID)
		return ok && now.Status == StatusComplete, err
	}
	if err != nil {
		return false, fail("WRITE_FAILED", err)
	}
	return true, nil
}

func (l *Ledger) recordRefusal(ctx context.Context, a Answer, code string) error {
	id := a.MessageID
	if id == "" {
		id = "unknown-" + stamp(l.now())
	}
	it := key("REFUSED#"+l.now().UTC().Format("2006-01-02"), id)
	it["Code"], it["Sender"], it["At"], it["Type"], it["Subscriber"] = s(code), s(a.Sender), s(stamp(l.now())), s(string(a.Response.Type)), s(a.Response.Subscriber)
	if a.Response.RequestID != "" {
		it["RequestId"], it["SendNo"] = s(a.Response.RequestID), n(a.Response.SendNo)
	}
	_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	switch {
	case isConditionFailed(err): // a redelivery of a refusal already recorded
		return nil
	case err != nil:
		return fail("WRITE_FAILED", err)
	}
	l.emit(contract.MetricAnswersRefused, code)
	return nil
}

func (l *Ledger) recordConflict(ctx context.Context, a Answer) error {
	r := a.Response
	it := key(reqPK(r.RequestID), "CONFLICT#"+answerSK(r.SendNo, r.Subscriber)[len("ANS#"):]+"#"+outcomeOf(r))
	it["Sender"], it["At"], it["MessageId"] = s(a.Sender), s(stamp(l.now())), s(a.MessageID)
	_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	switch {
	case isConditionFailed(err):
		return nil
	case err != nil:
		return fail("WRITE_FAILED", err)
	}
	l.emit(contract.MetricAnswersConflicting, contract.CodeConflictingAnswer)
	return nil
}

// Refusals lists the refusals recorded on a day (UTC): codes and senders,
// never a body.
func (l *Ledger) Refusals(ctx context.Context, day time.Time) ([]Refusal, error) {
	items, err := l.queryAll(ctx, "REFUSED#"+day.UTC().Format("2006-01-02"), "")
	if err != nil {
		return nil, err
	}
	out := make([]Refusal, 0, len(items))
	for _, it := range items {
		out = append(out, Refusal{MessageID: str(it, "SK"), Code: str(it, "Code"), Sender: str(it, "Sender"), At: parseStamp(str(it, "At"))})
	}
	return out, nil
}

// Refusal is one refused answer as the ledger keeps it.
type Refusal struct {
	MessageID, Code, Sender string
	At                      time.Time
}

// ErrNoSuchRequest is returned for a requestId the ledger does not hold.
var ErrNoSuchRequest = errors.New("ledger: no such request")
