// Package bucketrule is the bitmap store's bucket rule: what an S3 bucket's
// lifecycle, versioning and object lock must be for the store's erasures to
// hold. BitmapStoreBucket refuses its props with it at construction, and the
// app-wide check (erasurecheck) applies it to the synthesized bucket: one
// rule, in a package below both, so that the constructs do not import their
// own checker.
package bucketrule

import (
	"maps"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// Shape is what a bitmap store's bucket will deploy, read from its
// CloudFormation properties (AWS::S3::Bucket): the lifecycle rules, object
// lock and versioning. Keys are matched without regard to the case of their
// first letter, so both CloudFormation's casing and CDK's resolved casing read.
type Shape struct {
	Rules             []map[string]any
	ObjectLockEnabled bool
	Versioned         bool
}

// ShapeOf reads the shape from an AWS::S3::Bucket's properties.
func ShapeOf(props map[string]any) Shape {
	lifecycle, versioning, objectLock := props["LifecycleConfiguration"], props["VersioningConfiguration"], props["ObjectLockEnabled"]
	var s Shape
	if lc, ok := lifecycle.(map[string]any); ok {
		if rules, ok := Field(lc, "Rules").([]any); ok {
			for _, r := range rules {
				if m, ok := r.(map[string]any); ok {
					s.Rules = append(s.Rules, m)
				}
			}
		}
	}
	if v, ok := versioning.(map[string]any); ok {
		s.Versioned = Field(v, "Status") == "Enabled"
	}
	s.ObjectLockEnabled = objectLock == true || objectLock == "true"
	return s
}

// Field reads key from m, with the first letter in either case.
func Field(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	return m[strings.ToLower(key[:1])+key[1:]]
}

func intField(m map[string]any, key string) (int, bool) {
	if n := cfnmodel.Number(Field(m, key), -1); n >= 0 {
		return n, true
	}
	return 0, false
}

// RulePrefix is the key prefix a rule applies to: Prefix, Filter.Prefix or
// Filter.And.Prefix ("" = every object).
func RulePrefix(r map[string]any) string {
	if p, ok := Field(r, "Prefix").(string); ok {
		return p
	}
	if f, ok := Field(r, "Filter").(map[string]any); ok {
		if p, ok := Field(f, "Prefix").(string); ok {
			return p
		}
		if and, ok := Field(f, "And").(map[string]any); ok {
			if p, ok := Field(and, "Prefix").(string); ok {
				return p
			}
		}
	}
	return ""
}

// narrowed says whether a rule has a tag or size filter: it then applies to
// only some objects under its prefix, so it cannot be relied on to cover all.
func narrowed(r map[string]any) bool {
	if Field(r, "TagFilters") != nil || Field(r, "ObjectSizeGreaterThan") != nil || Field(r, "ObjectSizeLessThan") != nil {
		return true
	}
	for _, f := range []any{Field(r, "Filter")} {
		fm, ok := f.(map[string]any)
		if !ok {
			continue
		}
		if Field(fm, "Tag") != nil || Field(fm, "ObjectSizeGreaterThan") != nil || Field(fm, "ObjectSizeLessThan") != nil {
			return true
		}
		if and, ok := Field(fm, "And").(map[string]any); ok {
			if Field(and, "Tags") != nil || Field(and, "ObjectSizeGreaterThan") != nil || Field(and, "ObjectSizeLessThan") != nil {
				return true
			}
		}
	}
	return false
}

// Covers says whether a rule applies to every object under prefix: enabled,
// its prefix a prefix of it, no tag or size filter.
func Covers(r map[string]any, prefix string) bool {
	return Enabled(r) && strings.HasPrefix(prefix, RulePrefix(r)) && !narrowed(r)
}

// Enabled says whether a rule or configuration is on (no Status: on).
func Enabled(r map[string]any) bool {
	st, ok := Field(r, "Status").(string)
	return !ok || st == "Enabled"
}

// archiveClasses are storage classes a GET cannot read without a restore: a
// store whose current generations move there cannot read, erase or verify them.
var archiveClasses = map[string]bool{"GLACIER": true, "DEEP_ARCHIVE": true}

// The bucket rule's parts, by the ids the app-wide check reports them under
// (docs/check-rules.md; constructs/erasurecheck declares each once, with
// these ids): BitmapStoreBucket's refusal and the check's finding of one
// bucket name the same rule.
const (
	RuleObjectLockOff          = "EC501"
	RuleVersioned              = "EC502"
	RuleLifecycleSparesLibrary = "EC503"
	RuleNoncurrentExpiry       = "EC504"
	RuleAbortsMultipart        = "EC505"
	RuleReadTTL                = "EC506"
)

// fieldRules are the rules of each setting Check judges, by its field.
var fieldRules = map[string]string{"objectLockEnabled": RuleObjectLockOff, "versioned": RuleVersioned,
	"expiration": RuleLifecycleSparesLibrary, "expirationDate": RuleLifecycleSparesLibrary, "transitions": RuleLifecycleSparesLibrary,
	"noncurrentVersionsToRetain": RuleLifecycleSparesLibrary, "noncurrentVersionExpiration": RuleNoncurrentExpiry,
	"abortIncompleteMultipartUpload": RuleAbortsMultipart, "readTtl": RuleReadTTL}

// FieldRules are the bucket rule's parts by the field a problem names (a copy).
func FieldRules() map[string]string { return maps.Clone(fieldRules) }

// RuleOf is the rule a problem of a bitmap store's bucket breaks, by the
// field it names ("" for a field no rule judges).
func RuleOf(p problem.Problem) string { return fieldRules[p.Path.Field()] }

// Check lists every way the bucket breaks the bitmap store's
// erasure guarantee, for the library's objects under prefix. A rule reaches
// the library when its prefix and the library's overlap (an empty prefix
// reaches everything); a tag or size filter never makes a rule safe, since
// the check does not rely on what a writer tags or how large an object is.
func Check(s Shape, prefix string, c contract.Constants, path problem.Path) problem.List {
	var l problem.List
	capDays := c.NoncurrentVersionExpiryCapDays
	if s.ObjectLockEnabled {
		l.Add(path.Child("objectLockEnabled"), problem.BreaksErasure, "object lock keeps WORM copies that no erasure can delete; turn it off (crypto-shred is the only erasure under WORM)")
	}
	if !s.Versioned {
		l.Add(path.Child("versioned"), problem.Invalid, "versioning is off: the registry has no history to restore from; turn it on and bound noncurrent versions with a noncurrent-version expiry")
	}
	noncurrentOK, abortOK := false, false
	var aboveCap problem.List // reported only if no rule within the cap covers the prefix (S3 applies the shortest)
	for i, r := range s.Rules {
		rp := path.Child("lifecycleRules").Index(i)
		if id, ok := Field(r, "Id").(string); ok && id != "" {
			rp = path.Child("lifecycleRules").Key(id)
		}
		p := RulePrefix(r)
		reaches := Enabled(r) && (strings.HasPrefix(prefix, p) || strings.HasPrefix(p, prefix))
		if reaches {
			if days, ok := intField(r, "ExpirationInDays"); ok {
				l.Add(rp.Child("expiration"), problem.BreaksErasure, "expires current versions after %d days under %q, which reaches the registry rows, tombstones, due-index pointers and generations under %q: a rule cannot tell them apart; remove it (retire segments with dropSegment)", days, p, prefix)
			}
			if Field(r, "ExpirationDate") != nil {
				l.Add(rp.Child("expirationDate"), problem.BreaksErasure, "expires current versions under %q, which reaches the registry rows, tombstones, due-index pointers and generations under %q; remove it", p, prefix)
			}
			if ts, ok := Field(r, "Transitions").([]any); ok {
				for _, t := range ts {
					tm, _ := t.(map[string]any)
					if sc, _ := Field(tm, "StorageClass").(string); archiveClasses[sc] {
						l.Add(rp.Child("transitions"), problem.BreaksErasure, "moves current versions under %q to %s, where the store can no longer read, erase or verify them; transition noncurrent versions only", p, sc)
					}
				}
			}
			if nve, ok := Field(r, "NoncurrentVersionExpiration").(map[string]any); ok {
				if n, ok := intField(nve, "NewerNoncurrentVersions"); ok && n > 0 {
					l.Add(rp.Child("noncurrentVersionsToRetain"), problem.BreaksErasure, "keeps %d noncurrent versions past the expiry, so an erased id can linger without bound; remove it", n)
				}
			}
		}
		if !Covers(r, prefix) {
			continue
		}
		days, ok := intField(r, "NoncurrentVersionExpirationInDays")
		if nve, isMap := Field(r, "NoncurrentVersionExpiration").(map[string]any); isMap {
			days, ok = intField(nve, "NoncurrentDays")
		}
		if ok {
			if days > capDays {
				aboveCap.Add(rp.Child("noncurrentVersionExpiration"), problem.AboveCap, "%d days is above the cap of %d (noncurrentVersionExpiryCapDays, days)", days, capDays)
			} else {
				noncurrentOK = true
			}
		}
		if amu, ok := Field(r, "AbortIncompleteMultipartUpload").(map[string]any); ok {
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
		l.Add(path.Child("noncurrentVersionExpiration"), problem.Missing, "versioning without a noncurrent-version expiry of at most %d days covering %q: erased ids would linger in noncurrent versions without bound", capDays, prefix)
	}
	if !abortOK {
		l.Add(path.Child("abortIncompleteMultipartUpload"), problem.Missing, "no rule covering %q aborts incomplete multipart uploads: a failed large write leaves parts no listing shows", prefix)
	}
	l.Name(func(p problem.Problem) (string, string) { return RuleOf(p), "" })
	return l
}
