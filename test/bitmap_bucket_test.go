package test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/contract"
)

func days(n int) awscdk.Duration { return awscdk.Duration_Days(jsii.Number(float64(n))) }

// bucketCase is one bitmap store bucket broken in some way: synth must fail
// with exactly one line per want entry ("property: ProblemType").
type bucketCase struct {
	name  string
	props func(stack awscdk.Stack) erasure.BitmapStoreBucketProps
	after func(b *erasure.BitmapStoreBucket) // changes made after construction
	pass2 awscdk.Duration                    // the attached subscriber's pass-two delay (default X)
	want  []string
}

func TestBitmapBucketTrapsAreRefusedAtSynth(t *testing.T) {
	c := contract.Channel()
	capDays := c.NoncurrentVersionExpiryCapDays
	rules := func(r ...*awss3.LifecycleRule) func(awscdk.Stack) erasure.BitmapStoreBucketProps {
		return func(awscdk.Stack) erasure.BitmapStoreBucketProps {
			return erasure.BitmapStoreBucketProps{LifecycleRules: r}
		}
	}
	props := func(p erasure.BitmapStoreBucketProps) func(awscdk.Stack) erasure.BitmapStoreBucketProps {
		return func(awscdk.Stack) erasure.BitmapStoreBucketProps { return p }
	}
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []bucketCase{
		{name: "expire-everything", props: rules(&awss3.LifecycleRule{Id: jsii.String("Old"), Expiration: days(365)}),
			want: []string{"lifecycleRules[Old].expiration: BreaksErasure"}},
		{name: "expire-empty-prefix", props: rules(&awss3.LifecycleRule{Prefix: jsii.String(""), Expiration: days(1)}),
			want: []string{"lifecycleRules[2].expiration: BreaksErasure"}},
		{name: "expire-registry", props: rules(&awss3.LifecycleRule{Id: jsii.String("Reg"), Prefix: jsii.String("cbm/registry/"), Expiration: days(90)}),
			want: []string{"lifecycleRules[Reg].expiration: BreaksErasure"}},
		{name: "expire-due-index", props: rules(&awss3.LifecycleRule{Id: jsii.String("Due"), Prefix: jsii.String("cbm/registry/cbm.due."), Expiration: days(7)}),
			want: []string{"lifecycleRules[Due].expiration: BreaksErasure"}},
		{name: "expire-generations-tagged", props: rules(&awss3.LifecycleRule{Id: jsii.String("Gen"), Prefix: jsii.String("cbm/events/"),
			TagFilters: &map[string]interface{}{"tier": "cold"}, Expiration: days(30)}),
			want: []string{"lifecycleRules[Gen].expiration: BreaksErasure"}},
		{name: "expire-by-size", props: rules(&awss3.LifecycleRule{Id: jsii.String("Big"), ObjectSizeGreaterThan: jsii.Number(1 << 20), Expiration: days(30)}),
			want: []string{"lifecycleRules[Big].expiration: BreaksErasure"}},
		{name: "expiration-date", props: rules(&awss3.LifecycleRule{Id: jsii.String("Date"), Prefix: jsii.String("cbm"), ExpirationDate: &date}),
			want: []string{"lifecycleRules[Date].expirationDate: BreaksErasure"}},
		{name: "archive-current", props: rules(&awss3.LifecycleRule{Id: jsii.String("Cold"), Transitions: &[]*awss3.Transition{{
			StorageClass: awss3.StorageClass_DEEP_ARCHIVE(), TransitionAfter: days(30)}}}),
			want: []string{"lifecycleRules[Cold].transitions: BreaksErasure"}},
		{name: "noncurrent-above-cap", props: props(erasure.BitmapStoreBucketProps{NoncurrentVersionExpiry: days(capDays + 1)}),
			want: []string{"lifecycleRules[ExpireNoncurrentVersions].noncurrentVersionExpiration: AboveCap"}},
		{name: "noncurrent-retained", props: rules(&awss3.LifecycleRule{Id: jsii.String("Keep"), NoncurrentVersionExpiration: days(1), NoncurrentVersionsToRetain: jsii.Number(5)}),
			want: []string{"lifecycleRules[Keep].noncurrentVersionsToRetain: BreaksErasure"}},
		{name: "object-lock", props: props(erasure.BitmapStoreBucketProps{ObjectLockEnabled: jsii.Bool(true)}),
			want: []string{"objectLockEnabled: BreaksErasure"}},
		{name: "read-ttl-zero", props: props(erasure.BitmapStoreBucketProps{ReadTTL: awscdk.Duration_Millis(jsii.Number(0))}),
			want: []string{"readTtl: BelowMinimum"}},
		{name: "read-ttl-past-pass-two", props: props(erasure.BitmapStoreBucketProps{ReadTTL: secs(10)}), pass2: secs(5),
			want: []string{"readTtl: AboveCap: 10000 ms is above subscriber read-ttl-past-pass-two's pass-two delay of 5 s"}},
		{name: "read-ttl-token", props: func(s awscdk.Stack) erasure.BitmapStoreBucketProps {
			tok := awscdk.NewCfnParameter(s, jsii.String("Ttl"), &awscdk.CfnParameterProps{Type: jsii.String("Number")}).ValueAsNumber()
			return erasure.BitmapStoreBucketProps{ReadTTL: awscdk.Duration_Millis(tok)}
		}, want: []string{"readTtl: UnresolvedToken"}},
		{name: "noncurrent-token", props: func(s awscdk.Stack) erasure.BitmapStoreBucketProps {
			tok := awscdk.NewCfnParameter(s, jsii.String("Days"), &awscdk.CfnParameterProps{Type: jsii.String("Number")}).ValueAsNumber()
			return erasure.BitmapStoreBucketProps{NoncurrentVersionExpiry: awscdk.Duration_Days(tok)}
		}, want: []string{"noncurrentVersionExpiry: UnresolvedToken", "noncurrentVersionExpiration: Missing"}},
		{name: "rule-added-later", props: props(erasure.BitmapStoreBucketProps{}), after: func(b *erasure.BitmapStoreBucket) {
			b.AddLifecycleRule(&awss3.LifecycleRule{Id: jsii.String("Later"), Expiration: days(400)})
		}, want: []string{"lifecycleRules[Later].expiration: BreaksErasure"}},
		{name: "bad-prefix", props: props(erasure.BitmapStoreBucketProps{Prefix: "CBM"}),
			want: []string{"prefix: Invalid"}},
		{name: "several-together", props: func(awscdk.Stack) erasure.BitmapStoreBucketProps {
			return erasure.BitmapStoreBucketProps{ObjectLockEnabled: jsii.Bool(true), NoncurrentVersionExpiry: days(capDays * 2),
				ReadTTL:        awscdk.Duration_Millis(jsii.Number(0)),
				LifecycleRules: []*awss3.LifecycleRule{{Id: jsii.String("All"), Expiration: days(10)}}}
		}, want: []string{"objectLockEnabled: BreaksErasure", "lifecycleRules[ExpireNoncurrentVersions].noncurrentVersionExpiration: AboveCap", "readTtl: BelowMinimum", "lifecycleRules[All].expiration: BreaksErasure"}},
		// Safe shapes produce no line: a rule on another prefix, a rule that only
		// removes expired delete markers, a shorter noncurrent expiry.
		{name: "safe-shapes", props: func(awscdk.Stack) erasure.BitmapStoreBucketProps {
			return erasure.BitmapStoreBucketProps{NoncurrentVersionExpiry: days(7), LifecycleRules: []*awss3.LifecycleRule{
				{Id: jsii.String("Exports"), Prefix: jsii.String("exports/"), Expiration: days(1)},
				{Id: jsii.String("Markers"), Prefix: jsii.String("cbm/registry/"), ExpiredObjectDeleteMarker: jsii.Bool(true)},
			}}
		}},
	}

	app, _ := newApp(t)
	channelStack := awscdk.NewStack(app, jsii.String("Channel"), nil)
	ch := erasure.NewErasureChannel(channelStack, jsii.String("ErasureChannel"), nil)
	for i, tc := range cases {
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Bucket%02d", i)), nil)
		erasure.NewBitmapStoreBucket(stack, jsii.String(tc.name), nil) // the defaults: never refused
		p := tc.props(stack)
		b := erasure.NewBitmapStoreBucket(stack, jsii.String(tc.name+"-b"), &p)
		if tc.after != nil {
			tc.after(b)
		}
		sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
			Name: tc.name, Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler(), PassTwoDelay: tc.pass2,
		})
		b.AttachTo(sub)
	}
	err := synth(app)
	if err == nil {
		t.Fatal("synth passed with every trap set")
	}
	report := err.Error()
	for _, named := range []string{"EC501 BitmapStoreBucket[", "EC504 BitmapStoreBucket[", "EC506 BitmapStoreBucket[", "EC503 BitmapStoreBucket["} {
		if !strings.Contains(report, named) {
			t.Errorf("no refusal names its rule as %q:\n%s", named, report)
		}
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if about := bucketLines(report, tc.name); about != "" {
				t.Errorf("the default bucket of case %s was refused:\n%s", tc.name, about)
			}
			about := bucketLines(report, tc.name+"-b")
			for _, w := range tc.want {
				// The rule the bucket rule names (EC501-EC506), where one does.
				want := regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("[Bucket%02d/%s-b] ", i, tc.name)) + `(?:EC5\d\d )?` +
					regexp.QuoteMeta(fmt.Sprintf("BitmapStoreBucket[%s-b].%s", tc.name, w)))
				if !want.MatchString(about) {
					t.Errorf("synth report has no %s:\n%s", want, about)
				}
			}
			if got := strings.Count(about, "\n"); got != len(tc.want) {
				t.Errorf("%d lines, want %d:\n%s", got, len(tc.want), about)
			}
			if subLines := linesAbout(report, tc.name); subLines != "" {
				t.Errorf("the subscriber was refused:\n%s", subLines)
			}
		})
	}
}

