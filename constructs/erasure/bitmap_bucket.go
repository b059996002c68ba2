package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
	"github.com/linn-cloud/erasure-channel/contract/problem"

	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/bucketrule"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract"
)

// DefaultBitmapPrefix is the bitmap library's default key prefix.
const DefaultBitmapPrefix = "cbm/"

// defaultReadTTLMillis is the library's default read TTL (cache.genTtlMs).
const defaultReadTTLMillis = 2000

// defaultAbortUploadsDays is when an incomplete multipart upload is aborted.
const defaultAbortUploadsDays = 3

// BitmapStoreBucketProps configures a bitmap store's bucket. Every field is
// optional.
type BitmapStoreBucketProps struct {
	// Key encrypts the bucket (SSE-KMS, bucket key on). Default: a new
	// customer-managed key. Never pass the erasure topic's key.
	Key awskms.IKey
	// Prefix is the library's key prefix, ending in "/". Default "cbm/".
	Prefix string
	// ReadTTL is the library's read TTL: how long any process keeps serving
	// an erased id. More than zero and at most the attached subscriber's
	// pass-two delay, so pass two runs after every process has stopped
	// serving the id. Default 2 s.
	ReadTTL awscdk.Duration
	// NoncurrentVersionExpiry is the store's declared bound on how long an
	// erased id lingers in noncurrent versions: at most
	// noncurrentVersionExpiryCapDays. Default: the cap.
	NoncurrentVersionExpiry awscdk.Duration
	// AbortIncompleteUploadsAfter aborts incomplete multipart uploads. Default 3 days.
	AbortIncompleteUploadsAfter awscdk.Duration
	// LifecycleRules are the store team's own rules, added after the
	// construct's; every one is checked at synth (as is any rule added later
	// with Bucket.AddLifecycleRule).
	LifecycleRules []*awss3.LifecycleRule
	// ObjectLockEnabled is refused: WORM copies cannot be erased.
	ObjectLockEnabled *bool
	// RemovalPolicy of the bucket. Default RETAIN.
	RemovalPolicy awscdk.RemovalPolicy
	// Loaders are the ARNs of the principals that load the store's bitmaps
	// besides its handler: with the handler (AttachTo), the only principals
	// that may list the bucket or read, write or delete its objects.
	Loaders []string
	// Administrators are the ARN patterns of the principals that deploy and
	// operate the bucket: they alone may change its policy or settings or
	// delete it. Default: the CloudFormation execution role of CDK's default
	// bootstrap in the bucket's account (channelpolicy.DefaultAdministrators).
	Administrators []string
	// Constants overrides the embedded channel constants (tests only).
	Constants *contract.Constants
}

// BitmapStoreBucket is a bitmap store's bucket, secure by default and
// refusing at synth every setting that would silently defeat subject erasure:
// lifecycle rules that expire current versions under the library's prefix,
// versioning without a bounded noncurrent-version expiry, no rule aborting
// incomplete uploads, object lock, a read TTL without a bound or past the
// store's pass-two delay.
type BitmapStoreBucket struct {
	constructs.Construct

	// Bucket is the S3 bucket.
	Bucket awss3.Bucket
	// Key encrypts the bucket.
	Key awskms.IKey
	// Prefix is the library's key prefix.
	Prefix string
	// ReadTTLMillis is the read TTL handed to the handler (0 if invalid).
	ReadTTLMillis int
	// NoncurrentVersionExpiryDays is the declared bound (0 if invalid).
	NoncurrentVersionExpiryDays int

	path       problem.Path
	constants  contract.Constants
	problems   problem.List // from props, known at construction
	attached   []*ErasureSubscriber
	loaders    []string
	ownKey     awskms.Key             // the key the construct made, whose policy it locks
	rules      []*awss3.LifecycleRule // every rule the bucket deploys, checked at synth
	objectLock bool
}

