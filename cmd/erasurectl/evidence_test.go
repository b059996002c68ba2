package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

// noSNS publishes nothing: the ledger is under test, SNS is not.
type noSNS struct{}

func (noSNS) PublishRequest(_ context.Context, r contract.Request) (contract.Request, error) {
	return r, nil
}

// completeWithReceipts records n ERASE requests, answers them from both
// roster stores and sweeps: n receipts, their head anchored.
func completeWithReceipts(t *testing.T, l *ledger.Ledger, n int) {
	t.Helper()
	ctx := context.Background()
	pub := publisher.New(nil, "arn:aws:sns:eu-west-1:111111111111:erasure-topic")
	roster := publisher.Roster{"space": {RoleID: "AROASPACE0000000000", Session: contract.HandlerName("space")},
		"bitmaps": {RoleID: "AROABITMAPS00000000", Session: contract.HandlerName("bitmaps")}}
	r := &ledger.Reader{Ledger: l, Roster: roster}
	for i := 0; i < n; i++ {
		req, err := l.Publish(ctx, noSNS{}, pub.NewErase(contract.KeyAccount, "acct-evidence"), roster.Stores())
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range roster.Stores() {
			b, _ := contract.EncodeResponse(contract.AnswerFor(req, st, "DONE"))
			if _, err := r.Handle(ctx, b, contract.HandlerSenderID(roster[st].RoleID, roster[st].Session), req.RequestID+st); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rep, err := l.Sweep(ctx, noSNS{}); err != nil || rep.Receipts != n || rep.Errors != 0 {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
}

// TestEvidenceVerifyAgainstTheAnchorAndATrustedHead: erasurectl evidence
// verify, as an auditor runs it (no ledger secret), over a ledger on the
// DynamoDB emulator whose heads are anchored on an S3 endpoint. The log
// verifies against its anchor and saves its head; then the whole table is
// restored from an older backup, which the table alone cannot tell: --anchor
// and --trusted-head each fail it (exit 1, LOG_ROLLED_BACK), and the output
// names no request.
func TestEvidenceVerifyAgainstTheAnchorAndATrustedHead(t *testing.T) {
	ctx := context.Background()
	dyn, err := emulator.StartDynamoDB(ctx, "")
	if err != nil {
		t.Fatalf("the DynamoDB emulator: %v", err)
	}
	t.Cleanup(dyn.Stop)
	s3e, err := emulator.StartS3("eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s3e.Stop)
	db := dyn.Client()
	const table, bucket = "evidence-ledger", "evidence-anchor"
	if err := ledger.CreateTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	if err := s3e.CreateVersionedBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	secrets, err := ledger.DeriveSecrets(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	vault, _ := ledger.NewLocalVault(secrets.VaultSecret)
	l, err := ledger.New(db, ledger.Options{Table: table, KeySecret: secrets.KeySecret, Vault: vault, Signer: secrets.Signer,
		Verifier: secrets.Verifier, Anchor: &ledger.Anchor{API: s3e.Client(), Bucket: bucket}})
	if err != nil {
		t.Fatal(err)
	}
	completeWithReceipts(t, l, 2)
	var backup []map[string]types.AttributeValue
	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil || scan.LastEvaluatedKey != nil {
		t.Fatalf("backup: %v", err)
	}
	backup = scan.Items
	completeWithReceipts(t, l, 3)

	head := filepath.Join(t.TempDir(), "head")
	verify := func(extra ...string) result {
		args := append([]string{"evidence", "verify", "--table", table, "--endpoint-url", dyn.Endpoint, "--verifier-key", secrets.Verifier}, extra...)
		return erasurectl(t, nil, args...)
	}
	anchor := []string{"--anchor", bucket, "--anchor-endpoint-url", s3e.Endpoint}
	r := verify(append(anchor, "--save-head", head)...)
	if r.code != exitOK || !strings.Contains(r.stdout, "5 receipts") || !strings.Contains(r.stdout, "extends the anchor's latest head (5 records; 0 past it") {
		t.Fatalf("the untouched log: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(head); err != nil || !strings.Contains(string(b), "\n5\n") {
		t.Fatalf("the saved head: %q %v", b, err)
	}

	// Restore the backup: every item as it was after the first two.
	scan, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range scan.Items {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range backup {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	if r := verify(); r.code != exitOK {
		t.Fatalf("the restored table alone should verify (it is a consistent older ledger): exit %d\n%s", r.code, r.stderr)
	}
	for name, extra := range map[string][]string{"--anchor": anchor, "--trusted-head": {"--trusted-head", head}} {
		r := verify(extra...)
		if r.code != exitCheckFailed || !strings.Contains(r.stderr+r.stdout, contract.CodeLogRolledBack) {
			t.Errorf("%s over a restored table: exit %d, want %d with %s\n%s%s", name, r.code, exitCheckFailed, contract.CodeLogRolledBack, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "acct-evidence") {
			t.Errorf("%s printed a key", name)
		}
	}
}
