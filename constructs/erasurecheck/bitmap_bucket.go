package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// BucketShape is what a bitmap store's bucket will deploy, read from its
// CloudFormation properties (AWS::S3::Bucket): the lifecycle rules, object
// lock and versioning. Keys are matched without regard to the case of their
// first letter, so both CloudFormation's casing and CDK's resolved casing read.
type BucketShape struct {
	Rules             []map[string]any
	ObjectLockEnabled bool
	Versioned         bool
}

// BucketShapeOf reads the shape from an AWS::S3::Bucket's properties.
func BucketShapeOf(props map[string]any) BucketShape {
	lifecycle, versioning, objectLock := props["LifecycleConfiguration"], props["VersioningConfiguration"], props["ObjectLockEnabled"]
	var s BucketShape
	if lc, ok := lifecycle.(map[string]any); ok {
		if rules, ok := field(lc, "Rules").([]any); ok {
			for _, r := range rules {
				if m, ok := r.(map[string]any); ok {
					s.Rules = append(s.Rules, m)
				}
			}
		}
	}
	if v, ok := versioning.(map[string]any); ok {
		s.Versioned = field(v, "Status") == "Enabled"
	}
	s.ObjectLockEnabled = objectLock == true || objectLock == "true"
	return s
}

// field reads key from m, with the first letter in either case.
func field(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	return m[strings.ToLower(key[:1])+key[1:]]
}

func intField(m map[string]any, key string) (int, bool) {
	if n := cfnmodel.Number(field(m, key), -1); n >= 0 {
		return n, true
	}
	return 0, false
}

// rulePrefix is the key prefix a rule applies to: Prefix, Filter.Prefix or
// Filter.And.Prefix ("" = every object).
func rulePrefix(r map[string]any) string {
	if p, ok := field(r, "Prefix").(string); ok {
		return p
	}
	if f, ok := field(r, "Filter").(map[string]any); ok {
		if p, ok := field(f, "Prefix").(string); ok {
			return p
		}
		if and, ok := field(f, "And").(map[string]any); ok {
			if p, ok := field(and, "Prefix").(string); ok {
				return p
			}
		}
	}
	return ""
}

// narrowed says whether a rule has a tag or size filter: it then applies to
// only some objects under its prefix, so it cannot be relied on to cover all.
func narrowed(r map[string]any) bool {
	if field(r, "TagFilters") != nil || field(r, "ObjectSizeGreaterThan") != nil || field(r, "ObjectSizeLessThan") != nil {
		return true
	}
	for _, f := range []any{field(r, "Filter")} {
		fm, ok := f.(map[string]any)
		if !ok {
			continue
		}
		if field(fm, "Tag") != nil || field(fm, "ObjectSizeGreaterThan") != nil || field(fm, "ObjectSizeLessThan") != nil {
			return true
		}
		if and, ok := field(fm, "And").(map[string]any); ok {
			if field(and, "Tags") != nil || field(and, "ObjectSizeGreaterThan") != nil || field(and, "ObjectSizeLessThan") != nil {
				return true
			}
		}
	}
	return false
}

// covers says whether a rule applies to every object under prefix: enabled,
// its prefix a prefix of it, no tag or size filter.
func covers(r map[string]any, prefix string) bool {
	return enabled(r) && strings.HasPrefix(prefix, rulePrefix(r)) && !narrowed(r)
}

func enabled(r map[string]any) bool {
	st, ok := field(r, "Status").(string)
	return !ok || st == "Enabled"
}

// archiveClasses are storage classes a GET cannot read without a restore: a
// store whose current generations move there cannot read, erase or verify them.
var archiveClasses = map[string]bool{"GLACIER": true, "DEEP_ARCHIVE": true}