// NewBitmapStoreBucket builds the bucket. Problems do not fail here: synth
// fails with every one of them (the bucket's deployed shape is checked when
// the app synthesizes, after every rule has been added).
func NewBitmapStoreBucket(scope constructs.Construct, id *string, props *BitmapStoreBucketProps) *BitmapStoreBucket {
	this := constructs.NewConstruct(scope, id)
	if props == nil {
		props = &BitmapStoreBucketProps{}
	}
	c := constantsOr(props.Constants)
	b := &BitmapStoreBucket{Construct: this, constants: c, Prefix: props.Prefix,
		path: problem.Root("BitmapStoreBucket").Key(*id)}
	if b.Prefix == "" {
		b.Prefix = DefaultBitmapPrefix
	}
	if !validBitmapPrefix(b.Prefix) {
		b.problems.Add(b.path.Child("prefix"), problem.Invalid, "%q is not a key prefix: 1 to 128 of a-z, 0-9, ., _, - and /, ending in /", b.Prefix)
	}

	b.ReadTTLMillis = defaultReadTTLMillis
	if props.ReadTTL != nil {
		b.ReadTTLMillis = 0
		if u := props.ReadTTL.IsUnresolved(); u != nil && *u {
			b.problems.Add(b.path.Child("readTtl"), problem.UnresolvedToken, "a token cannot be checked against the pass-two delay at synth; give a literal duration")
		} else if ms := *props.ReadTTL.ToMilliseconds(nil); ms < 1 {
			b.problems.Add(b.path.Child("readTtl"), problem.BelowMinimum, "%g ms gives no bound: other processes would serve an erased id until they restart", ms)
		} else {
			b.ReadTTLMillis = int(ms)
		}
	}

	capDays := c.NoncurrentVersionExpiryCapDays
	b.NoncurrentVersionExpiryDays = capDays
	if d := props.NoncurrentVersionExpiry; d != nil {
		b.NoncurrentVersionExpiryDays = 0
		if days, ok := wholeDays(&b.problems, b.path.Child("noncurrentVersionExpiry"), d); ok {
			b.NoncurrentVersionExpiryDays = days
			// Past the cap is reported by the bucket-shape check, from the rule it deploys.
		}
	}
	abortDays := defaultAbortUploadsDays
	if d := props.AbortIncompleteUploadsAfter; d != nil {
		abortDays = 0
		if days, ok := wholeDays(&b.problems, b.path.Child("abortIncompleteUploadsAfter"), d); ok {
			abortDays = days
		}
	}
	if props.Key != nil {
		b.Key = props.Key
	} else {
		b.Key = newKey(this, "Key", "Bitmap store bucket "+*id)
	}
	rules := []*awss3.LifecycleRule{}
	if b.NoncurrentVersionExpiryDays > 0 {
		rules = append(rules, &awss3.LifecycleRule{Id: jsii.String("ExpireNoncurrentVersions"),
			NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(float64(b.NoncurrentVersionExpiryDays)))})
	}
	if abortDays > 0 {
		rules = append(rules, &awss3.LifecycleRule{Id: jsii.String("AbortIncompleteUploads"),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(float64(abortDays)))})
	}
	rules = append(rules, props.LifecycleRules...)
	b.rules = append(b.rules, rules...)
	b.objectLock = props.ObjectLockEnabled != nil && *props.ObjectLockEnabled
	removal := props.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_RETAIN
	}
	b.Bucket = awss3.NewBucket(this, jsii.String("Bucket"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_KMS,
		EncryptionKey:     b.Key,
		BucketKeyEnabled:  jsii.Bool(true),
		Versioned:         jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules:    &rules,
		ObjectLockEnabled: props.ObjectLockEnabled,
		RemovalPolicy:     removal,
	})
	suppress(map[string]string{
		"AwsSolutions-S1":                           design.ReasonBucketLogs,
		"NIST.800.53.R5-S3BucketLoggingEnabled":     design.ReasonBucketLogs,
		"NIST.800.53.R5-S3BucketReplicationEnabled": design.ReasonReplication,
	}, b.Bucket)
	checkPrincipalArns(&b.problems, b.path.Child("loaders"), props.Loaders, false)
	checkPrincipalArns(&b.problems, b.path.Child("administrators"), props.Administrators, true)
	b.loaders = props.Loaders
	admins := administratorsOr(this, props.Administrators)
	data := append(append([]string{}, channelpolicy.BucketList...), channelpolicy.ObjectData...)
	bucket := bucketLock(b.Bucket)
	bucket.AdministeredBy(channelpolicy.Bucket, admins, data)
	applyLocks(bucket)
	if k, ok := b.Key.(awskms.Key); ok && props.Key == nil {
		b.ownKey = k
		key := keyLock(k)
		key.AdministeredBy(channelpolicy.BucketKey, admins, channelpolicy.KeyUse)
		applyLocks(key)
	}
	this.Node().AddValidation(&bitmapBucketValidation{b: b})
	return b
}

