package ledger_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

var (
	dynOnce sync.Once
	dynEmu  *emulator.DynamoDB
	dynErr  error
)

// dynamo is a client of one DynamoDB emulator (dynalite) shared by the
// package's tests, each on a table of its own.
func dynamo(t testing.TB) *dynamodb.Client {
	t.Helper()
	dynOnce.Do(func() { dynEmu, dynErr = emulator.StartDynamoDB(context.Background(), "") })
	if dynErr != nil {
		t.Fatalf("the DynamoDB emulator: %v", dynErr)
	}
	return dynEmu.Client()
}

var tableNo struct {
	sync.Mutex
	n int
}

// clock is a test clock the ledger reads.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }
func secret(n int) []byte                { b := make([]byte, n); _, _ = rand.Read(b); return b }

// newLedger makes a fresh table and a ledger on it.
func newLedger(t testing.TB, db *dynamodb.Client, now func() time.Time) (*ledger.Ledger, string) {
	t.Helper()
	tableNo.Lock()
	tableNo.n++
	name := fmt.Sprintf("ledger-%d", tableNo.n)
	tableNo.Unlock()
	if err := ledger.CreateTable(context.Background(), db, name); err != nil {
		t.Fatal(err)
	}
	vault, err := ledger.NewLocalVault(secret(32))
	if err != nil {
		t.Fatal(err)
	}
	signer, verifier, err := ledger.GenerateLogKey("erasure-ledger-test")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(db, ledger.Options{Table: name, KeySecret: secret(32), Vault: vault, Signer: signer, Now: now,
		Lingering: map[string]int{"bitmaps": 30}})
	if err != nil {
		t.Fatal(err)
	}
	return l, verifier
}

// sent is a publisher that records what it was asked to publish (the ledger
// is under test; SNS is not).
type sent struct {
	mu   sync.Mutex
	reqs []contract.Request
	fail bool
}

func (p *sent) PublishRequest(_ context.Context, r contract.Request) (contract.Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return r, context.DeadlineExceeded
	}
	p.reqs = append(p.reqs, r)
	return r, nil
}

func (p *sent) of(id string) []contract.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []contract.Request
	for _, r := range p.reqs {
		if r.RequestID == id {
			out = append(out, r)
		}
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
