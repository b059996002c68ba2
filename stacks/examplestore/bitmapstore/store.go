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
	ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, opts ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error)
}

// DefaultPrefix is where the store keeps its objects when Options.Prefix is empty.
const DefaultPrefix = "cbm/"

// DefaultConcurrency is how many segments EraseSubject works on at once.
const DefaultConcurrency = 8

// DefaultRequestsPerSegment is how many reads and deletes of one segment's
// versions EraseSubject has in flight at once.
const DefaultRequestsPerSegment = 8

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
	// RequestsPerSegment bounds the version reads and deletes one segment's
	// erasure has in flight; EraseSubject has at most Concurrency ×
	// RequestsPerSegment requests in flight. Default 8.
	RequestsPerSegment int
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

// reservedNamespaces are folder names of the layout: no namespace may shadow
// them ("segments" would put registry rows under the generation keys' grant).
var reservedNamespaces = map[string]bool{"registry": true, "segments": true}

// New returns a Store on bucket, or an *Error with code INVALID_OPTIONS.
func New(client S3, opts Options) (*Store, error) {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.RequestsPerSegment <= 0 {
		opts.RequestsPerSegment = DefaultRequestsPerSegment
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
	if !namePattern.MatchString(namespace) || reservedNamespaces[namespace] || (segment != "" && !namePattern.MatchString(segment)) {
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

// genOf parses a generation key under prefix into its number.
func genOf(prefix, key string) (uint64, bool) {
	n, ok := strings.CutSuffix(strings.TrimPrefix(key, prefix), ".crbm")
	if !ok || len(key) <= len(prefix) || !strings.HasPrefix(key, prefix) {
		return 0, false
	}
	g, err := strconv.ParseUint(n, 10, 64)
	return g, err == nil && g > 0
}

// row is a segment's registry row.
type row struct {
	Gen   uint64 `json:"gen"`   // the current generation
	Next  uint64 `json:"next"`  // every generation numbered below it is allocated: a writer takes Next
	Token string `json:"token"` // <incarnation>.<counter>.<write>: unique to every publish
	Count uint64 `json:"count"` // the current generation's id count
}

// randomHex is n random bytes in hex: incarnations and write ids.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// nextToken keeps the incarnation, advances the counter and draws a new
// write id: two writers that read the same row never publish the same token,
// so a publish whose answer was lost is recognised by reading the row back.
// A new row gets a random incarnation, so a re-created segment is told apart.
func (r *row) nextToken() (string, error) {
	inc, counter := "", uint64(0)
	if r != nil {
		if parts := strings.Split(r.Token, "."); len(parts) >= 2 {
			inc = parts[0]
			counter, _ = strconv.ParseUint(parts[1], 10, 64)
		}
	}
	if inc == "" {
		var err error
		if inc, err = randomHex(16); err != nil {
			return "", err
		}
	}
	write, err := randomHex(8)
	if err != nil {
		return "", err
	}
	return inc + "." + strconv.FormatUint(counter+1, 10) + "." + write, nil
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

// noRetry makes one attempt of a conditional write: the store resolves a
// failed attempt by reading back, never by resending blindly.
func noRetry(o *s3.Options) { o.RetryMaxAttempts = 1 }

// publishAttempts bounds how often a publish is resent after an answer that
// proved it was not applied (a refused request, throttling).
const publishAttempts = 3

// publish writes the row with a compare-and-swap on etag ("" = the row must
// not exist yet). A failed attempt is resolved by reading the row back: our
// token there means the write was applied and its answer lost (success); any
// other row means a racing writer published first (CodeConflict: our write
// can never apply, its etag is gone for good); the old row still there after
// an HTTP answer means it was not applied (sent again); after no answer at
// all (a timeout), or a failed read-back, the outcome is unknown
// (CodeAmbiguous): the caller must not delete what the row may now name.
//
// own says the row names a generation this writer wrote: that number is
// exclusive to it, so a row read back naming it proves the publish was
// applied even when a fence on top has already replaced the token.
func (s *Store) publish(ctx context.Context, ns, seg string, r row, etag string, own bool) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; attempt < publishAttempts; attempt++ {
		in := &s3.PutObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.rowKey(ns, seg)), Body: bytes.NewReader(b),
			ContentType: aws.String("application/json")}
		if etag == "" {
			in.IfNoneMatch = aws.String("*")
		} else {
			in.IfMatch = aws.String(etag)
		}
		_, err := s.s3.PutObject(ctx, in, noRetry)
		if err == nil {
			return nil
		}
		last = err
		back, backTag, rerr := s.readRow(ctx, ns, seg)
		switch {
		case rerr != nil:
			return &Error{Op: "publish", Code: CodeAmbiguous, err: err}
		case back != nil && (back.Token == r.Token || own && back.Gen == r.Gen):
			return nil // applied; the answer was lost (and a fence may have followed)
		case back != nil && backTag != etag, back == nil && etag != "":
			return &Error{Op: "publish", Code: CodeConflict, err: err}
		case statusOf(err) == 0:
			return &Error{Op: "publish", Code: CodeAmbiguous, err: err} // no answer: it may still land
		}
		if ctx.Err() != nil {
			break
		}
	}
	return &Error{Op: "publish", Code: codeOf(last), err: last}
}

// written is a generation object this process wrote: its version, so that
// it deletes exactly what it wrote.
type written struct {
	gen     uint64
	version string
}

// writeGeneration writes a generation once (If-None-Match: *), tagged with a
// random write id. A failed attempt is resolved by reading the key back: our
// write id there means it was applied (success); another object means the
// number was taken by a racing writer (CodeConflict); nothing there after an
// HTTP answer means it was not applied (sent again).
func (s *Store) writeGeneration(ctx context.Context, ns, seg string, gen uint64, bm *roaring.Bitmap) (written, error) {
	b, err := bm.ToBytes()
	if err != nil {
		return written{}, err
	}
	wid, err := randomHex(16)
	if err != nil {
		return written{}, err
	}
	key := s.genKey(ns, seg, gen)
	var last error
	for attempt := 0; attempt < publishAttempts; attempt++ {
		out, err := s.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(key),
			Body: bytes.NewReader(b), IfNoneMatch: aws.String("*"), ContentType: aws.String("application/octet-stream"),
			Metadata: map[string]string{writeIDKey: wid}}, noRetry)
		if err == nil {
			return written{gen: gen, version: aws.ToString(out.VersionId)}, nil
		}
		last = err
		got, gerr := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(key)})
		switch {
		case gerr == nil:
			got.Body.Close()
			if got.Metadata[writeIDKey] == wid {
				return written{gen: gen, version: aws.ToString(got.VersionId)}, nil // applied; the answer was lost
			}
			return written{}, &Error{Op: "write generation", Code: CodeConflict, err: err}
		case !isNotFound(gerr):
			return written{}, &Error{Op: "write generation", Code: CodeAmbiguous, err: err}
		case statusOf(err) == 0:
			return written{}, &Error{Op: "write generation", Code: CodeAmbiguous, err: err}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return written{}, &Error{Op: "write generation", Code: codeOf(last), err: last}
}