func validBitmapPrefix(p string) bool {
	if len(p) < 2 || len(p) > 128 || !strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)) {
			return false
		}
	}
	return true
}

// wholeDays reads d as whole days, adding a problem for a token or a fraction.
func wholeDays(l *problem.List, path problem.Path, d awscdk.Duration) (int, bool) {
	s, ok := wholeSeconds(l, path, d)
	if !ok {
		return 0, false
	}
	if s <= 0 || s%86400 != 0 {
		l.Add(path, problem.Invalid, "%d s is not a positive whole number of days", s)
		return 0, false
	}
	return s / 86400, true
}

// AddLifecycleRule adds a rule to the bucket; it is checked at synth like the
// props' rules. (A rule added to Bucket directly cannot be read back through
// jsii before synth; the app-wide check, erasurecheck, refuses it from the
// template.)
func (b *BitmapStoreBucket) AddLifecycleRule(rule *awss3.LifecycleRule) {
	b.rules = append(b.rules, rule)
	b.Bucket.AddLifecycleRule(rule)
}

// GrantLibrary grants exactly what the bitmap library issues: s3:ListBucket
// on the bucket; s3:GetObject, s3:PutObject, s3:DeleteObject and
// s3:AbortMultipartUpload on the library's prefix (registry rows included);
// kms:Decrypt and kms:GenerateDataKey on the bucket's key.
func (b *BitmapStoreBucket) GrantLibrary(grantee awsiam.IGrantable) {
	awsiam.Grant_AddToPrincipalOrResource(&awsiam.GrantWithResourceOptions{
		Grantee: grantee, Actions: jsii.Strings("s3:ListBucket", "s3:ListBucketVersions"),
		ResourceArns: jsii.Strings(*b.Bucket.BucketArn()), Resource: b.Bucket,
	})
	awsiam.Grant_AddToPrincipalOrResource(&awsiam.GrantWithResourceOptions{
		Grantee: grantee, Actions: jsii.Strings("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"),
		ResourceArns: jsii.Strings(*b.Bucket.ArnForObjects(jsii.String(b.Prefix + "*"))), Resource: b.Bucket,
	})
	// Subject erasure deletes, by version id, every version of a generation
	// that holds the id, and reads noncurrent ones to know: only on the
	// generation keys (<prefix><namespace>/segments/...), never on the
	// registry, whose history stays for a restore (the store reserves the
	// namespace names "registry" and "segments").
	awsiam.Grant_AddToPrincipalOrResource(&awsiam.GrantWithResourceOptions{
		Grantee: grantee, Actions: jsii.Strings("s3:GetObjectVersion", "s3:DeleteObjectVersion"),
		ResourceArns: jsii.Strings(*b.Bucket.ArnForObjects(jsii.String(b.Prefix + "*/segments/*"))), Resource: b.Bucket,
	})
	b.Key.Grant(grantee, jsii.String("kms:Decrypt"), jsii.String("kms:GenerateDataKey"))
}

