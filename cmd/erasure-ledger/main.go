// Command erasure-ledger is the ErasureLedger construct's Lambda handler,
// built for provided.al2023 (GOOS=linux GOARCH=arm64 CGO_ENABLED=0 -tags
// lambda.norpc). ERASURE_LEDGER_MODE picks its job: reader (the response
// queue's event source: every authenticated answer recorded once, partial
// batch failures) or sweeper (on a schedule: publish, re-broadcast, expire,
// append receipts). It logs codes and counts only.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	run, err := setup(context.Background())
	if err != nil {
		log.Error("erasure ledger cannot start", "code", "SETUP_FAILED", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(run)
}

func setup(ctx context.Context) (any, error) {
	get := func(k string) (string, error) {
		v := os.Getenv(k)
		if v == "" {
			return "", fmt.Errorf("%s is not set", k)
		}
		return v, nil
	}
	mode, err := get(contract.EnvLedgerMode)
	if err != nil {
		return nil, err
	}
	table, err := get(contract.EnvLedgerTable)
	if err != nil {
		return nil, err
	}
	secretArn, err := get(contract.EnvLedgerSecretArn)
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	sv, err := secretsmanager.NewFromConfig(cfg).GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(secretArn)})
	if err != nil {
		return nil, fmt.Errorf("the ledger's secret: %w", err)
	}
	secrets, err := ledger.DeriveSecrets(aws.ToString(sv.SecretString))
	if err != nil {
		return nil, err
	}
	vault, err := ledger.NewLocalVault(secrets.VaultSecret)
	if err != nil {
		return nil, err
	}
	rosterPath, err := get(contract.EnvLedgerRosterPath)
	if err != nil {
		return nil, err
	}
	roster := &rosterSource{ssm: ssm.NewFromConfig(cfg), path: rosterPath}
	entries, err := roster.load(ctx)
	if err != nil {
		return nil, err
	}
	opts := ledger.Options{Table: table, KeySecret: secrets.KeySecret, Vault: vault,
		Signer: secrets.Signer, Verifier: secrets.Verifier, Lingering: lingeringOf(entries), Metrics: os.Stdout}
	if mode == "sweeper" {
		// The sweeper appends receipts: every head it signs is anchored.
		bucket, err := get(contract.EnvLedgerAnchorBucket)
		if err != nil {
			return nil, err
		}
		opts.Anchor = &ledger.Anchor{API: s3.NewFromConfig(cfg), Bucket: bucket}
	}
	l, err := ledger.New(dynamodb.NewFromConfig(cfg), opts)
	if err != nil {
		return nil, err
	}
	switch mode {
	case "reader":
		topic, err := get(contract.EnvLedgerTopicArn)
		if err != nil {
			return nil, err
		}
		// A store the roster names without its role id is looked up in its
		// account (its own deploy made the lookup role), never in advance.
		lookup := &ledger.RoleLookup{Resolver: &awsRoleIDs{cfg: cfg, partition: partitionOf(topic)}, RetryAfter: rosterMaxAge}
		r := &ledger.Reader{Ledger: l, Lookup: lookup}
		r.Roster, r.Accounts = ledger.RosterOf(entries)
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			// A store that joined, left or was redeployed since the last read
			// is seen within rosterMaxAge; a roster that cannot be read whole
			// fails the batch (SQS retries it), never reads in part.
			if roster.stale() {
				entries, err := roster.load(ctx)
				if err != nil {
					return events.SQSEventResponse{}, err
				}
				r.Roster, r.Accounts = ledger.RosterOf(entries)
			}
			var out events.SQSEventResponse
			for _, m := range ev.Records {
				if _, err := r.Handle(ctx, []byte(m.Body), m.Attributes["SenderId"], m.MessageId); err != nil {
					out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				}
			}
			return out, nil
		}, nil
	case "sweeper":
		topic, err := get(contract.EnvLedgerTopicArn)
		if err != nil {
			return nil, err
		}
		pub := publisher.New(sns.NewFromConfig(cfg), topic)
		return func(ctx context.Context) (ledger.SweepReport, error) {
			rep, err := l.Sweep(ctx, pub)
			rep.LastError = nil // codes only leave the function through its metrics
			return rep, err
		}, nil
	}
	return nil, errors.New(contract.EnvLedgerMode + " must be reader or sweeper")
}

// rosterMaxAge is how long the reader trusts a roster it read.
const rosterMaxAge = time.Minute

// rosterSource reads the ledger's roster pages from SSM (ErasureLedger's
// RosterPath): every page under the path, or an error.
type rosterSource struct {
	ssm    *ssm.Client
	path   string
	loaded time.Time
}

func (r *rosterSource) stale() bool { return time.Since(r.loaded) > rosterMaxAge }

func (r *rosterSource) load(ctx context.Context) ([]contract.LedgerRosterEntry, error) {
	var pages []string
	pager := ssm.NewGetParametersByPathPaginator(r.ssm, &ssm.GetParametersByPathInput{Path: aws.String(r.path)})
	for pager.HasMorePages() {
		out, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("the ledger's roster (%s): %w", contract.EnvLedgerRosterPath, err)
		}
		for _, p := range out.Parameters {
			pages = append(pages, aws.ToString(p.Value))
		}
	}
	entries, err := contract.ParseLedgerRoster(pages)
	if err != nil {
		return nil, err
	}
	r.loaded = time.Now()
	return entries, nil
}

// lingeringOf is each bitmap store's lingering bound, for its receipts.
func lingeringOf(entries []contract.LedgerRosterEntry) map[string]int {
	out := map[string]int{}
	for _, e := range entries {
		if e.LingeringDays >= 0 {
			out[e.Store] = e.LingeringDays
		}
	}
	return out
}
