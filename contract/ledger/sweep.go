package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/linn-cloud/erasure-channel/contract"
)

// SweepReport counts what one sweep did.
type SweepReport struct {
	Published   int   // broadcasts recorded but never published (a publisher crash), now published
	Rebroadcast int   // expired broadcasts re-broadcast with sendNo + 1
	Exhausted   int   // requests whose maxBroadcasts-th broadcast expired: the alarm
	Expired     int   // CHECK and CLASSIFY rounds expired without every answer
	Overdue     int   // incomplete requests within the deadline warning of their one-month deadline
	Receipts    int   // receipts appended to the log
	Errors      int   // requests left for the next sweep after an error (counted, never logged with ids)
	LastError   error // the first of them (a code; never an id)
}

// sweepParallelism bounds the requests one sweep handles at once.
const sweepParallelism = 16

// add counts another report's work in r; r keeps its first error.
func (r *SweepReport) add(o SweepReport) {
	r.Published += o.Published
	r.Rebroadcast += o.Rebroadcast
	r.Exhausted += o.Exhausted
	r.Expired += o.Expired
	r.Overdue += o.Overdue
	r.Receipts += o.Receipts
	r.Errors += o.Errors
	if r.LastError == nil {
		r.LastError = o.LastError
	}
}

// Sweep is the scheduled sweeper: it publishes every broadcast a crashed
// publisher recorded but did not publish, re-broadcasts every destructive
// request whose latest broadcast expired without every answer (up to
// maxBroadcasts, then EXHAUSTED and the alarm), expires unanswered CHECK and
// CLASSIFY rounds, counts overdue requests, and appends the receipt of every
// completed request to the log. It reads only the sparse pending index.
func (l *Ledger) Sweep(ctx context.Context, pub Publisher) (SweepReport, error) {
	var rep SweepReport
	now := l.now()
	// A log that does not extend its anchor's latest head was restored or
	// rewritten: no receipt is appended to it (each counted as an error),
	// while erasures go on.
	anchored, anchorErr := int64(0), error(nil)
	if l.anchor != nil && l.signer != "" {
		anchored, anchorErr = l.checkAnchor(ctx)
	}
	for sh := 0; sh < pendingShards; sh++ {
		for _, state := range []string{"OPEN", "WATCH", "RECEIPT"} {
			items, err := l.duePending(ctx, fmt.Sprintf("%s#%02d", state, sh), stamp(now))
			if err != nil {
				return rep, err
			}
			// Each due request on its own, sweepParallelism at a time: a
			// re-broadcast is a few round trips, and 10,000 due requests are
			// swept in seconds. Every step is a conditional write, so two
			// sweeps of one request (here or in another sweeper) do it once.
			reports := make([]SweepReport, len(items))
			sem := make(chan struct{}, sweepParallelism)
			var wg sync.WaitGroup
			for i, it := range items {
				id := str(it, "PK")[len("REQ#"):]
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					r := &reports[i]
					var err error
					switch state {
					case "OPEN":
						err = l.sweepOpen(ctx, pub, id, r)
					case "WATCH":
						r.Overdue++
						l.emit(contract.MetricRequestsOverdue, contract.CodeOverdue)
					case "RECEIPT":
						err = anchorErr
						if err == nil {
							err = l.sweepReceipt(ctx, id, r)
						}
					}
					if err != nil {
						r.Errors++
						r.LastError = err
					}
				}()
			}
			wg.Wait()
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			for _, r := range reports {
				rep.add(r)
			}
		}
	}
	if l.anchor != nil && l.signer != "" && anchorErr == nil {
		// One write per sweep: the latest head covers every append before
		// it, so the anchor lags the table by at most one sweep (a sweep
		// that stopped before here is caught up by the next).
		if err := l.anchorHead(ctx, anchored); err != nil {
			rep.Errors++
			if rep.LastError == nil {
				rep.LastError = err
			}
		}
	}
	return rep, nil
}

func (l *Ledger) duePending(ctx context.Context, pending, due string) ([]item, error) {
	return l.queryPages(ctx, &dynamodb.QueryInput{TableName: aws.String(l.table), IndexName: aws.String(PendingIndex),
		KeyConditionExpression:    aws.String("Pending = :p AND Due <= :d"),
		ExpressionAttributeValues: item{":p": s(pending), ":d": s(due)}})
}

func (l *Ledger) sweepOpen(ctx context.Context, pub Publisher, id string, rep *SweepReport) error {
	it, err := l.consistentGet(ctx, key(reqPK(id), "REQ"))
	if err != nil || it == nil {
		return err
	}
	r := requestOf(id, it)
	if r.Status != StatusOpen {
		return nil // the index is eventually consistent: the item moved on
	}
	now := l.now()
	if !now.Before(r.DueBy.Add(-l.c.ErasureDeadlineWarning())) {
		rep.Overdue++
		l.emit(contract.MetricRequestsOverdue, contract.CodeOverdue)
	}
	round, err := l.consistentGet(ctx, key(reqPK(id), roundSK(r.SendNo)))
	if err != nil {
		return err
	}
	if round == nil {
		return fail("UNKNOWN_ROUND", errors.New("the latest broadcast is not recorded"))
	}
	published := str(round, "PublishedAt") != ""
	if now.Before(r.ExpiresAt) {
		if published {
			return nil
		}
		// A publisher crashed between its record and its publish.
		if !r.Type.IsDestructive() && now.Sub(r.ReceivedAt) > l.c.RoundPublishBound() {
			return l.finish(ctx, r, StatusExpired, rep)
		}
		req, err := l.rebuild(ctx, r, str(it, "SealedKey"), r.SendNo, r.ExpiresAt)
		if err != nil {
			return err
		}
		if _, err := pub.PublishRequest(ctx, req); err != nil {
			return fail("PUBLISH_FAILED", err)
		}
		rep.Published++
		return l.MarkPublished(ctx, id, r.SendNo)
	}
	// Expired: complete after all (an answer whose completion write was lost),
	// re-broadcast, or give up.
	if done, err := l.complete(ctx, r, r.SendNo, stringSet(round, "Completing")); err != nil || done {
		return err
	}
	if !r.Type.IsDestructive() {
		return l.finish(ctx, r, StatusExpired, rep)
	}
	if r.SendNo >= l.c.MaxBroadcasts {
		return l.finish(ctx, r, StatusExhausted, rep)
	}
	if _, err := l.rebroadcast(ctx, pub, r, str(it, "SealedKey")); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == "RACED" {
			return nil // completed meanwhile, or another sweeper took it
		}
		return err
	}
	rep.Rebroadcast++
	return nil
}