// CheckBitmapBucket lists every way the bucket breaks the bitmap store's
// erasure guarantee, for the library's objects under prefix. A rule reaches
// the library when its prefix and the library's overlap (an empty prefix
// reaches everything); a tag or size filter never makes a rule safe, since
// the check does not rely on what a writer tags or how large an object is.
func CheckBitmapBucket(s BucketShape, prefix string, c contract.Constants, path string) timing.Problems {
	var l timing.Problems
	capDays := c.NoncurrentVersionExpiryCapDays
	if s.ObjectLockEnabled {
		l.Add(path+".objectLockEnabled", timing.BreaksErasure, "object lock keeps WORM copies that no erasure can delete; turn it off (crypto-shred is the only erasure under WORM)")
	}
	if !s.Versioned {
		l.Add(path+".versioned", timing.Invalid, "versioning is off: the registry has no history to restore from; turn it on and bound noncurrent versions with a noncurrent-version expiry")
	}
	noncurrentOK, abortOK := false, false
	var aboveCap timing.Problems // reported only if no rule within the cap covers the prefix (S3 applies the shortest)
	for i, r := range s.Rules {
		rp := fmt.Sprintf("%s.lifecycleRules[%d]", path, i)
		if id, ok := field(r, "Id").(string); ok && id != "" {
			rp = fmt.Sprintf("%s.lifecycleRules[%s]", path, id)
		}
		p := rulePrefix(r)
		reaches := enabled(r) && (strings.HasPrefix(prefix, p) || strings.HasPrefix(p, prefix))
		if reaches {
			if days, ok := intField(r, "ExpirationInDays"); ok {
				l.Add(rp+".expiration", timing.BreaksErasure, "expires current versions after %d days under %q, which reaches the registry rows, tombstones, due-index pointers and generations under %q: a rule cannot tell them apart; remove it (retire segments with dropSegment)", days, p, prefix)
			}
			if field(r, "ExpirationDate") != nil {
				l.Add(rp+".expirationDate", timing.BreaksErasure, "expires current versions under %q, which reaches the registry rows, tombstones, due-index pointers and generations under %q; remove it", p, prefix)
			}
			if ts, ok := field(r, "Transitions").([]any); ok {
				for _, t := range ts {
					tm, _ := t.(map[string]any)
					if sc, _ := field(tm, "StorageClass").(string); archiveClasses[sc] {
						l.Add(rp+".transitions", timing.BreaksErasure, "moves current versions under %q to %s, where the store can no longer read, erase or verify them; transition noncurrent versions only", p, sc)
					}
				}
			}
			if nve, ok := field(r, "NoncurrentVersionExpiration").(map[string]any); ok {
				if n, ok := intField(nve, "NewerNoncurrentVersions"); ok && n > 0 {
					l.Add(rp+".noncurrentVersionsToRetain", timing.BreaksErasure, "keeps %d noncurrent versions past the expiry, so an erased id can linger without bound; remove it", n)
				}
			}
		}
		if !covers(r, prefix) {
			continue
		}
		days, ok := intField(r, "NoncurrentVersionExpirationInDays")
		if nve, isMap := field(r, "NoncurrentVersionExpiration").(map[string]any); isMap {
			days, ok = intField(nve, "NoncurrentDays")
		}
		if ok {
			if days > capDays {
				aboveCap.Add(rp+".noncurrentVersionExpiration", timing.AboveCap, "%d days is above the cap of %d (noncurrentVersionExpiryCapDays, days)", days, capDays)
			} else {
				noncurrentOK = true
			}
		}
		if amu, ok := field(r, "AbortIncompleteMultipartUpload").(map[string]any); ok {
			if _, ok := intField(amu, "DaysAfterInitiation"); ok {
				abortOK = true
			}
		}
	}
	switch {
	case !s.Versioned || noncurrentOK:
	case len(aboveCap) > 0:
		l = append(l, aboveCap...)
	default:
		l.Add(path+".noncurrentVersionExpiration", timing.Missing, "versioning without a noncurrent-version expiry of at most %d days covering %q: erased ids would linger in noncurrent versions without bound", capDays, prefix)
	}
	if !abortOK {
		l.Add(path+".abortIncompleteMultipartUpload", timing.Missing, "no rule covering %q aborts incomplete multipart uploads: a failed large write leaves parts no listing shows", prefix)
	}
	return l
}
