// Package bitmapstore is a Go reference store with the semantics of the
// CloudBitmaps subject-erasure model that the erasure channel depends on:
// segments of uint32 ids in namespaces on object storage (the S3 API),
// write-once generation objects, one registry row per segment holding the
// current-generation pointer and a token, publishes that are a
// compare-and-swap on the row, a reader cache whose pointer refresh is the
// read TTL, and EraseSubject, physical on return for every segment whose
// ledger entry says erased.
//
// It is a subset, written for this project: no encryption, no retention,
// no rollback, no multipart uploads. Errors carry codes, never ids or keys.
//
// Object layout under Options.Prefix:
//
//	registry/<namespace>/<segment>.reg            the registry row (JSON)
//	<namespace>/segments/<segment>.<gen>.crbm     a generation (portable Roaring bytes)
package bitmapstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3 is the part of the S3 API the store calls; *s3.Client is the real one.
type S3 interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, opts ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

// DefaultPrefix is where the store keeps its objects when Options.Prefix is empty.
const DefaultPrefix = "cbm/"

// DefaultConcurrency is how many segments EraseSubject works on at once.
const DefaultConcurrency = 8

// Options configure a Store.
type Options struct {
	Bucket string
	// Prefix is the key prefix of every object the store writes; it ends in
	// "/". Default DefaultPrefix.
	Prefix string
	// ReadTTL is how long a reader serves a segment's cached pointer before it
	// reads the registry row again: the bound on how long another process
	// keeps serving an erased id. Zero is refused (no bound).
	ReadTTL time.Duration
	// Keep is how many generations older than the current one Load retains.
	Keep int
	// Concurrency bounds EraseSubject's parallel segments. Default 8.
	Concurrency int
	// Now is the reader cache's clock (tests). Default time.Now.
	Now func() time.Time
}

// Store is one process's handle on a bitmap store.
type Store struct {
	s3   S3
	opts Options

	mu    sync.Mutex
	cache map[string]*cached // by segment key
}

type cached struct {
	gen     uint64
	bitmap  *roaring.Bitmap
	checked time.Time // when the pointer was last read
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// reservedNamespace is the registry's own folder: no namespace may shadow it.
const reservedNamespace = "registry"

// New returns a Store on bucket, or an *Error with code INVALID_OPTIONS.
func New(client S3, opts Options) (*Store, error) {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	switch {
	case client == nil, opts.Bucket == "", !strings.HasSuffix(opts.Prefix, "/"), opts.ReadTTL <= 0, opts.Keep < 0:
		return nil, &Error{Op: "new", Code: CodeInvalidOptions}
	}
	return &Store{s3: client, opts: opts, cache: map[string]*cached{}}, nil
}

// Prefix is the key prefix of the store's objects.
func (s *Store) Prefix() string { return s.opts.Prefix }

// ReadTTL is the store's read TTL.
func (s *Store) ReadTTL() time.Duration { return s.opts.ReadTTL }

func checkNames(op, namespace, segment string) error {
	if !namePattern.MatchString(namespace) || namespace == reservedNamespace || (segment != "" && !namePattern.MatchString(segment)) {
		return &Error{Op: op, Code: CodeInvalidName}
	}
	return nil
}

func (s *Store) rowKey(ns, seg string) string {
	return s.opts.Prefix + "registry/" + ns + "/" + seg + ".reg"
}

func (s *Store) rowPrefix(ns string) string { return s.opts.Prefix + "registry/" + ns + "/" }

func (s *Store) genPrefix(ns, seg string) string {
	return s.opts.Prefix + ns + "/segments/" + seg + "."
}

func (s *Store) genKey(ns, seg string, gen uint64) string {
	return s.genPrefix(ns, seg) + strconv.FormatUint(gen, 10) + ".crbm"
}

// row is a segment's registry row.
type row struct {
	Gen   uint64 `json:"gen"`   // the current generation
	Next  uint64 `json:"next"`  // the lowest generation number not yet allocated
	Token string `json:"token"` // <incarnation>.<counter>: changes on every publish
	Count uint64 `json:"count"` // the current generation's id count
}

// nextToken keeps the incarnation and advances the counter; a new row gets a
// random incarnation, so a re-created segment is told apart from an old one.
func (r *row) nextToken() (string, error) {
	inc, counter := "", uint64(0)
	if r != nil {
		if i := strings.LastIndexByte(r.Token, '.'); i > 0 {
			inc = r.Token[:i]
			counter, _ = strconv.ParseUint(r.Token[i+1:], 10, 64)
		}
	}
	if inc == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		inc = hex.EncodeToString(b[:])
	}
	return inc + "." + strconv.FormatUint(counter+1, 10), nil
}

