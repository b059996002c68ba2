package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/deployed"
)

// smokeAnswer is one store's answer to a smoke round.
type smokeAnswer struct {
	outcome string
	at      time.Time
}

// answerSource publishes the smoke rounds and reports their answers.
type answerSource interface {
	publish(ctx context.Context, req contract.Request) (contract.Request, error)
	answers(ctx context.Context, check, erase contract.Request) (cs, es map[string]smokeAnswer, err error)
	refused() int
	close()
}

// queueSource reads the response queue itself (no ledger is deployed).
type queueSource struct {
	pub       *publisher.Publisher
	collector *publisher.Collector
	reader    *publisher.Reader
	cancel    context.CancelFunc
}

func newQueueSource(ctx context.Context, home *deployed.Account, ch deployed.Channel, pub *publisher.Publisher, roster publisher.Roster) *queueSource {
	q := &queueSource{pub: pub, collector: publisher.NewCollector()}
	q.reader = publisher.NewReader(home.SQS, ch.ResponseQueueURL, q.collector, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if len(roster) > 0 {
		q.reader.WithRoster(roster)
	}
	rctx, cancel := context.WithCancel(ctx)
	q.cancel = cancel
	go func() { _ = q.reader.Run(rctx, time.Second) }()
	return q
}

func (q *queueSource) publish(ctx context.Context, req contract.Request) (contract.Request, error) {
	return q.pub.PublishRequest(ctx, req)
}

func (q *queueSource) answers(_ context.Context, check, erase contract.Request) (map[string]smokeAnswer, map[string]smokeAnswer, error) {
	read := func(k publisher.RoundKey) map[string]smokeAnswer {
		out := map[string]smokeAnswer{}
		for name, r := range q.collector.Status(k, nil).Answered {
			at, _ := q.collector.AnsweredAt(k, name)
			out[name] = smokeAnswer{outcome: string(r.Outcome) + string(r.Answer), at: at}
		}
		return out
	}
	return read(publisher.RoundKey{RequestID: check.RequestID}), read(publisher.RoundKey{RequestID: erase.RequestID, SendNo: erase.SendNo}), nil
}

func (q *queueSource) refused() int { return q.reader.Refused() }
func (q *queueSource) close()       { q.cancel() }

// ledgerSource records and reads through the deployed ledger.
type ledgerSource struct {
	l        *ledger.Ledger
	pub      *publisher.Publisher
	roster   []string
	verifier string
	table    string
	sweeper  *deployed.Running
	// anchorBucket is the deployed sweeper's anchor, read with s3.
	anchorBucket string
	s3           *s3.Client
	running      []*deployed.Running
}

// smokeLedger is what the smoke run found in the ledger.
type smokeLedger struct {
	Table    string `json:"table"`
	Complete int    `json:"complete"`
	Receipts int    `json:"receipts"`
	Verified bool   `json:"verified"`
	// Anchored is the size of the anchor's latest head; AnchorLocked, that
	// deleting it was refused.
	Anchored     int64  `json:"anchored"`
	AnchorLocked bool   `json:"anchorLocked"`
	Problem      string `json:"problem,omitempty"`
}

func (s *smokeCmd) ledgerSource(ctx context.Context, cfg aws.Config, home *deployed.Account, led deployed.Ledger, pub *publisher.Publisher, roster []string, log io.Writer) (*ledgerSource, error) {
	sv, err := secretsmanager.NewFromConfig(cfg).GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(led.SecretArn)})
	if err != nil {
		return nil, fail(exitEnvironment, "the deployed ledger's secret (the smoke run records as the account service does): %v", err)
	}
	secrets, err := ledger.DeriveSecrets(aws.ToString(sv.SecretString))
	if err != nil {
		return nil, fail(exitEnvironment, "%v", err)
	}
	vault, err := ledger.NewLocalVault(secrets.VaultSecret)
	if err != nil {
		return nil, fail(exitEnvironment, "%v", err)
	}
	l, err := ledger.New(dynamodb.NewFromConfig(cfg), ledger.Options{Table: led.Table, KeySecret: secrets.KeySecret, Vault: vault})
	if err != nil {
		return nil, fail(exitEnvironment, "%v", err)
	}
	src := &ledgerSource{l: l, pub: pub, roster: roster, verifier: secrets.Verifier, table: led.Table, anchorBucket: led.AnchorBucket, s3: s3.NewFromConfig(cfg)}
	if s.RunHandlers {
		if s.LedgerHandler == "" {
			return nil, fail(exitUsage, "a ledger is deployed: --run-handlers needs --ledger-handler (cmd/erasure-ledger built for this host)")
		}
		for _, fn := range []struct {
			st        deployed.Store
			scheduled bool
		}{{led.Reader, false}, {led.Sweeper, true}} {
			run, err := deployed.Handler{Store: fn.st, Binary: s.LedgerHandler, RIE: s.RIE, Endpoint: endpointURL(), Region: s.Region,
				Log: log, Scheduled: fn.scheduled}.Start(ctx, home)
			if err != nil {
				src.stop()
				return nil, fail(exitEnvironment, "%v", err)
			}
			src.running = append(src.running, run)
			if fn.scheduled {
				src.sweeper = run
			}
		}
	}
	return src, nil
}

