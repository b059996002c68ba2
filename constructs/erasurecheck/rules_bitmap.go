package erasurecheck

import (
	"regexp"

	"github.com/linn-cloud/erasure-channel/constructs/bucketrule"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The bitmap bucket family: the S3 bucket of a bitmap store
// (BitmapStoreBucket.AttachTo), by CheckBitmapBucket (the rule
// BitmapStoreBucket applies to its props) and by what else the app does to
// the bucket: copies, archive tiers, backups, keys.
var (
	ruleBucketObjectLock = declare(Rule{ID: bucketrule.RuleObjectLockOff, Name: "BucketObjectLockOff", Type: problem.BreaksErasure, Source: FromSeed, Reference: "docs/bitmap-store.md",
		Title: "The bitmap bucket has no object lock",
		Why:   "Object lock keeps WORM copies that no erasure can delete.",
		Fix:   "Turn object lock off (crypto-shred is the only erasure under WORM)."})
	ruleBucketVersioned = declare(Rule{ID: bucketrule.RuleVersioned, Name: "BucketVersioned", Type: problem.Invalid, Source: FromSeed, Reference: "docs/bitmap-store.md",
		Title: "The bitmap bucket is versioned",
		Why:   "The registry restores from its history: without versions it has none.",
		Fix:   "Enable versioning and bound noncurrent versions with a noncurrent-version expiry."})
	ruleBucketLifecycle = declare(Rule{ID: bucketrule.RuleLifecycleSparesLibrary, Name: "BucketLifecycleSparesLibrary", Type: problem.BreaksErasure, Source: FromSeed, Reference: "docs/bitmap-store.md",
		Title: "No lifecycle rule expires, moves or keeps the library's current objects",
		Why:   "A rule cannot tell registry rows, tombstones, due-index pointers and generations apart: expiring or archiving them loses data or erasures; keeping noncurrent versions lets an erased id linger.",
		Fix:   "Remove the rule; retire segments with dropSegment; transition noncurrent versions only."})
	ruleBucketNoncurrentExpiry = declare(Rule{ID: bucketrule.RuleNoncurrentExpiry, Name: "BucketNoncurrentExpiry", Type: problem.AboveCap, Source: FromSeed, Reference: "noncurrentVersionExpiryCapDays",
		Title: "Noncurrent versions expire within {noncurrentVersionExpiryCapDays} days",
		Why:   "An erased id lingers in noncurrent versions until they expire: without a bound, forever.",
		Fix:   "Add a noncurrent-version expiry of at most {noncurrentVersionExpiryCapDays} days covering the library's prefix."})
	ruleBucketAbortMultipart = declare(Rule{ID: bucketrule.RuleAbortsMultipart, Name: "BucketAbortsMultipart", Type: problem.Missing, Source: FromSeed, Reference: "docs/bitmap-store.md",
		Title: "A lifecycle rule aborts incomplete multipart uploads",
		Why:   "A failed large write leaves parts no listing shows, holding data no erasure reaches.",
		Fix:   "Add AbortIncompleteMultipartUpload to a rule covering the library's prefix."})
	ruleBucketReadTTL = declare(Rule{ID: bucketrule.RuleReadTTL, Name: "BitmapReadTTL", Type: problem.AboveCap, Source: FromSeed, Reference: "passTwoDelayCapSeconds (X)",
		Title: "The bitmap read cache's TTL is more than 0 and at most the pass-two delay",
		Why:   "Pass two must run after every process stopped serving the id from its cache.",
		Fix:   "Set ERASURE_BITMAP_READ_TTL_MS between 1 and the pass-two delay in milliseconds."})
)

// bucketRules are CheckBitmapBucket's rules by the field its problem names.
var bucketRules = map[string]*Rule{"objectLockEnabled": ruleBucketObjectLock, "versioned": ruleBucketVersioned,
	"expiration": ruleBucketLifecycle, "expirationDate": ruleBucketLifecycle, "transitions": ruleBucketLifecycle, "noncurrentVersionsToRetain": ruleBucketLifecycle,
	"noncurrentVersionExpiration": ruleBucketNoncurrentExpiry, "abortIncompleteMultipartUpload": ruleBucketAbortMultipart}

// lifecycleIndex finds a lifecycle rule's position in a problem's path.
var lifecycleIndex = regexp.MustCompile(`\.lifecycleRules\[(\d+)\]`)

// bitmapFamily judges a bitmap store's bucket.
var bitmapFamily = storeFamily{name: "bitmap bucket", rules: []*Rule{ruleBucketObjectLock, ruleBucketVersioned, ruleBucketLifecycle, ruleBucketNoncurrentExpiry,
	ruleBucketAbortMultipart, ruleBucketReadTTL, ruleBucketReplication, ruleBucketArchiveTier, ruleBackupOutsideApp, ruleBackupDeletes, ruleBackupWithinBound}, check: func(a *assembly, sc *storeCheck) {
	s, c := sc.store, sc.c
	b := s.Bitmap
	if b == nil {
		return
	}
	bp := s.Path.Child("bitmapBucket")
	bf := findings{t: b.t}
	for _, p := range CheckBitmapBucket(BucketShapeOf(b.Properties), b.Prefix, c, bp) {
		field := p.Path.Field()
		var prop []string
		switch field {
		case "objectLockEnabled":
			prop = props("ObjectLockEnabled")
		case "versioned":
			prop = props("VersioningConfiguration")
		default:
			prop = props("LifecycleConfiguration", "Rules")
			if m := lifecycleIndex.FindStringSubmatch(p.Path.String()); m != nil {
				prop = append(prop, m[1])
			}
		}
		r := bucketRules[field]
		if r == nil {
			r = ruleBucketLifecycle
		}
		bf.addProblem(r, b.BucketID, prop, p)
	}
	if b.ReadTTLMillis < 1 || b.ReadTTLMillis > s.Spec.Settings.PassTwoDelaySeconds*1000 {
		bf.add(ruleBucketReadTTL, b.BucketID, bp.Child("readTtl"), nil, "%d ms must be more than 0 and at most the pass-two delay of %d s: pass two must run after every process stopped serving the id", b.ReadTTLMillis, s.Spec.Settings.PassTwoDelaySeconds)
	}
	a.checkBucketCopies(&bf, s, c)
	sc.f.out = append(sc.f.out, bf.out...)
}}