// readRow returns the segment's row and its ETag, or (nil, "", nil) if the
// segment has none.
func (s *Store) readRow(ctx context.Context, ns, seg string) (*row, string, error) {
	out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.rowKey(ns, seg))})
	if isNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	defer out.Body.Close()
	var r row
	if err := json.NewDecoder(io.LimitReader(out.Body, 1<<16)).Decode(&r); err != nil || r.Gen == 0 || r.Next <= r.Gen {
		return nil, "", &Error{Op: "read row", Code: CodeCorrupt}
	}
	return &r, aws.ToString(out.ETag), nil
}

// publish writes the row with a compare-and-swap on etag ("" = the row must
// not exist yet). A racing writer's publish makes it fail with CodeConflict.
func (s *Store) publish(ctx context.Context, ns, seg string, r row, etag string) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	in := &s3.PutObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.rowKey(ns, seg)), Body: bytes.NewReader(b),
		ContentType: aws.String("application/json")}
	if etag == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(etag)
	}
	_, err = s.s3.PutObject(ctx, in)
	if isConflict(err) {
		return &Error{Op: "publish", Code: CodeConflict}
	}
	return err
}

// writeGeneration writes a generation once (If-None-Match: *).
func (s *Store) writeGeneration(ctx context.Context, ns, seg string, gen uint64, bm *roaring.Bitmap) error {
	b, err := bm.ToBytes()
	if err != nil {
		return err
	}
	_, err = s.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.genKey(ns, seg, gen)),
		Body: bytes.NewReader(b), IfNoneMatch: aws.String("*"), ContentType: aws.String("application/octet-stream")})
	if isConflict(err) {
		return &Error{Op: "write generation", Code: CodeConflict}
	}
	return err
}

// readGeneration reads and decodes one generation.
func (s *Store) readGeneration(ctx context.Context, ns, seg string, gen uint64) (*roaring.Bitmap, error) {
	out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.genKey(ns, seg, gen))})
	if isNotFound(err) {
		return nil, &Error{Op: "read generation", Code: CodeGenerationMissing}
	}
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	bm := roaring.New()
	if _, err := bm.ReadFrom(out.Body); err != nil {
		return nil, &Error{Op: "read generation", Code: CodeCorrupt}
	}
	return bm, nil
}

func (s *Store) deleteGeneration(ctx context.Context, ns, seg string, gen uint64) error {
	_, err := s.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.genKey(ns, seg, gen))})
	return err
}

// listGenerations lists every generation object the segment has, ascending.
func (s *Store) listGenerations(ctx context.Context, ns, seg string) ([]uint64, error) {
	prefix := s.genPrefix(ns, seg)
	var gens []uint64
	err := s.list(ctx, prefix, func(key string) {
		rest := strings.TrimPrefix(key, prefix)
		if n, ok := strings.CutSuffix(rest, ".crbm"); ok {
			if g, err := strconv.ParseUint(n, 10, 64); err == nil {
				gens = append(gens, g)
			}
		}
	})
	sort.Slice(gens, func(i, j int) bool { return gens[i] < gens[j] })
	return gens, err
}

