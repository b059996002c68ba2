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
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/ledger"
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
	lingering, err := pairs(os.Getenv(contract.EnvLedgerLingering))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", contract.EnvLedgerLingering, err)
	}
	days := map[string]int{}
	for n, v := range lingering {
		d, err := strconv.Atoi(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%s: %s is not a whole number of days", contract.EnvLedgerLingering, n)
		}
		days[n] = d
	}
	l, err := ledger.New(dynamodb.NewFromConfig(cfg), ledger.Options{Table: table, KeySecret: secrets.KeySecret, Vault: vault,
		Signer: secrets.Signer, Lingering: days, Metrics: os.Stdout})
	if err != nil {
		return nil, err
	}
	switch mode {
	case "reader":
		ids, err := pairs(os.Getenv(contract.EnvLedgerRoster))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", contract.EnvLedgerRoster, err)
		}
		roster := publisher.Roster{}
		for n, id := range ids {
			roster[n] = publisher.Sender{RoleID: id, Session: contract.HandlerName(n)}
		}
		r := &ledger.Reader{Ledger: l, Roster: roster}
		return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
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

// pairs reads "name=value,…" (a value may be empty: a store with no role id
// has every answer refused).
func pairs(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, p := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !contract.IsSubscriberName(k) {
			return nil, errors.New("not name=value pairs of store names")
		}
		out[k] = v
	}
	return out, nil
}