// writeIDKey is the user metadata that carries a generation's write id: 128
// random bits, nothing from the bitmap.
const writeIDKey = "cbwid"

// readGeneration reads and decodes one generation version ("" = the current
// one); a missing one is CodeGenerationMissing.
func (s *Store) readGeneration(ctx context.Context, ns, seg string, gen uint64, version string) (*roaring.Bitmap, string, error) {
	in := &s3.GetObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.genKey(ns, seg, gen))}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	out, err := s.s3.GetObject(ctx, in)
	if isNotFound(err) {
		return nil, "", &Error{Op: "read generation", Code: CodeGenerationMissing}
	}
	if err != nil {
		return nil, "", err
	}
	defer out.Body.Close()
	bm := roaring.New()
	if _, err := bm.ReadFrom(out.Body); err != nil {
		return nil, "", &Error{Op: "read generation", Code: CodeCorrupt}
	}
	return bm, aws.ToString(out.VersionId), nil
}

// cleanupAttempts bounds the deletes of a generation this process wrote and
// could not publish: it is unreferenced for good, so trying again is safe.
const cleanupAttempts = 4

// deleteVersion deletes one version of a generation key for good ("" = the
// current version, leaving a delete marker in a versioned bucket). Deleting
// what is already gone succeeds.
func (s *Store) deleteVersion(ctx context.Context, ns, seg string, gen uint64, version string, attempts int) error {
	in := &s3.DeleteObjectInput{Bucket: &s.opts.Bucket, Key: aws.String(s.genKey(ns, seg, gen))}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	var err error
	for i := 0; i < max(attempts, 1); i++ {
		if _, err = s.s3.DeleteObject(ctx, in); err == nil || isNotFound(err) {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return err
}

// version is one object version of a generation key.
type version struct {
	gen    uint64
	id     string
	latest bool
	marker bool // a delete marker: nothing to read or erase
}

// listVersions lists every version of every generation key of the segment.
func (s *Store) listVersions(ctx context.Context, ns, seg string) ([]version, error) {
	prefix := s.genPrefix(ns, seg)
	var out []version
	err := eachVersion(ctx, s.s3, s.opts.Bucket, prefix, func(v objectVersion) {
		if g, ok := genOf(prefix, v.key); ok {
			out = append(out, version{gen: g, id: v.id, latest: v.latest, marker: v.marker})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].gen != out[j].gen {
			return out[i].gen < out[j].gen
		}
		return out[i].id < out[j].id
	})
	return out, nil
}

// versionLister lists object versions: the store's S3 and Audit's reader.
type versionLister interface {
	ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, opts ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error)
}

// objectVersion is one version (or delete marker) of a key.
type objectVersion struct {
	key, id  string
	latest   bool
	marker   bool
	modified time.Time
}

// eachVersion calls fn for every version and delete marker under prefix,
// page after page.
func eachVersion(ctx context.Context, c versionLister, bucket, prefix string, fn func(objectVersion)) error {
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)}
	for {
		page, err := c.ListObjectVersions(ctx, in)
		if err != nil {
			return err
		}
		for _, v := range page.Versions {
			fn(objectVersion{key: aws.ToString(v.Key), id: aws.ToString(v.VersionId), latest: aws.ToBool(v.IsLatest), modified: aws.ToTime(v.LastModified)})
		}
		for _, m := range page.DeleteMarkers {
			fn(objectVersion{key: aws.ToString(m.Key), id: aws.ToString(m.VersionId), latest: aws.ToBool(m.IsLatest), marker: true, modified: aws.ToTime(m.LastModified)})
		}
		if !aws.ToBool(page.IsTruncated) {
			return nil
		}
		// A truncated page must name where the next one starts, past this
		// one's: otherwise asking again would only repeat it.
		next, nextID := aws.ToString(page.NextKeyMarker), aws.ToString(page.NextVersionIdMarker)
		if next == "" || next == aws.ToString(in.KeyMarker) && nextID == aws.ToString(in.VersionIdMarker) {
			return &Error{Op: "list versions", Code: CodeListNoProgress}
		}
		in.KeyMarker, in.VersionIdMarker = page.NextKeyMarker, page.NextVersionIdMarker
	}
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
		if !aws.ToBool(out.IsTruncated) {
			return nil
		}
		if aws.ToString(out.NextContinuationToken) == "" || aws.ToString(out.NextContinuationToken) == aws.ToString(in.ContinuationToken) {
			return &Error{Op: "list", Code: CodeListNoProgress} // a truncated page with no way past it
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
// with CodeConflict, and it deletes the generation it wrote. It then keeps
// Keep older generations and deletes the rest (their noncurrent versions stay
// until the bucket's noncurrent-version expiry, as history for a restore).
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
	gen := uint64(1)
	if r != nil {
		gen = r.Next
	}
	token, err := r.nextToken()
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	next, _, err := s.writeAndPublish(ctx, namespace, segment, row{Gen: gen, Next: gen + 1, Token: token, Count: bm.GetCardinality()}, etag, bm)
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	gen = next.Gen
	// Collection: every generation below the one published is unreferenced
	// for good (a writer that read an older row is refused; one that reads
	// this row takes a higher number). Keep the Keep newest of them.
	vs, err := s.listVersions(ctx, namespace, segment)
	if err != nil {
		return LoadResult{}, wrap("load", err)
	}
	var older []uint64
	for _, v := range vs {
		if v.latest && !v.marker && v.gen < gen {
			older = append(older, v.gen)
		}
	}
	if len(older) > s.opts.Keep {
		for _, g := range older[:len(older)-s.opts.Keep] {
			if err := s.deleteVersion(ctx, namespace, segment, g, "", 1); err != nil {
				return LoadResult{}, wrap("load", err)
			}
		}
	}
	return LoadResult{Generation: gen, Count: bm.GetCardinality()}, nil
}

