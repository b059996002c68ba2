package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/linn-cloud/erasure-channel/contract/ledger"
)

// ledgerFlags name the ledger's table and how to reach it. Reading needs no
// secret: the key digest, sealed keys and the signer stay with the ledger.
type ledgerFlags struct {
	Table       string `required:"" env:"ERASURE_LEDGER_TABLE" help:"The ledger's DynamoDB table."`
	EndpointURL string `name:"endpoint-url" help:"A DynamoDB endpoint instead of AWS (erasurectl local --keep prints one)."`
	Region      string `default:"eu-west-1" env:"AWS_REGION" help:"The AWS region."`
}

// readOnlyVault refuses to open anything: the CLI reads the ledger, it never
// re-broadcasts.
type readOnlyVault struct{}

func (readOnlyVault) Seal(context.Context, string, []byte) (string, error) {
	return "", errors.New("erasurectl reads the ledger only")
}
func (readOnlyVault) Open(context.Context, string, string) ([]byte, error) {
	return nil, errors.New("erasurectl reads the ledger only")
}

// localCredentials are the environment's keys for a local endpoint, or any.
func (f ledgerFlags) localCredentials() aws.CredentialsProvider {
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		id, secret = "local", "local"
	}
	return credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN"))
}

// s3Client is an S3 client in the ledger's region: of endpoint (path-style)
// when one is given, else of AWS.
func (f ledgerFlags) s3Client(ctx context.Context, endpoint string) (*s3.Client, error) {
	if endpoint != "" {
		return s3.New(s3.Options{Region: f.Region, BaseEndpoint: aws.String(endpoint), UsePathStyle: true, Credentials: f.localCredentials(),
			RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired, ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired}), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(f.Region))
	if err != nil {
		return nil, fail(exitEnvironment, "AWS configuration: %v", err)
	}
	return s3.NewFromConfig(cfg), nil
}

func (f ledgerFlags) open(ctx context.Context) (*ledger.Ledger, *dynamodb.Client, error) {
	var db *dynamodb.Client
	if f.EndpointURL != "" {
		db = dynamodb.New(dynamodb.Options{Region: f.Region, BaseEndpoint: aws.String(f.EndpointURL), Credentials: f.localCredentials()})
	} else {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(f.Region))
		if err != nil {
			return nil, nil, fail(exitEnvironment, "AWS configuration: %v", err)
		}
		db = dynamodb.NewFromConfig(cfg)
	}
	// The key secret keys only digests the reader never computes: any 32 bytes.
	l, err := ledger.New(db, ledger.Options{Table: f.Table, KeySecret: make([]byte, 32), Vault: readOnlyVault{}})
	if err != nil {
		return nil, nil, fail(exitUsage, "%v", err)
	}
	return l, db, nil
}

type receiptCmd struct {
	ledgerFlags
	RequestID   string `arg:"" name:"request-id" help:"The request whose receipt to print."`
	VerifierKey string `name:"verifier-key" required:"" env:"ERASURE_LEDGER_VERIFIER_KEY" help:"The receipt log's note verifier key: the receipt is proved into the tree head it signed."`
}

func (c *receiptCmd) Run(g *globals) error {
	ctx := context.Background()
	l, _, err := c.open(ctx)
	if err != nil {
		return err
	}
	v, err := l.ReceiptOf(ctx, c.RequestID, c.VerifierKey)
	if errors.Is(err, ledger.ErrNoSuchRequest) {
		return fail(exitCheckFailed, "the ledger holds no such request")
	}
	if err != nil {
		return fail(exitCheckFailed, "%v", err)
	}
	if g.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"receipt": v.Receipt, "logIndex": v.Index, "treeSize": v.TreeSize})
	}
	printReceipt(g, v)
	return nil
}

