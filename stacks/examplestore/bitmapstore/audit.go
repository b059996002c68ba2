package bitmapstore

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// VersionReader is what Audit calls: listing every object version and
// reading one.
type VersionReader interface {
	ListObjectVersions(ctx context.Context, in *s3.ListObjectVersionsInput, opts ...func(*s3.Options)) (*s3.ListObjectVersionsOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

// AuditReport is what every object version under a store's prefix says about
// one id: the proof an erasure left no current generation holding it, and
// what noncurrent versions still do until the bucket's noncurrent-version
// expiry removes them.
type AuditReport struct {
	CurrentGenerations    int      `json:"currentGenerations"`
	CurrentHolders        []string `json:"currentHolders"` // "<namespace>/<segment>.<gen>" of current generations holding the id
	NoncurrentGenerations int      `json:"noncurrentGenerations"`
	NoncurrentHolders     int      `json:"noncurrentHolders"` // noncurrent generation versions still holding the id
	DeleteMarkers         int      `json:"deleteMarkers"`
	OtherVersions         int      `json:"otherVersions"` // registry rows and other objects, every version
	// OldestNoncurrent is when the oldest noncurrent generation version
	// became noncurrent (approximated by its successor's LastModified);
	// zero if there is none.
	OldestNoncurrent time.Time `json:"oldestNoncurrent"`
}

// Audit lists every object version under prefix in bucket and reads every
// generation version, current and noncurrent, for id. It is an operator's
// and a test's tool: a store never calls it.
func Audit(ctx context.Context, c VersionReader, bucket, prefix string, id uint32) (AuditReport, error) {
	rep := AuditReport{CurrentHolders: []string{}}
	// successor: when each key's newest version was written, to date when the
	// version below it became noncurrent.
	type version struct {
		key, id  string
		latest   bool
		modified time.Time
	}
	var gens []version
	err := eachVersion(ctx, c, bucket, prefix, func(v objectVersion) {
		isGen := strings.Contains(v.key, "/segments/") && strings.HasSuffix(v.key, ".crbm")
		switch {
		case v.marker:
			rep.DeleteMarkers++
			if strings.Contains(v.key, "/segments/") {
				gens = append(gens, version{key: v.key, latest: v.latest, modified: v.modified})
			}
		case isGen:
			gens = append(gens, version{key: v.key, id: v.id, latest: v.latest, modified: v.modified})
		default:
			rep.OtherVersions++
		}
	})
	if err != nil {
		return rep, wrap("audit", err)
	}
	sort.Slice(gens, func(i, j int) bool {
		if gens[i].key != gens[j].key {
			return gens[i].key < gens[j].key
		}
		return gens[i].modified.After(gens[j].modified)
	})
	for i, v := range gens {
		if v.id == "" {
			continue // a delete marker
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(v.key), VersionId: aws.String(v.id)})
		if err != nil {
			return rep, wrap("audit", err)
		}
		bm := roaring.New()
		_, err = bm.ReadFrom(out.Body)
		out.Body.Close()
		if err != nil {
			return rep, &Error{Op: "audit", Code: CodeCorrupt}
		}
		holds := bm.Contains(id)
		if v.latest {
			rep.CurrentGenerations++
			if holds {
				name := strings.TrimSuffix(strings.TrimPrefix(v.key, prefix), ".crbm")
				rep.CurrentHolders = append(rep.CurrentHolders, strings.Replace(name, "/segments/", "/", 1))
			}
			continue
		}
		rep.NoncurrentGenerations++
		if holds {
			rep.NoncurrentHolders++
		}
		if i > 0 && gens[i-1].key == v.key {
			if since := gens[i-1].modified; rep.OldestNoncurrent.IsZero() || since.Before(rep.OldestNoncurrent) {
				rep.OldestNoncurrent = since
			}
		}
	}
	sort.Strings(rep.CurrentHolders)
	return rep, nil
}