// maxTakenNumbers bounds how many taken generation numbers a writer steps
// over before it gives up (CodeConflict).
const maxTakenNumbers = 8

// writeAndPublish writes bm as generation next.Gen and publishes next over
// the row with etag. A number already taken (by a racing writer that read the
// same row, or by the orphan of one that never published) is stepped over:
// the writer takes the next one, and its publish, fenced on etag, decides
// between them; the row's next number then moves past every number stepped
// over, so nothing can ever publish those. When a racing writer's publish
// refused ours, the generation is unreferenced for good and deleted (the
// exact version written); otherwise it is left (see below), never reused.
func (s *Store) writeAndPublish(ctx context.Context, ns, seg string, next row, etag string, bm *roaring.Bitmap) (row, written, error) {
	var (
		w   written
		err error
	)
	for i := 0; ; i++ {
		w, err = s.writeGeneration(ctx, ns, seg, next.Gen, bm)
		if CodeOf(err) != CodeConflict || i+1 >= maxTakenNumbers {
			break
		}
		next.Gen++
		next.Next = max(next.Next, next.Gen+1)
	}
	if err != nil {
		return next, written{}, err
	}
	if err := s.publish(ctx, ns, seg, next, etag, true); err != nil {
		if CodeOf(err) == CodeConflict {
			// A racing writer published: the row's next number is above ours
			// now, so ours can never be published nor taken again.
			_ = s.deleteVersion(context.WithoutCancel(ctx), ns, seg, w.gen, w.version, cleanupAttempts)
		}
		// Otherwise the row may still offer our number (a publish refused
		// outright) or name it (outcome unknown): leave the object. The next
		// writer steps over it, and its number falls below the row's next.
		return next, written{}, err
	}
	s.invalidate(ns, seg)
	return next, w, nil
}

