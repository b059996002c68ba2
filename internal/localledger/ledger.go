// Package localledger is the account service's ledger beside the local
// channel, on the DynamoDB API emulator (erasurectl local, its tests).
package localledger

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

// LedgerTable is the local channel's ledger table.
const LedgerTable = "erasure-ledger"

// Ledger is the account service's ledger beside the local channel: the
// DynamoDB API emulator (dynalite), its table, and fresh secrets and a fresh
// log key each run.
type Ledger struct {
	*ledger.Ledger
	Emulator *emulator.DynamoDB
	Verifier string
}

// StartLedger starts the DynamoDB emulator and a ledger on it, with the
// (scaled) constants the local channel runs with.
func StartLedger(ctx context.Context, c contract.Constants, lingering map[string]int) (*Ledger, error) {
	emu, err := emulator.StartDynamoDB(ctx, "")
	if err != nil {
		return nil, err
	}
	db := emu.Client()
	if err := ledger.CreateTable(ctx, db, LedgerTable); err != nil {
		emu.Stop()
		return nil, fmt.Errorf("the ledger's table: %w", err)
	}
	root := make([]byte, 32)
	_, _ = rand.Read(root)
	secrets, err := ledger.DeriveSecrets(fmt.Sprintf("%x", root))
	if err != nil {
		emu.Stop()
		return nil, err
	}
	vault, err := ledger.NewLocalVault(secrets.VaultSecret)
	if err != nil {
		emu.Stop()
		return nil, err
	}
	l, err := ledger.New(db, ledger.Options{Table: LedgerTable, KeySecret: secrets.KeySecret, Vault: vault, Signer: secrets.Signer,
		Constants: &c, Lingering: lingering})
	if err != nil {
		emu.Stop()
		return nil, err
	}
	return &Ledger{Ledger: l, Emulator: emu, Verifier: secrets.Verifier}, nil
}

// Stop ends the emulator.
func (l *Ledger) Stop() { l.Emulator.Stop() }

// Sink records every authenticated answer in the ledger before the channel's
// reader counts and deletes it (publisher.Reader.WithSink).
func (l *Ledger) Sink(ctx context.Context, resp contract.Response, sender, messageID string) error {
	rec, err := l.RecordAnswer(ctx, ledger.Answer{Response: resp, Sender: sender, MessageID: messageID})
	if err == nil && rec.Result == ledger.Refused {
		return &publisher.RefusedError{Code: rec.Code}
	}
	return err
}