func (l *ledgerSource) publish(ctx context.Context, req contract.Request) (contract.Request, error) {
	return l.l.Publish(ctx, l.pub, req, l.roster)
}

func (l *ledgerSource) answers(ctx context.Context, check, erase contract.Request) (map[string]smokeAnswer, map[string]smokeAnswer, error) {
	read := func(req contract.Request) (map[string]smokeAnswer, error) {
		as, err := l.l.Answers(ctx, req.RequestID, req.SendNo)
		out := map[string]smokeAnswer{}
		for n, a := range as {
			out[n] = smokeAnswer{outcome: a.Outcome, at: a.AnsweredAt}
		}
		return out, err
	}
	cs, err := read(check)
	if err != nil {
		return nil, nil, err
	}
	es, err := read(erase)
	return cs, es, err
}

// refused is not counted by the smoke run here: the ledger keeps refusals
// (REFUSED#<day>) and alarms on them.
func (l *ledgerSource) refused() int { return 0 }

func (l *ledgerSource) close() {}

func (l *ledgerSource) stop() {
	for _, r := range l.running {
		_ = r.Stop()
	}
}

// receipts runs the sweeper once where the smoke run plays it (on AWS its
// schedule does, within a publisher tick), then proves both requests'
// receipts into the log's signed head and verifies the whole log.
func (l *ledgerSource) receipts(ctx context.Context, reqs ...contract.Request) *smokeLedger {
	out := &smokeLedger{Table: l.table}
	for _, r := range reqs {
		if got, ok, err := l.l.Get(ctx, r.RequestID); err == nil && ok && got.Status == ledger.StatusComplete {
			out.Complete++
		}
	}
	if l.sweeper != nil {
		if _, err := l.sweeper.Invoke(ctx, []byte("{}"), time.Minute); err != nil {
			out.Problem = "the sweeper failed"
			return out
		}
	}
	for _, r := range reqs {
		if _, err := l.l.ReceiptOf(ctx, r.RequestID, l.verifier); err == nil {
			out.Receipts++
		} else if out.Problem == "" {
			out.Problem = err.Error()
		}
	}
	if p := l.checkAnchor(ctx, out); p != "" && out.Problem == "" {
		out.Problem = p
	}
	out.Verified = out.Problem == "" && out.Receipts == len(reqs)
	return out
}

// checkAnchor verifies the whole log against the deployed anchor bucket: the
// bucket is locked in compliance mode for ledgerAnchorRetentionDays, holds
// the log's latest head, and refuses to delete it. It returns a problem, or "".
func (l *ledgerSource) checkAnchor(ctx context.Context, out *smokeLedger) string {
	if l.anchorBucket == "" {
		return "the deployed sweeper names no anchor bucket (" + contract.EnvLedgerAnchorBucket + ")"
	}
	lock, err := l.s3.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String(l.anchorBucket)})
	if err != nil {
		return "the anchor bucket's Object Lock: " + err.Error()
	}
	c := lock.ObjectLockConfiguration
	if c == nil || c.ObjectLockEnabled != s3types.ObjectLockEnabledEnabled || c.Rule == nil || c.Rule.DefaultRetention == nil ||
		c.Rule.DefaultRetention.Mode != s3types.ObjectLockRetentionModeCompliance ||
		aws.ToInt32(c.Rule.DefaultRetention.Days) != int32(contract.Channel().LedgerAnchorRetentionDays) {
		return "the anchor bucket is not locked in compliance mode for ledgerAnchorRetentionDays"
	}
	anchor := &ledger.Anchor{API: l.s3, Bucket: l.anchorBucket}
	rep, err := l.l.VerifyWith(ctx, l.verifier, ledger.VerifyOptions{Anchor: anchor})
	if err != nil {
		return err.Error()
	}
	out.Anchored = rep.Anchored
	if rep.Anchored != rep.Size {
		return fmt.Sprintf("the anchor's latest head covers %d of the log's %d records after a sweep", rep.Anchored, rep.Size)
	}
	// The lock itself: the latest head's version cannot be deleted.
	vs, err := l.s3.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(l.anchorBucket), Prefix: aws.String(ledger.AnchorKeyOf(rep.Size))})
	if err != nil || len(vs.Versions) == 0 {
		return "the anchor's latest head could not be listed"
	}
	v := vs.Versions[0]
	_, err = l.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(l.anchorBucket), Key: v.Key, VersionId: v.VersionId})
	var api smithy.APIError
	switch {
	case err == nil:
		return "the anchor let a locked head be deleted"
	case !errors.As(err, &api) || api.ErrorCode() != "AccessDenied":
		return "deleting the anchor's latest head failed, but not as Object Lock refuses: " + err.Error()
	}
	out.AnchorLocked = true
	return ""
}

// endpointURL is the offline engine the handlers call, when there is one.
func endpointURL() string { return os.Getenv("AWS_ENDPOINT_URL") }