func printReceipt(g *globals, v ledger.VerifiedReceipt) {
	r := v.Receipt
	fmt.Fprintf(g.Stdout, "receipt %d of %d in the log, proved into its signed tree head\n", v.Index, v.TreeSize)
	fmt.Fprintf(g.Stdout, "  %s %s, key digest %s…\n  received %s, due by %s, completed %s (broadcast %d)\n",
		r.Type, roundLabel(r.RequestID, r.SendNo), r.KeyDigest[:16], r.ReceivedAt, r.DueBy, r.CompletedAt, r.SendNo)
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  STORE\tOUTCOME\tANSWERED\tSENDER\tLINGERS")
	for _, st := range r.Stores {
		lingers := "-"
		if st.LingeringDays > 0 {
			lingers = fmt.Sprintf("≤ %d d", st.LingeringDays)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", st.Subscriber, st.Outcome, st.AnsweredAt, st.Sender, lingers)
	}
	tw.Flush()
}

type evidenceCmd struct {
	Verify evidenceVerifyCmd `cmd:"" help:"Check the whole receipt log: its tree head is signed by --verifier-key and every receipt hashes into it."`
}

type evidenceVerifyCmd struct {
	ledgerFlags
	VerifierKey string `name:"verifier-key" required:"" env:"ERASURE_LEDGER_VERIFIER_KEY" help:"The receipt log's note verifier key."`
	TrustedHead string `name:"trusted-head" type:"existingfile" help:"A signed tree head kept from an earlier verification (--save-head): the log must extend it (a tlog consistency proof), or it was rolled back."`
	SaveHead    string `name:"save-head" help:"Write the verified signed tree head here, to pass as --trusted-head next time."`
	Anchor      string `name:"anchor" env:"ERASURE_LEDGER_ANCHOR_BUCKET" help:"The ledger's anchor bucket (ErasureLedger's Anchor, Object Lock): the log must extend the latest head anchored there."`
	AnchorURL   string `name:"anchor-endpoint-url" help:"An S3 endpoint for --anchor instead of AWS (path-style)."`
}

func (c *evidenceVerifyCmd) Run(g *globals) error {
	ctx := context.Background()
	l, _, err := c.open(ctx)
	if err != nil {
		return err
	}
	var opts ledger.VerifyOptions
	if c.TrustedHead != "" {
		b, err := os.ReadFile(c.TrustedHead)
		if err != nil {
			return fail(exitUsage, "--trusted-head: %v", err)
		}
		opts.TrustedHead = string(b)
	}
	if c.Anchor != "" {
		api, err := c.s3Client(ctx, c.AnchorURL)
		if err != nil {
			return err
		}
		opts.Anchor = &ledger.Anchor{API: api, Bucket: c.Anchor}
	}
	rep, err := l.VerifyWith(ctx, c.VerifierKey, opts)
	if err != nil {
		return fail(exitCheckFailed, "%v", err)
	}
	if c.SaveHead != "" {
		if err := os.WriteFile(c.SaveHead, []byte(rep.Head), 0o600); err != nil {
			return fail(exitUsage, "--save-head: %v", err)
		}
	}
	if g.JSON {
		out := map[string]any{"verified": true, "treeSize": rep.Size, "receipts": rep.Receipts,
			"completedInside": rep.Completed, "extendsTrustedHead": opts.TrustedHead != ""}
		if opts.Anchor != nil {
			out["anchoredSize"], out["anchorInvalid"] = rep.Anchored, rep.AnchorInvalid
		}
		return json.NewEncoder(g.Stdout).Encode(out)
	}
	fmt.Fprintf(g.Stdout, "the receipt log verifies: %d receipts, every one the ledger's and hashing into the tree head signed by the verifier key; %d completed requests, each receipt inside it\n", rep.Receipts, rep.Completed)
	if opts.TrustedHead != "" {
		fmt.Fprintln(g.Stdout, "it extends the trusted head (consistency proof checked)")
	}
	if opts.Anchor != nil {
		fmt.Fprintf(g.Stdout, "it extends the anchor's latest head (%d records; %d past it, held by the table alone until the next sweep anchors them)\n", rep.Anchored, rep.Size-rep.Anchored)
		if rep.AnchorInvalid > 0 {
			fmt.Fprintf(g.Stdout, "warning: the anchor holds %d newer objects that are no head of this ledger (passed over, never trusted): someone else can write to it\n", rep.AnchorInvalid)
		}
	}
	return nil
}

type statusCmd struct {
	ledgerFlags
}

func (c *statusCmd) Run(g *globals) error {
	ctx := context.Background()
	l, _, err := c.open(ctx)
	if err != nil {
		return err
	}
	st, err := l.Status(ctx)
	if err != nil {
		return fail(exitEnvironment, "%v", err)
	}
	if g.JSON {
		return json.NewEncoder(g.Stdout).Encode(st)
	}
	fmt.Fprintf(g.Stdout, "requests: %d open (%d overdue), %d complete (%d awaiting a receipt), %d exhausted, %d expired\n",
		st.Open, st.Overdue, st.Complete, st.AwaitingReceipt, st.Exhausted, st.Expired)
	if st.OldestOpen != nil {
		fmt.Fprintf(g.Stdout, "oldest open request received %s, due by %s\n", st.OldestOpen.ReceivedAt.Format(time.RFC3339), st.OldestOpen.DueBy.Format(time.RFC3339))
	}
	return nil
}
