package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// BitmapBucket is a bitmap store's bucket as the template deploys it.
type BitmapBucket struct {
	BucketID      string         // logical id of the AWS::S3::Bucket
	Prefix        string         // the library's prefix, from the handler's environment
	ReadTTLMillis int            // the read TTL, from the handler's environment
	Properties    map[string]any // the bucket's CloudFormation properties
	// LingeringDays is the longest any copy of an erased id can survive
	// (noncurrent versions, backups' recovery points), in days; 0 when no
	// copy is bounded.
	LingeringDays int
	// LingeringCopies names each bounded copy and its bound, e.g.
	// "noncurrent versions 30 d", "backup plan Plan 7 d".
	LingeringCopies []string

	t *template
}

// NoncurrentVersionExpiryDays is the shortest noncurrent-version expiry of an
// enabled rule covering the whole prefix, or 0 if none does.
func (b *BitmapBucket) NoncurrentVersionExpiryDays() int {
	best := 0
	for _, r := range BucketShapeOf(b.Properties).Rules {
		if !covers(r, b.Prefix) {
			continue
		}
		d := cfnmodel.Number(cfnmodel.Dig(r, "NoncurrentVersionExpiration", "NoncurrentDays"), 0)
		if d == 0 {
			d = cfnmodel.Number(r["NoncurrentVersionExpirationInDays"], 0)
		}
		if d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return best
}

// bucketOf resolves a handler's ERASURE_BITMAP_BUCKET to a bucket of the assembly.
func (a *assembly) bucketOf(t *template, v any) (*template, string, bool) {
	if v == nil {
		return nil, "", false
	}
	id := a.Ident(t, v)
	ref, ok := a.ResourceOf(id)
	bt, bid := ref.Template, ref.ID
	if !ok {
		bt, bid, ok = a.ByAlias("arn:aws:s3:::"+id, "AWS::S3::Bucket")
	}
	if !ok || bt.Resources[bid].Type != "AWS::S3::Bucket" {
		return nil, "", false
	}
	return bt, bid, true
}

// archiveTiers are Intelligent-Tiering tiers a GET cannot read without a restore.
var archiveTiers = map[string]bool{"ARCHIVE_ACCESS": true, "DEEP_ARCHIVE_ACCESS": true}

// overlaps says whether a configuration's prefix and the library's overlap.
func overlaps(p, prefix string) bool {
	return strings.HasPrefix(prefix, p) || strings.HasPrefix(p, prefix)
}

// checkBucketCopies refuses or bounds every copy of the bucket's objects that
// subject erasure never reaches: replicas, archive tiers, backups. It sets the
// bucket's lingering bound from the copies it bounds.
func (a *assembly) checkBucketCopies(f *findings, s *Store, c contract.Constants) {
	b := s.Bitmap
	bp := s.Path.Child("bitmapBucket")
	bprops := b.Properties
	if rc, ok := field(bprops, "ReplicationConfiguration").(map[string]any); ok {
		for i, r := range iameval.ListOf(field(rc, "Rules")) {
			rm, _ := r.(map[string]any)
			if !enabled(rm) || !overlaps(rulePrefix(rm), b.Prefix) {
				continue
			}
			name := bp.Child("replication").Index(i)
			if id, ok := field(rm, "Id").(string); ok && id != "" {
				name = bp.Child("replication").Key(id)
			}
			f.add(ruleBucketReplication, b.BucketID, name, props("ReplicationConfiguration", "Rules", fmt.Sprint(i)), "replicates %q to another bucket: the replica keeps every generation subject erasure deletes here, without bound; remove the rule or keep it off the library's prefix", b.Prefix)
		}
	}
	for i, cfg := range iameval.ListOf(field(bprops, "IntelligentTieringConfigurations")) {
		cm, _ := cfg.(map[string]any)
		if !enabled(cm) || !overlaps(rulePrefix(cm), b.Prefix) {
			continue
		}
		for _, tier := range iameval.ListOf(field(cm, "Tierings")) {
			tm, _ := tier.(map[string]any)
			if at, _ := field(tm, "AccessTier").(string); archiveTiers[at] {
				name := bp.Child("intelligentTiering").Index(i)
				if id, ok := field(cm, "Id").(string); ok && id != "" {
					name = bp.Child("intelligentTiering").Key(id)
				}
				f.add(ruleBucketArchiveTier, b.BucketID, name, props("IntelligentTieringConfigurations", fmt.Sprint(i)), "moves objects under %q to %s after %d days: a GET needs a restore first, so the store can no longer read, erase or verify them; remove the archive tier", rulePrefix(cm), at, cfnmodel.Number(field(tm, "Days"), 0))
				break
			}
		}
	}
	bound := b.NoncurrentVersionExpiryDays()
	if bound > 0 {
		b.LingeringDays = bound
		b.LingeringCopies = append(b.LingeringCopies, fmt.Sprintf("noncurrent versions %d d", bound))
	}
	limit := bound
	if limit == 0 {
		limit = c.NoncurrentVersionExpiryCapDays
	}
	a.checkBackups(f, b, bp, limit)
}

// checkBackups: a backup of the bucket keeps erased generations in its
// recovery points. It is refused unless every recovery point (and every copy
// of one) is deleted within limit days; then it is part of the lingering bound.
func (a *assembly) checkBackups(f *findings, b *BitmapBucket, bp problem.Path, limit int) {
	bucket := cfnmodel.Aliases(b.t, b.BucketID)
	tags := bucketTags(b.Properties)
	for _, t := range a.Templates {
		for _, selID := range t.IDs() {
			sel := t.Resources[selID]
			if sel.Type != "AWS::Backup::BackupSelection" {
				continue
			}
			bs, _ := sel.Properties["BackupSelection"].(map[string]any)
			if !a.selects(t, bs, bucket, tags) {
				continue
			}
			label := t.Stack + "/" + selID
			if n, ok := bs["SelectionName"].(string); ok && n != "" {
				label = n
			}
			name := bp.Child("backups").Key(label)
			ref, ok := a.ResourceOf(a.Ident(t, sel.Properties["BackupPlanId"]))
			pt, planID := ref.Template, ref.ID
			if !ok || pt.Resources[planID].Type != "AWS::Backup::BackupPlan" {
				f.add(ruleBackupOutsideApp, b.BucketID, name, nil, "a backup selection includes the bucket under a plan outside this app: its recovery points keep erased ids for a time the check cannot see; remove the bucket from it or declare the plan here with a deletion within %d days", limit)
				continue
			}
			longest, unbounded := 0, false
			plan, _ := pt.Resources[planID].Properties["BackupPlan"].(map[string]any)
			for _, rule := range iameval.ListOf(plan["BackupPlanRule"]) {
				rm, _ := rule.(map[string]any)
				lifecycles := []any{rm["Lifecycle"]}
				for _, ca := range iameval.ListOf(rm["CopyActions"]) {
					cam, _ := ca.(map[string]any)
					lifecycles = append(lifecycles, cam["Lifecycle"])
				}
				for _, lc := range lifecycles {
					lm, _ := lc.(map[string]any)
					d := cfnmodel.Number(lm["DeleteAfterDays"], 0)
					if d == 0 {
						unbounded = true
					}
					longest = max(longest, d)
				}
			}
			switch {
			case unbounded:
				f.add(ruleBackupDeletes, b.BucketID, name, nil, "backup plan %s keeps recovery points of the bucket (or copies of them) with no DeleteAfterDays: erased ids survive in them without bound; delete them within %d days", planID, limit)
			case longest > limit:
				f.add(ruleBackupWithinBound, b.BucketID, name, nil, "backup plan %s keeps recovery points of the bucket for %d days, above the store's noncurrent-version bound of %d days: erased ids would outlive the declared bound; delete them within %d days", planID, longest, limit, limit)
			default:
				b.LingeringDays = max(b.LingeringDays, longest)
				b.LingeringCopies = append(b.LingeringCopies, fmt.Sprintf("backup plan %s %d d", planID, longest))
			}
		}
	}
}

// selects says whether a backup selection includes the bucket: by resource
// ARN (wildcards included) or by one of its tags, and not excluded.
func (a *assembly) selects(t *template, bs map[string]any, bucket []string, tags map[string]string) bool {
	for _, r := range iameval.ListOf(bs["NotResources"]) {
		if iameval.CoversAny(a.Ident(t, r), bucket) {
			return false
		}
	}
	for _, r := range iameval.ListOf(bs["Resources"]) {
		if iameval.CoversAny(a.Ident(t, r), bucket) {
			return true
		}
	}
	for _, lt := range iameval.ListOf(bs["ListOfTags"]) {
		m, _ := lt.(map[string]any)
		k, _ := m["ConditionKey"].(string)
		v, _ := m["ConditionValue"].(string)
		if val, ok := tags[k]; ok && (v == "" || iameval.GlobMatch(v, val)) {
			return true
		}
	}
	return false
}

func bucketTags(props map[string]any) map[string]string {
	out := map[string]string{}
	for _, t := range iameval.ListOf(props["Tags"]) {
		m, _ := t.(map[string]any)
		k, _ := m["Key"].(string)
		v, _ := m["Value"].(string)
		out[k] = v
	}
	return out
}

// bucketKey is the KMS key the bucket's default encryption names, "" if none.
func (a *assembly) bucketKey(b *BitmapBucket) string {
	if v := a.bucketKeyValue(b); v != nil {
		return a.Ident(b.t, v)
	}
	return ""
}

// checkSharedKeys: each key has one job. A bitmap bucket under the erasure
// topic's key or a store queue's key would let a grant for one reach the
// other (a publisher, SNS, a store's handler).
func (a *assembly) checkSharedKeys(stores []*storeCheck, topics topicRefs) Findings {
	var out Findings
	for _, sc := range stores {
		b := sc.store.Bitmap
		if b == nil {
			continue
		}
		key := a.bucketKey(b)
		if key == "" {
			continue
		}
		f := findings{t: b.t}
		name := sc.store.Path.Child("bitmapBucket").Child("encryptionKey")
		if a.isTopicKey(topics, key) {
			f.add(ruleBucketNotUnderTopicKey, b.BucketID, name, props("BucketEncryption"), "the bucket is under the erasure topic's key: a publisher's key grant would reach the store's data; give the bucket a key of its own")
		} else if _, inApp := a.ResourceOf(key); !inApp && len(topics.keys) == 0 && topics.outsideTopic(a) {
			f.add(ruleBucketKeyKnown, b.BucketID, name, props("BucketEncryption"), "the bucket is under a key of another app (%s) and the erasure topic is another app's, named without its key, so whether the bucket shares the topic's key cannot be told; pass the topic's key (erasurectl check --topic-key-arn, erasurecheck.Config.TopicKeyArns: the channel stack's TopicKeyArn output), or give the bucket a key of its own", key)
		}
		for _, other := range stores {
			o := other.store
			var shared []string
			for _, qid := range []string{o.QueueID, o.DeadLetterID} {
				if qid == "" {
					continue
				}
				if k := a.Ident(other.t, other.t.Resources[qid].Properties["KmsMasterKeyId"]); k != "" && k == key {
					shared = append(shared, qid)
				}
			}
			if len(shared) > 0 {
				f.add(ruleBucketKeyOfItsOwn, b.BucketID, name, props("BucketEncryption"), "the bucket shares the key of store %s's erasure queues (%s): SNS's and the event source's grants on it would reach the store's data; give the bucket a key of its own", o.Spec.Name, strings.Join(shared, ", "))
			}
		}
		out = append(out, f.out...)
	}
	return out
}

// The rules this file reports.
var (
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