func (s *Store) invalidate(ns, seg string) {
	s.mu.Lock()
	delete(s.cache, ns+"/"+seg)
	s.mu.Unlock()
}

// current returns the segment's current bitmap through the reader cache: the
// pointer is read again once ReadTTL has passed since it was last read.
// A segment with no row is (nil, nil). A generation gone between reading the
// row and reading it is a racing publish and collection: the row is read
// again, and only a row that still names a missing generation is a fault.
func (s *Store) current(ctx context.Context, ns, seg string) (*roaring.Bitmap, error) {
	key := ns + "/" + seg
	now := s.opts.Now()
	s.mu.Lock()
	c := s.cache[key]
	s.mu.Unlock()
	if c != nil && now.Sub(c.checked) < s.opts.ReadTTL {
		return c.bitmap, nil
	}
	for attempt := 0; ; attempt++ {
		r, _, err := s.readRow(ctx, ns, seg)
		if err != nil {
			return nil, err
		}
		if r == nil {
			s.invalidate(ns, seg)
			return nil, nil
		}
		if c != nil && c.gen == r.Gen {
			c = &cached{gen: c.gen, bitmap: c.bitmap}
		} else {
			bm, _, err := s.readGeneration(ctx, ns, seg, r.Gen, "")
			if CodeOf(err) == CodeGenerationMissing && attempt < 2 {
				continue
			}
			if err != nil {
				return nil, err
			}
			c = &cached{gen: r.Gen, bitmap: bm}
		}
		c.checked = now
		s.mu.Lock()
		s.cache[key] = c
		s.mu.Unlock()
		return c.bitmap, nil
	}
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
