package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/linn-cloud/erasure-channel/contract"
)

// AnchorAPI is what an S3 anchor calls on S3.
type AnchorAPI interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, optFns ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error)
}

// Anchor keeps every signed tree head where the table's operators cannot
// rewrite it: on AWS an S3 bucket with Object Lock in compliance mode
// (ErasureLedger's Anchor), whose object versions nobody, the account's root
// user included, can delete or overwrite before their retention ends
// (ledgerAnchorRetentionDays). A verifier checks the table's log extends the
// latest head anchored there, so that a table restored from a backup, or
// rewritten by someone who can write it, is caught.
type Anchor struct {
	API    AnchorAPI
	Bucket string
}

// AnchorPrefix is where the anchor's heads are, one object per tree size.
const AnchorPrefix = contract.LedgerAnchorPrefix

// anchorKey is the object of the head of n records: keys sort by decreasing
// size, so that the latest head is the first listed.
func anchorKey(n int64) string { return fmt.Sprintf("%s%019d", AnchorPrefix, math.MaxInt64-n) }

// AnchorKeyOf is the anchor's object key of the head of n records.
func AnchorKeyOf(n int64) string { return anchorKey(n) }

// anchorSize is the tree size an anchor key names, or -1.
func anchorSize(key string) int64 {
	v, err := strconv.ParseInt(strings.TrimPrefix(key, AnchorPrefix), 10, 64)
	if !strings.HasPrefix(key, AnchorPrefix) || err != nil || v < 0 {
		return -1
	}
	return math.MaxInt64 - v
}

// put writes the signed head of n records. A head already anchored is written
// again as a new version: under Object Lock versions are only ever added.
func (a *Anchor) put(ctx context.Context, n int64, signed string) error {
	_, err := a.API.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(a.Bucket), Key: aws.String(anchorKey(n)),
		Body: strings.NewReader(signed), ContentType: aws.String("text/plain; charset=utf-8"),
		// S3 takes a write into an Object Lock bucket only with a checksum.
		ChecksumAlgorithm: s3types.ChecksumAlgorithmSha256})
	if err != nil {
		return fail("ANCHOR_FAILED", fmt.Errorf("the tree head could not be written to the anchor bucket: %w", err))
	}
	return nil
}

// AnchoredHead is the latest signed head the anchor holds.
type AnchoredHead struct {
	Signed string
	Tree   tlog.Tree
	// Invalid counts the newer objects passed over: ones that are not a head
	// signed by the verifier key of the size their key names (written by
	// someone other than the ledger; they cannot be removed, so they are
	// counted, never trusted).
	Invalid int
}

// latest reads the latest head of the anchor signed by verifierKey: every
// version is read, delete markers seen through, and an object that is not a
// head signed by the key for the size its key names is passed over and
// counted. ok is false when the anchor holds no head.
func (a *Anchor) latest(ctx context.Context, verifierKey string) (h AnchoredHead, ok bool, err error) {
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(a.Bucket), Prefix: aws.String(AnchorPrefix)}
	for {
		out, err := a.API.ListObjectVersions(ctx, in)
		if err != nil {
			return h, false, fail("ANCHOR_UNREADABLE", fmt.Errorf("the anchor bucket's heads could not be listed: %w", err))
		}
		for _, v := range out.Versions {
			n := anchorSize(aws.ToString(v.Key))
			got, err := a.API.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(a.Bucket), Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				return h, false, fail("ANCHOR_UNREADABLE", fmt.Errorf("an anchored head could not be read: %w", err))
			}
			body, err := io.ReadAll(io.LimitReader(got.Body, 64<<10))
			got.Body.Close()
			if err != nil {
				return h, false, fail("ANCHOR_UNREADABLE", fmt.Errorf("an anchored head could not be read: %w", err))
			}
			tree, err := openHead(string(body), verifierKey)
			if e := (*Error)(nil); errors.As(err, &e) && e.Code == "BAD_VERIFIER" {
				return h, false, err
			}
			if err != nil || n < 0 || tree.N != n {
				h.Invalid++
				continue
			}
			h.Signed, h.Tree = string(body), tree
			return h, true, nil
		}
		if !aws.ToBool(out.IsTruncated) {
			return h, false, nil
		}
		in.KeyMarker, in.VersionIdMarker = out.NextKeyMarker, out.NextVersionIdMarker
	}
}

// CodeLogRolledBack is the code of a log that does not extend a head its
// verifier or anchor holds.
const CodeLogRolledBack = contract.CodeLogRolledBack

// checkAnchor refuses a table whose log does not extend the latest anchored
// head (LOG_ROLLED_BACK, counted): the sweeper then appends no receipt until
// an operator acts, while erasures go on. It returns the size anchored.
func (l *Ledger) checkAnchor(ctx context.Context) (int64, error) {
	h, ok, err := l.anchor.latest(ctx, l.verifier)
	if err != nil || !ok {
		return 0, err
	}
	size, _, err := l.head(ctx)
	if err != nil {
		return 0, err
	}
	if size < h.Tree.N || !l.extends(ctx, size, h.Tree) {
		l.emit(contract.MetricReceiptLogRefused, contract.CodeLogRolledBack)
		return 0, fail(contract.CodeLogRolledBack, errors.New("the table's receipt log does not extend the head anchored in the anchor bucket: it was restored or rewritten; no receipt is appended until an operator acts"))
	}
	return h.Tree.N, nil
}

// extends says whether the table's log of size records extends tree (a tlog
// consistency proof over the table's stored hashes).
func (l *Ledger) extends(ctx context.Context, size int64, tree tlog.Tree) bool {
	r := hashReader{ctx, l}
	th, err := tlog.TreeHash(size, r)
	if err != nil {
		return false
	}
	proof, err := tlog.ProveTree(size, tree.N, r)
	return err == nil && tlog.CheckTree(proof, size, th, tree.N, tree.Hash) == nil
}

// anchorHead writes the table's signed head to the anchor when it is newer
// than what the anchor was last seen to hold.
func (l *Ledger) anchorHead(ctx context.Context, anchored int64) error {
	size, signed, err := l.head(ctx)
	if err != nil || size <= anchored || signed == "" {
		return err
	}
	return l.anchor.put(ctx, size, signed)
}

// AnchoredHead reads the latest head the ledger's anchor holds, signed by
// verifierKey (ok false when it holds none, or the ledger has no anchor).
func (l *Ledger) AnchoredHead(ctx context.Context, verifierKey string) (AnchoredHead, bool, error) {
	if l.anchor == nil {
		return AnchoredHead{}, false, nil
	}
	return l.anchor.latest(ctx, verifierKey)
}