// Rebroadcast re-broadcasts an open destructive request now, with sendNo + 1
// and a fresh expiresAt, as the sweeper does when its broadcast expires: for
// an account service that re-broadcasts sooner. Past maxBroadcasts it is
// refused (EXHAUSTED is the sweeper's to decide).
func (l *Ledger) Rebroadcast(ctx context.Context, pub Publisher, requestID string) (contract.Request, error) {
	it, err := l.consistentGet(ctx, key(reqPK(requestID), "REQ"))
	if err != nil {
		return contract.Request{}, err
	}
	if it == nil {
		return contract.Request{}, ErrNoSuchRequest
	}
	r := requestOf(requestID, it)
	switch {
	case r.Status != StatusOpen:
		return contract.Request{}, fail("NOT_OPEN", errors.New("only an open request is re-broadcast"))
	case !r.Type.IsDestructive():
		return contract.Request{}, fail("NOT_DESTRUCTIVE", errors.New("only ERASE and REFILE are re-broadcast"))
	case r.SendNo >= l.c.MaxBroadcasts:
		return contract.Request{}, fail("MAX_BROADCASTS", errors.New("the request has had maxBroadcasts broadcasts"))
	}
	return l.rebroadcast(ctx, pub, r, str(it, "SealedKey"))
}

// rebroadcast records broadcast sendNo + 1 (the round, then the request,
// conditional on the broadcast it replaces), publishes it and marks it
// published. A crash after the record leaves it to the sweeper.
func (l *Ledger) rebroadcast(ctx context.Context, pub Publisher, r Request, sealed string) (contract.Request, error) {
	now := l.now()
	next, exp := r.SendNo+1, now.Add(l.c.ExpiryPeriod())
	if err := l.putRound(ctx, r.RequestID, next, exp); err != nil {
		return contract.Request{}, err
	}
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(r.RequestID), "REQ"),
		UpdateExpression:          aws.String("SET SendNo = :n, ExpiresAt = :e, Due = :d"),
		ConditionExpression:       aws.String("SendNo = :o AND #st = :open"),
		ExpressionAttributeNames:  map[string]string{"#st": "Status"},
		ExpressionAttributeValues: item{":n": n(next), ":e": s(stamp(exp)), ":d": s(stamp(now.Add(l.publishGrace()))), ":o": n(r.SendNo), ":open": s(string(StatusOpen))}})
	if isConditionFailed(err) {
		return contract.Request{}, fail("RACED", errors.New("completed, or re-broadcast by another")) // not an error for the sweeper
	}
	if err != nil {
		return contract.Request{}, fail("WRITE_FAILED", err)
	}
	req, err := l.rebuild(ctx, r, sealed, next, exp)
	if err != nil {
		return contract.Request{}, err
	}
	if _, err := pub.PublishRequest(ctx, req); err != nil {
		return req, fail("PUBLISH_FAILED", err) // recorded: the next sweep publishes it
	}
	l.emit(contract.MetricRebroadcasts, contract.CodeRebroadcast)
	return req, l.MarkPublished(ctx, r.RequestID, next)
}

// finish ends an open request without completion: EXPIRED (CHECK, CLASSIFY)
// or EXHAUSTED (the alarm; it stays watched for the deadline). Its sealed key
// is removed either way.
func (l *Ledger) finish(ctx context.Context, r Request, st Status, rep *SweepReport) error {
	update := "SET #st = :s REMOVE SealedKey, Pending, Due"
	vals := item{":s": s(string(st)), ":n": n(r.SendNo), ":open": s(string(StatusOpen))}
	if st == StatusExhausted {
		update = "SET #st = :s, Pending = :w, Due = :d REMOVE SealedKey"
		vals[":w"], vals[":d"] = s(pendingKey("WATCH", r.RequestID)), s(stamp(r.DueBy.Add(-l.c.ErasureDeadlineWarning())))
	}
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(r.RequestID), "REQ"),
		UpdateExpression: aws.String(update), ConditionExpression: aws.String("SendNo = :n AND #st = :open"),
		ExpressionAttributeNames: map[string]string{"#st": "Status"}, ExpressionAttributeValues: vals})
	if isConditionFailed(err) {
		return nil
	}
	if err != nil {
		return fail("WRITE_FAILED", err)
	}
	if st == StatusExhausted {
		rep.Exhausted++
		l.emit(contract.MetricRebroadcastsExhausted, contract.CodeExhausted)
	} else {
		rep.Expired++
	}
	return nil
}
