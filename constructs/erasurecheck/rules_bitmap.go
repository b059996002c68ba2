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
	ruleBucketReplication = declare(Rule{ID: "EC511", Name: "BucketNotReplicated", Type: problem.BreaksErasure, Source: FromSeed, Reference: "docs/bitmap-store.md",
		Title: "The library's prefix is not replicated",
		Why:   "The replica keeps every generation the erasure deletes here, without bound.",
		Fix:   "Remove the replication rule, or keep it off the library's prefix."})
	ruleBucketArchiveTier = declare(Rule{ID: "EC512", Name: "BucketNoArchiveTier", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/AmazonS3/latest/userguide/intelligent-tiering-overview.html",
		Title: "The library's objects never move to an archive tier",
		Why:   "An archived object needs a restore before a GET: the store can no longer read, erase or verify it.",
		Fix:   "Remove the archive tier from the Intelligent-Tiering configuration."})
	ruleBackupOutsideApp = declare(Rule{ID: "EC513", Name: "BucketBackupPlanKnown", Type: problem.BreaksErasure, Source: FromCheck, Acknowledgeable: true,
		Title: "A backup of the bucket is under a plan of the app",
		Why:   "Recovery points of a plan outside the app keep erased ids for a time the check cannot see.",
		Fix:   "Remove the bucket from the selection, or declare the plan here with a deletion within the bound; or acknowledge with the plan's owner and its deletion."})
	ruleBackupDeletes = declare(Rule{ID: "EC514", Name: "BucketBackupsDeleted", Type: problem.BreaksErasure, Source: FromSeed, Reference: "noncurrentVersionExpiryCapDays",
		Title: "Backups of the bucket are deleted",
		Why:   "Recovery points (or their copies) without DeleteAfterDays keep erased ids without bound.",
		Fix:   "Set DeleteAfterDays on every rule and copy action of the plan, within the store's bound."})
	ruleBackupWithinBound = declare(Rule{ID: "EC515", Name: "BucketBackupsWithinBound", Type: problem.AboveCap, Source: FromSeed, Reference: "noncurrentVersionExpiryCapDays",
		Title: "Backups of the bucket are deleted within the store's noncurrent-version bound",
		Why:   "Erased ids would outlive the bound the store declares.",
		Fix:   "Delete recovery points within the bound."})
	ruleBucketNotUnderTopicKey = declare(Rule{ID: "EC516", Name: "BucketNotUnderTopicKey", Type: problem.Invalid, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The bucket is not under the erasure topic's key",
		Why:   "A publisher's key grant would reach the store's data.",
		Fix:   "Give the bucket a key of its own."})
	ruleBucketKeyKnown = declare(Rule{ID: "EC517", Name: "BucketKeyKnown", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "Whether the bucket shares the topic's key can be told",
		Why:   "With the bucket under a key of another app and the topic another app's, named without its key, sharing cannot be ruled out.",
		Fix:   "Pass the topic's key (erasurectl check --topic-key-arn; the plugin's topicKeyArns), or give the bucket a key of its own."})
	ruleBucketKeyOfItsOwn = declare(Rule{ID: "EC518", Name: "BucketKeyNotQueues", Type: problem.Invalid, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The bucket does not share a key with a store's erasure queues",
		Why:   "SNS's and the event source's grants on the queues' key would reach the store's data.",
		Fix:   "Give the bucket a key of its own."})
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