// AttachTo wires the bucket to a store: its handler is granted the library's
// actions and gets the bucket name, prefix and read TTL in its environment,
// and the read TTL is checked against the store's pass-two delay at synth.
func (b *BitmapStoreBucket) AttachTo(s *ErasureSubscriber) {
	b.attached = append(b.attached, s)
	if len(b.attached) > 1 {
		b.problems.Add(b.path.Child("attachTo"), problem.Invalid, "a bitmap store's bucket serves one store: only its handler (and Loaders) may read and write it")
		return
	}
	if s.Function == nil {
		return // the subscriber reports its missing handler itself
	}
	b.GrantLibrary(s.Function)
	if role := s.Function.Role(); role != nil {
		// Only the store reads and writes its bitmaps, and uses their key.
		data := append(append([]string{}, channelpolicy.BucketList...), channelpolicy.ObjectData...)
		who := append([]string{*role.RoleArn()}, b.loaders...)
		bucket := bucketLock(b.Bucket)
		bucket.OnlyFrom("OnlyTheStoreReadsAndWrites", data, who, nil)
		applyLocks(bucket)
		if b.ownKey != nil {
			key := keyLock(b.ownKey)
			key.OnlyFrom("OnlyTheDataPathUsesTheKey", channelpolicy.KeyUse, who, nil)
			applyLocks(key)
		}
	}
	if role := s.Function.Role(); role != nil {
		// The library writes keys of its own choosing under its prefix: the
		// object actions can only be granted on <bucket>/<prefix>*.
		arn := "Resource::<" + *awscdk.Stack_Of(b.Bucket).GetLogicalId(b.Bucket.Node().DefaultChild().(awscdk.CfnElement)) + ".Arn>/" + b.Prefix
		suppressRules(design.SuppressionApplying("AwsSolutions-IAM5",
			"The bitmap library names its objects (registry rows, generations) under its prefix at run time; the object actions are limited to <bucket>/"+b.Prefix+"*, version reads and deletes to its generation keys <bucket>/"+b.Prefix+"*/segments/*, the bucket itself gets only s3:ListBucket and s3:ListBucketVersions.",
			[]string{arn + "*", arn + "*/segments/*"}).Rules, role)
	}
	s.Function.AddEnvironment(jsii.String(contract.EnvBitmapBucket), b.Bucket.BucketName(), nil)
	s.Function.AddEnvironment(jsii.String(contract.EnvBitmapPrefix), jsii.String(b.Prefix), nil)
	s.Function.AddEnvironment(jsii.String(contract.EnvBitmapReadTTLMillis), jsii.String(strconv.Itoa(b.ReadTTLMillis)), nil)
}

// Problems returns every problem of the bucket as it will deploy: its props,
// its lifecycle rules, object lock and versioning, and the read TTL against
// each attached store's pass-two delay.
func (b *BitmapStoreBucket) Problems() problem.List {
	l := append(problem.List(nil), b.problems...)
	shape := bucketrule.Shape{Versioned: true, ObjectLockEnabled: b.objectLock}
	for i, r := range b.rules {
		shape.Rules = append(shape.Rules, ruleShape(&l, b.path.Child("lifecycleRules"), i, r))
	}
	l = append(l, bucketrule.Check(shape, b.Prefix, b.constants, b.path)...)
	for _, s := range b.attached {
		if b.ReadTTLMillis > 0 && b.ReadTTLMillis > s.Settings.PassTwoDelaySeconds*1000 {
			l.Add(b.path.Child("readTtl"), problem.AboveCap, "%d ms is above subscriber %s's pass-two delay of %d s: pass two could run while another process still serves the id", b.ReadTTLMillis, s.Name, s.Settings.PassTwoDelaySeconds)
		}
	}
	l.Name(func(p problem.Problem) (string, string) { return bucketrule.RuleOf(p), "" })
	return l
}

// bitmapBucketValidation checks the bucket when the app synthesizes.
type bitmapBucketValidation struct{ b *BitmapStoreBucket }

// Validate implements constructs.IValidation.
func (v *bitmapBucketValidation) Validate() *[]*string {
	return (problemsValidation(v.b.Problems())).Validate()
}

// String names the bucket for messages.
func (b *BitmapStoreBucket) String() string {
	return fmt.Sprintf("%s(prefix %s)", b.path.String(), b.Prefix)
}