func bucketLines(report, id string) string {
	return linesMentioning(report, "BitmapStoreBucket["+id+"]")
}

// TestBitmapBucketTemplate: the example app's bitmap store deploys a bucket
// secure by default, its two rules, and a handler granted exactly the
// library's actions, with the bucket, prefix and read TTL in its environment.
func TestBitmapBucketTemplate(t *testing.T) {
	tpl, ok := defaultApp(t)["BitmapStore"]
	if !ok {
		t.Fatal("the example app has no BitmapStore stack")
	}
	bucketID, p := tpl.one(t, "AWS::S3::Bucket")
	if dp := tpl.resources("AWS::S3::Bucket")[bucketID]["DeletionPolicy"]; dp != "Retain" {
		t.Errorf("deletion policy %v", dp)
	}
	pab := p["PublicAccessBlockConfiguration"].(map[string]interface{})
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if pab[k] != true {
			t.Errorf("%s = %v", k, pab[k])
		}
	}
	if v := p["VersioningConfiguration"].(map[string]interface{})["Status"]; v != "Enabled" {
		t.Errorf("versioning %v", v)
	}
	if _, lock := p["ObjectLockEnabled"]; lock {
		t.Error("object lock is set")
	}
	sse := fmt.Sprint(p["BucketEncryption"])
	if !strings.Contains(sse, "aws:kms") || !strings.Contains(sse, "BucketKeyEnabled:true") {
		t.Errorf("encryption %s", sse)
	}
	c := contract.Channel()
	rules := fmt.Sprint(p["LifecycleConfiguration"])
	for _, want := range []string{
		fmt.Sprintf("NoncurrentDays:%d", c.NoncurrentVersionExpiryCapDays),
		"AbortIncompleteMultipartUpload:map[DaysAfterInitiation:3]",
	} {
		if !strings.Contains(rules, want) {
			t.Errorf("lifecycle rules have no %s: %s", want, rules)
		}
	}
	if strings.Contains(rules, "ExpirationInDays") {
		t.Errorf("a rule expires current versions: %s", rules)
	}
	// TLS only.
	policy := fmt.Sprint(tpl.resources("AWS::S3::BucketPolicy"))
	if !strings.Contains(policy, "aws:SecureTransport:false") {
		t.Errorf("no TLS-only policy: %s", policy)
	}
	// The bucket is under its own key, not the topic's.
	keyRef := fmt.Sprint(p["BucketEncryption"])
	if strings.Contains(keyRef, "Topic") {
		t.Errorf("the bucket is under the topic's key: %s", keyRef)
	}

	// The exact grant: every S3 action the handler's role holds, with its resource.
	var s3Grants []string
	for _, pol := range tpl.resources("AWS::IAM::Policy") {
		doc := pol["Properties"].(map[string]interface{})["PolicyDocument"].(map[string]interface{})
		for _, st := range doc["Statement"].([]interface{}) {
			stm := st.(map[string]interface{})
			actions := fmt.Sprint(stm["Action"])
			if !strings.Contains(actions, "s3:") {
				continue
			}
			res := fmt.Sprint(stm["Resource"])
			if !strings.Contains(res, bucketID) {
				t.Errorf("an S3 grant on another resource: %v", stm)
			}
			on := "the bucket"
			switch {
			case strings.Contains(res, "/cbm/*/segments/*"):
				on = "generation keys under cbm/*/segments/*"
			case strings.Contains(res, "/cbm/*"):
				on = "objects under cbm/*"
			}
			s3Grants = append(s3Grants, actions+" on "+on)
		}
	}
	sort.Strings(s3Grants)
	want := []string{"[s3:AbortMultipartUpload s3:DeleteObject s3:GetObject s3:PutObject] on objects under cbm/*",
		"[s3:DeleteObjectVersion s3:GetObjectVersion] on generation keys under cbm/*/segments/*",
		"[s3:ListBucket s3:ListBucketVersions] on the bucket"}
	if fmt.Sprint(s3Grants) != fmt.Sprint(want) {
		t.Errorf("S3 grants\n got %v\nwant %v", s3Grants, want)
	}
	_, fn := tpl.one(t, "AWS::Lambda::Function")
	env := fn["Environment"].(map[string]interface{})["Variables"].(map[string]interface{})
	if fmt.Sprint(env[contract.EnvBitmapBucket]) != fmt.Sprint(map[string]interface{}{"Ref": bucketID}) {
		t.Errorf("bucket variable %v", env[contract.EnvBitmapBucket])
	}
	if env[contract.EnvBitmapPrefix] != "cbm/" || env[contract.EnvBitmapReadTTLMillis] != "2000" {
		t.Errorf("prefix %v, read TTL %v", env[contract.EnvBitmapPrefix], env[contract.EnvBitmapReadTTLMillis])
	}
}
