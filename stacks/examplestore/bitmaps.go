package examplestore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/storehandler"
	"github.com/linn-cloud/erasure-channel/stacks/examplestore/bitmapstore"
)

// BitmapsName is the subscriber name of the example bitmap store.
const BitmapsName = "bitmaps"

// SampleSubjectID is the bitmap subject id the directory maps SampleAccount to.
const SampleSubjectID uint32 = 42

// BitmapNamespaces are the namespaces the example bitmap store erases from.
var BitmapNamespaces = []string{"events"}

// Errors that fail a record (SQS retries it); codes only.
var (
	// ErrErasureSuperseded: racing writers kept overtaking the erasure until
	// the batch timeout.
	ErrErasureSuperseded = errors.New("examplestore: bitmap erasure superseded until the batch timeout")
	// ErrSegmentFault: a segment faulted; the ledger entry has the code.
	ErrSegmentFault = errors.New("examplestore: a bitmap segment faulted during erasure")
	// ErrDirectory: the directory could not be read or written.
	ErrDirectory = errors.New("examplestore: the subject directory failed")
)

// Bitmaps is the example bitmap store: customer ids as uint32 subjects in
// roaring-bitmap segments on S3 (bitmapstore), reached from an account id
// through the store's own directory. It implements ERASE, CHECK and CLASSIFY
// by account; every address-keyed request and REFILE is NOT_APPLICABLE.
//
// ERASE runs EraseSubject over every namespace on both passes and answers
// DONE only when every ledger entry of the pass says erased; a superseded
// segment is re-run until the batch timeout, then the record fails; a fault
// fails the record. The last pass deletes the directory entry.
//
// CHECK and CLASSIFY answer HOLDS_DATA while the directory maps the account
// (even when no current generation holds the subject any more), HOLDS_NONE
// once it does not. Noncurrent object versions are not consulted: the store
// never reads them, and the bucket's noncurrent-version expiry removes them
// within its declared bound (printed by erasurectl synth).
type Bitmaps struct {
	store  *bitmapstore.Store
	client bitmapstore.S3
	bucket string
	// RetryPause is the pause between re-runs of a superseded erasure.
	RetryPause time.Duration
}

// NewBitmaps returns the example bitmap store on a bucket.
func NewBitmaps(client bitmapstore.S3, opts bitmapstore.Options) (*Bitmaps, error) {
	st, err := bitmapstore.New(client, opts)
	if err != nil {
		return nil, err
	}
	return &Bitmaps{store: st, client: client, bucket: opts.Bucket, RetryPause: 20 * time.Millisecond}, nil
}

// BitmapOptionsFromEnv reads the bucket, prefix and read TTL that
// BitmapStoreBucket.AttachTo set, naming variables, never values, in errors.
func BitmapOptionsFromEnv(lookup func(string) (string, bool)) (bitmapstore.Options, error) {
	var o bitmapstore.Options
	var ok bool
	if o.Bucket, ok = lookup(contract.EnvBitmapBucket); !ok || o.Bucket == "" {
		return o, errors.New("examplestore: " + contract.EnvBitmapBucket + " is not set")
	}
	o.Prefix, _ = lookup(contract.EnvBitmapPrefix)
	ms, _ := lookup(contract.EnvBitmapReadTTLMillis)
	n, err := strconv.Atoi(ms)
	if err != nil || n <= 0 {
		return o, errors.New("examplestore: " + contract.EnvBitmapReadTTLMillis + " is not a positive whole number")
	}
	o.ReadTTL = time.Duration(n) * time.Millisecond
	return o, nil
}

// Store is the underlying bitmap store.
func (b *Bitmaps) Store() *bitmapstore.Store { return b.store }

// Implementations is what the store's Lambda passes to storehandler.Start.
func (b *Bitmaps) Implementations() map[contract.Pair]storehandler.Func {
	return map[contract.Pair]storehandler.Func{
		{Type: contract.TypeErase, KeyKind: contract.KeyAccount}:    b.erase,
		{Type: contract.TypeCheck, KeyKind: contract.KeyAccount}:    b.holdings,
		{Type: contract.TypeClassify, KeyKind: contract.KeyAccount}: b.holdings,
	}
}

// directoryKey names an account's directory entry by a digest, so no account
// id appears in a key, a listing or an access log.
func (b *Bitmaps) directoryKey(account string) *string {
	sum := sha256.Sum256([]byte(account))
	return aws.String(b.store.Prefix() + "directory/" + hex.EncodeToString(sum[:]) + ".json")
}

type directoryEntry struct {
	Subject uint32 `json:"subject"`
}

// Register maps an account to its subject id in the directory.
func (b *Bitmaps) Register(ctx context.Context, account string, subject uint32) error {
	body, _ := json.Marshal(directoryEntry{Subject: subject})
	if _, err := b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.bucket, Key: b.directoryKey(account),
		Body: bytes.NewReader(body), ContentType: aws.String("application/json")}); err != nil {
		return errors.Join(ErrDirectory, &bitmapstore.Error{Op: "register", Code: bitmapstore.CodeOf(err)})
	}
	return nil
}

