package main

import (
	"context"
	"fmt"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/localledger"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore"
)

// localLedger is the account service's ledger in the local channel.
type localLedger struct{ *localledger.Ledger }

func startLocalLedger(ctx context.Context, c contract.Constants, roster []string) (*localLedger, error) {
	lingering := map[string]int{}
	for _, n := range roster {
		if n == examplestore.BitmapsName {
			lingering[n] = c.NoncurrentVersionExpiryCapDays
		}
	}
	l, err := localledger.StartLedger(ctx, c, lingering)
	if err != nil {
		return nil, err
	}
	return &localLedger{l}, nil
}

func (l *localLedger) stop() { l.Stop() }

func (l *localLedger) sink(ctx context.Context, resp contract.Response, sender, messageID string) error {
	return l.Sink(ctx, resp, sender, messageID)
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
	sum := ledgerSummary{Endpoint: l.Emulator.Endpoint, Table: localledger.LedgerTable, Verifier: l.Verifier}
	rep, err := l.Sweep(ctx, pub)
	if err != nil {
		return sum, err
	}
	sum.Sweep = rep
	for _, id := range ids {
		v, err := l.ReceiptOf(ctx, id, l.Verifier)
		if err != nil {
			continue // incomplete: the status says so
		}
		sum.Receipts = append(sum.Receipts, v.Receipt)
		sum.Indexes = append(sum.Indexes, v.Index)
	}
	if _, err := l.Verify(ctx, l.Verifier); err == nil {
		sum.Verified = true
	}
	sum.Status, err = l.Status(ctx)
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