// list calls fn for every key under prefix.
func (s *Store) list(ctx context.Context, prefix string, fn func(key string)) error {
	in := &s3.ListObjectsV2Input{Bucket: &s.opts.Bucket, Prefix: aws.String(prefix)}
	for {
		out, err := s.s3.ListObjectsV2(ctx, in)
		if err != nil {
			return err
		}
		for _, o := range out.Contents {
			fn(aws.ToString(o.Key))
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return nil
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}

// Segments lists the segments of a namespace.
func (s *Store) Segments(ctx context.Context, namespace string) ([]string, error) {
	if err := checkNames("segments", namespace, ""); err != nil {
		return nil, err
	}
	prefix := s.rowPrefix(namespace)
	var segs []string
	err := s.list(ctx, prefix, func(key string) {
		if seg, ok := strings.CutSuffix(strings.TrimPrefix(key, prefix), ".reg"); ok && namePattern.MatchString(seg) {
			segs = append(segs, seg)
		}
	})
	if err != nil {
		return nil, wrap("segments", err)
	}
	sort.Strings(segs)
	return segs, nil
}

// LoadResult is what a Load published.
type LoadResult struct {
	Generation uint64
	Count      uint64
}

// Load publishes a new generation of the segment holding exactly ids, fenced
// on the row it read: a racing writer that published first makes it fail
// with CodeConflict and leaves nothing of it behind. It then keeps Keep older
// generations and deletes the rest.
func (s *Store) Load(ctx context.Context, namespace, segment string, ids []uint32) (LoadResult, error) {
	if err := checkNames("load", namespace, segment); err != nil {
		return LoadResult{}, err
	}
	return s.LoadBitmap(ctx, namespace, segment, roaring.BitmapOf(ids...))
}

// LoadBitmap is Load from a bitmap the caller already holds.
func (s *Store) LoadBitmap(ctx context.Context, namespace, segment string, bm *roaring.Bitmap) (LoadResult, error) {
	if err := checkNames("load", namespace, segment); err != nil {
		return LoadResult{}, err
	}
	r, etag, err := s.readRow(ctx, namespace, segment)
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	gens, err := s.listGenerations(ctx, namespace, segment)
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	gen, err := s.rewrite(ctx, namespace, segment, r, etag, gens, bm)
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	var old []uint64
	for _, g := range gens {
		if g < gen {
			old = append(old, g)
		}
	}
	if len(old) > s.opts.Keep {
		for _, g := range old[:len(old)-s.opts.Keep] {
			if err := s.deleteGeneration(ctx, namespace, segment, g); err != nil {
				return LoadResult{}, wrap("load", err)
			}
		}
	}
	return LoadResult{Generation: gen, Count: bm.GetCardinality()}, nil
}

// rewrite writes bm as a generation numbered above every one listed and
// publishes it over r (nil: a new segment). On a lost race it deletes its own
// generation object and returns CodeConflict.
func (s *Store) rewrite(ctx context.Context, ns, seg string, r *row, etag string, listed []uint64, bm *roaring.Bitmap) (uint64, error) {
	gen := uint64(1)
	if r != nil {
		gen = r.Next
	}
	if n := len(listed); n > 0 && listed[n-1] >= gen {
		gen = listed[n-1] + 1
	}
	if err := s.writeGeneration(ctx, ns, seg, gen, bm); err != nil {
		return 0, err
	}
	token, err := r.nextToken()
	if err != nil {
		return 0, err
	}
	if err := s.publish(ctx, ns, seg, row{Gen: gen, Next: gen + 1, Token: token, Count: bm.GetCardinality()}, etag); err != nil {
		// Best effort: a generation nothing points at is never read; a later
		// rewrite's collection deletes it if this delete fails.
		_ = s.deleteGeneration(context.WithoutCancel(ctx), ns, seg, gen)
		return 0, err
	}
	s.invalidate(ns, seg)
	return gen, nil
}

func (s *Store) invalidate(ns, seg string) {
	s.mu.Lock()
	delete(s.cache, ns+"/"+seg)
	s.mu.Unlock()
}

// current returns the segment's current bitmap through the reader cache: the
// pointer is read again once ReadTTL has passed since it was last read.
// A segment with no row is (nil, nil).
func (s *Store) current(ctx context.Context, ns, seg string) (*roaring.Bitmap, error) {
	key := ns + "/" + seg
	now := s.opts.Now()
	s.mu.Lock()
	c := s.cache[key]
	s.mu.Unlock()
	if c != nil && now.Sub(c.checked) < s.opts.ReadTTL {
		return c.bitmap, nil
	}
	r, _, err := s.readRow(ctx, ns, seg)
	if err != nil {
		return nil, err
	}
	if r == nil {
		s.invalidate(ns, seg)
		return nil, nil
	}
	if c == nil || c.gen != r.Gen {
		bm, err := s.readGeneration(ctx, ns, seg, r.Gen)
		if err != nil {
			return nil, err
		}
		c = &cached{gen: r.Gen, bitmap: bm}
	} else {
		c = &cached{gen: c.gen, bitmap: c.bitmap}
	}
	c.checked = now
	s.mu.Lock()
	s.cache[key] = c
	s.mu.Unlock()
	return c.bitmap, nil
}

// Contains says whether the segment's current generation, as this process's
// reader sees it, holds id.
func (s *Store) Contains(ctx context.Context, namespace, segment string, id uint32) (bool, error) {
	if err := checkNames("contains", namespace, segment); err != nil {
		return false, err
	}
	bm, err := s.current(ctx, namespace, segment)
	if err != nil {
		return false, wrap("contains", err)
	}
	return bm != nil && bm.Contains(id), nil
}

// Count is the number of ids in the segment's current generation, read from
// its registry row (no generation is read).
func (s *Store) Count(ctx context.Context, namespace, segment string) (uint64, error) {
	if err := checkNames("count", namespace, segment); err != nil {
		return 0, err
	}
	r, _, err := s.readRow(ctx, namespace, segment)
	if err != nil {
		return 0, wrap("count", err)
	}
	if r == nil {
		return 0, nil
	}
	return r.Count, nil
}

// Exists says whether the segment has been loaded.
func (s *Store) Exists(ctx context.Context, namespace, segment string) (bool, error) {
	if err := checkNames("exists", namespace, segment); err != nil {
		return false, err
	}
	r, _, err := s.readRow(ctx, namespace, segment)
	return r != nil, wrap("exists", err)
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Code: codeOf(err), err: err}
}

// String describes the options without the bucket's contents (for logs).
func (o Options) String() string {
	return fmt.Sprintf("bitmapstore{prefix=%s readTTL=%s keep=%d}", o.Prefix, o.ReadTTL, o.Keep)
}
