package main

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/ledger"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
)

// localLedgerTable is the local channel's ledger table.
const localLedgerTable = "erasure-ledger"

// localLedger is the account service's ledger in the local channel: dynalite,
// a table, fresh secrets and a fresh log key each run.
type localLedger struct {
	emu      *emulator.DynamoDB
	ledger   *ledger.Ledger
	verifier string
}

func startLocalLedger(ctx context.Context, c contract.Constants, roster []string) (*localLedger, error) {
	emu, err := emulator.StartDynamoDB(ctx, "")
	if err != nil {
		return nil, err
	}
	db := dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(emu.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	if err := ledger.CreateTable(ctx, db, localLedgerTable); err != nil {
		emu.Stop()
		return nil, fmt.Errorf("the ledger's table: %w", err)
	}
	keySecret, vaultSecret := make([]byte, 32), make([]byte, 32)
	_, _ = rand.Read(keySecret)
	_, _ = rand.Read(vaultSecret)
	vault, err := ledger.NewLocalVault(vaultSecret)
	if err != nil {
		emu.Stop()
		return nil, err
	}
	signer, verifier, err := ledger.GenerateLogKey("erasure-ledger-local")
	if err != nil {
		emu.Stop()
		return nil, err
	}
	lingering := map[string]int{}
	for _, n := range roster {
		if n == examplestore.BitmapsName {
			lingering[n] = c.NoncurrentVersionExpiryCapDays
		}
	}
	l, err := ledger.New(db, ledger.Options{Table: localLedgerTable, KeySecret: keySecret, Vault: vault, Signer: signer,
		Constants: &c, Lingering: lingering})
	if err != nil {
		emu.Stop()
		return nil, err
	}
	return &localLedger{emu: emu, ledger: l, verifier: verifier}, nil
}

func (l *localLedger) stop() { l.emu.Stop() }

// sink records an authenticated answer in the ledger before the reader counts
// and deletes it; a refusal is recorded there too, and the message deleted.
func (l *localLedger) sink(ctx context.Context, resp contract.Response, sender, messageID string) error {
	_, err := l.ledger.RecordAnswer(ctx, ledger.Answer{Response: resp, Sender: sender, MessageID: messageID})
	return err
}

// ledgerSummary is the ledger's view of the local round.
type ledgerSummary struct {
	Endpoint string             `json:"endpoint"`
	Table    string             `json:"table"`
	Verifier string             `json:"verifierKey"`
	Receipts []ledger.Receipt   `json:"receipts"`
	Indexes  []int64            `json:"logIndexes"`
	Verified bool               `json:"verified"`
	Status   ledger.Counts      `json:"status"`
	Sweep    ledger.SweepReport `json:"sweep"`
}

// receipts sweeps (appending the completed requests' receipts), reads each
// request's receipt proved into the signed head, and verifies the whole log.
func (l *localLedger) receipts(ctx context.Context, pub *publisher.Publisher, ids ...string) (ledgerSummary, error) {
	sum := ledgerSummary{Endpoint: l.emu.Endpoint, Table: localLedgerTable, Verifier: l.verifier}
	rep, err := l.ledger.Sweep(ctx, pub)
	if err != nil {
		return sum, err
	}
	sum.Sweep = rep
	for _, id := range ids {
		v, err := l.ledger.ReceiptOf(ctx, id, l.verifier)
		if err != nil {
			continue // incomplete: the status says so
		}
		sum.Receipts = append(sum.Receipts, v.Receipt)
		sum.Indexes = append(sum.Indexes, v.Index)
	}
	if _, err := l.ledger.Verify(ctx, l.verifier); err == nil {
		sum.Verified = true
	}
	sum.Status, err = l.ledger.Status(ctx)
	return sum, err
}

func printLedger(g *globals, s ledgerSummary) {
	fmt.Fprintf(g.Stdout, "\nledger (DynamoDB API emulator %s, table %s): %d complete, %d open, %d overdue\n",
		s.Endpoint, s.Table, s.Status.Complete, s.Status.Open, s.Status.Overdue)
	for i, r := range s.Receipts {
		printReceipt(g, ledger.VerifiedReceipt{Receipt: r, Index: s.Indexes[i], TreeSize: int64(len(s.Receipts))})
	}
	state := "verifies"
	if !s.Verified {
		state = "DOES NOT VERIFY"
	}
	fmt.Fprintf(g.Stdout, "receipt log: %d receipts, %s against its signed tree head (verifier key %s)\n", len(s.Receipts), state, s.Verifier)
}