// Lookup returns the account's subject id, and false if the directory has none.
func (b *Bitmaps) Lookup(ctx context.Context, account string) (uint32, bool, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: b.directoryKey(account)})
	var nsk *s3types.NoSuchKey
	if errors.As(err, &nsk) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, errors.Join(ErrDirectory, &bitmapstore.Error{Op: "lookup", Code: bitmapstore.CodeOf(err)})
	}
	defer out.Body.Close()
	var e directoryEntry
	if err := json.NewDecoder(io.LimitReader(out.Body, 4096)).Decode(&e); err != nil {
		return 0, false, errors.Join(ErrDirectory, &bitmapstore.Error{Op: "lookup", Code: bitmapstore.CodeCorrupt})
	}
	return e.Subject, true, nil
}

func (b *Bitmaps) forget(ctx context.Context, account string) error {
	if _, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: b.directoryKey(account)}); err != nil {
		return errors.Join(ErrDirectory, &bitmapstore.Error{Op: "forget", Code: bitmapstore.CodeOf(err)})
	}
	return nil
}

// EraseSubjectEverywhere runs EraseSubject over every namespace until a pass
// has every entry erased: superseded segments are re-run while ctx lasts.
// It returns the ledgers of the last run.
func (b *Bitmaps) EraseSubjectEverywhere(ctx context.Context, subject uint32) ([]bitmapstore.Result, error) {
	overtaken := false // a racing writer won an earlier run
	for {
		var results []bitmapstore.Result
		superseded := 0
		for _, ns := range BitmapNamespaces {
			res, err := b.store.EraseSubject(ctx, subject, ns)
			if err == nil {
				_, s, f := res.Counts()
				superseded += s
				if f > 0 {
					err = ErrSegmentFault
				}
			}
			if err != nil {
				if overtaken && ctx.Err() != nil {
					return results, ErrErasureSuperseded // the batch timeout cut a re-run short
				}
				return results, err
			}
			results = append(results, res)
		}
		if superseded == 0 {
			return results, nil
		}
		overtaken = true
		select {
		case <-ctx.Done():
			return results, ErrErasureSuperseded
		case <-time.After(b.RetryPause):
		}
	}
}

func (b *Bitmaps) erase(ctx context.Context, r contract.Request, pass storehandler.Pass) (string, error) {
	subject, ok, err := b.Lookup(ctx, r.Key)
	if err != nil {
		return "", err
	}
	if !ok {
		return string(contract.OutcomeDone), nil // nothing mapped: nothing held
	}
	if _, err := b.EraseSubjectEverywhere(ctx, subject); err != nil {
		return "", err
	}
	if pass == 2 { // the last pass: the directory entry goes too
		if err := b.forget(ctx, r.Key); err != nil {
			return "", err
		}
	}
	return string(contract.OutcomeDone), nil
}

func (b *Bitmaps) holdings(ctx context.Context, r contract.Request, _ storehandler.Pass) (string, error) {
	_, ok, err := b.Lookup(ctx, r.Key)
	if err != nil {
		return "", err
	}
	if ok {
		return string(contract.AnswerHoldsData), nil
	}
	return string(contract.AnswerHoldsNone), nil
}

// SeedSample loads the sample data: the directory maps SampleAccount to
// SampleSubjectID, which two of three segments hold (one of them in a
// retained older generation too), among other ids.
func (b *Bitmaps) SeedSample(ctx context.Context) error {
	if err := b.Register(ctx, SampleAccount, SampleSubjectID); err != nil {
		return err
	}
	others := make([]uint32, 0, 1000)
	for i := uint32(1000); i < 2000; i++ {
		others = append(others, i)
	}
	with := append(append([]uint32(nil), others...), SampleSubjectID)
	ns := BitmapNamespaces[0]
	for _, l := range []struct {
		seg string
		ids []uint32
	}{
		{"opened-2026-11", append([]uint32{SampleSubjectID}, others[:500]...)}, {"opened-2026-11", with},
		{"clicked-2026-11", with},
		{"bought-2026-11", others[:100]},
	} {
		if _, err := b.store.Load(ctx, ns, l.seg, l.ids); err != nil {
			return err
		}
	}
	return nil
}

// HoldsSample says whether the directory still maps the sample account or any
// current generation still holds its subject (for tests and the local demo).
func (b *Bitmaps) HoldsSample(ctx context.Context) (bool, error) {
	if _, ok, err := b.Lookup(ctx, SampleAccount); err != nil || ok {
		return ok, err
	}
	for _, ns := range BitmapNamespaces {
		segs, err := b.store.Segments(ctx, ns)
		if err != nil {
			return false, err
		}
		for _, seg := range segs {
			if in, err := b.store.Contains(ctx, ns, seg, SampleSubjectID); err != nil || in {
				return in, err
			}
		}
	}
	return false, nil
}
