package test

import (
	"github.com/linn-cloud/erasure-channel/contract/problem"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
)

// bucketShape is a bucket's CloudFormation shape for the table below.
type bucketShape struct {
	Versioned         bool
	ObjectLockEnabled bool
	Rules             []map[string]any
}

func (b bucketShape) props() map[string]any {
	rules := make([]any, len(b.Rules))
	for i, r := range b.Rules {
		rules[i] = r
	}
	p := map[string]any{"LifecycleConfiguration": map[string]any{"Rules": rules}}
	if b.Versioned {
		p["VersioningConfiguration"] = map[string]any{"Status": "Enabled"}
	}
	if b.ObjectLockEnabled {
		p["ObjectLockEnabled"] = true
	}
	return p
}

// TestBitmapBucketRulesOverTemplates: the bucket rules over CloudFormation
// shapes, as erasurectl reads them from templates (no synth needed).
func TestBitmapBucketRulesOverTemplates(t *testing.T) {
	c := contract.Channel()
	noncurrent := map[string]any{"Status": "Enabled", "NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": float64(c.NoncurrentVersionExpiryCapDays)}}
	abort := map[string]any{"Status": "Enabled", "AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": float64(3)}}
	cases := []struct {
		name  string
		shape bucketShape
		want  []string // "path: Type"
	}{
		{"clean", bucketShape{Versioned: true, Rules: []map[string]any{noncurrent, abort}}, nil},
		{"no-abort-rule", bucketShape{Versioned: true, Rules: []map[string]any{noncurrent}}, []string{"b.abortIncompleteMultipartUpload: Missing"}},
		{"versioning-without-noncurrent-expiry", bucketShape{Versioned: true, Rules: []map[string]any{abort}}, []string{"b.noncurrentVersionExpiration: Missing"}},
		{"versioning-off", bucketShape{Rules: []map[string]any{abort}}, []string{"b.versioned: Invalid"}},
		{"noncurrent-only-under-another-prefix", bucketShape{Versioned: true, Rules: []map[string]any{abort,
			{"Status": "Enabled", "Prefix": "cbm/events/", "NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": float64(1)}}}},
			[]string{"b.noncurrentVersionExpiration: Missing"}},
		{"noncurrent-narrowed-by-tag", bucketShape{Versioned: true, Rules: []map[string]any{abort,
			{"Status": "Enabled", "TagFilters": []any{map[string]any{"Key": "a", "Value": "b"}}, "NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": float64(1)}}}},
			[]string{"b.noncurrentVersionExpiration: Missing"}},
		{"disabled-noncurrent-rule", bucketShape{Versioned: true, Rules: []map[string]any{abort,
			{"Status": "Disabled", "NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": float64(1)}}}},
			[]string{"b.noncurrentVersionExpiration: Missing"}},
		{"disabled-expiration-is-harmless", bucketShape{Versioned: true, Rules: []map[string]any{noncurrent, abort,
			{"Status": "Disabled", "ExpirationInDays": float64(1)}}}, nil},
		{"filter-and-prefix-expiration", bucketShape{Versioned: true, Rules: []map[string]any{noncurrent, abort,
			{"Id": "X", "Status": "Enabled", "Filter": map[string]any{"And": map[string]any{"Prefix": "cbm/reg"}}, "ExpirationInDays": float64(5)}}},
			[]string{"b.lifecycleRules[X].expiration: BreaksErasure"}},
		{"lower-camel-casing", bucketShape{Versioned: true, Rules: []map[string]any{
			{"status": "Enabled", "noncurrentVersionExpiration": map[string]any{"noncurrentDays": float64(1)}, "abortIncompleteMultipartUpload": map[string]any{"daysAfterInitiation": float64(1)}}}}, nil},
		{"shorter-rule-wins-over-longer", bucketShape{Versioned: true, Rules: []map[string]any{abort, noncurrent,
			{"Status": "Enabled", "NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": float64(c.NoncurrentVersionExpiryCapDays * 3)}}}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := erasurecheck.CheckBitmapBucket(erasurecheck.BucketShapeOf(tc.shape.props()), "cbm/", c, problem.Root("b"))
			var lines []string
			for _, p := range got {
				lines = append(lines, p.Path.String()+": "+string(p.Type))
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	// The template form reads the same shape.
	props := map[string]any{"VersioningConfiguration": map[string]any{"Status": "Enabled"}, "ObjectLockEnabled": true,
		"LifecycleConfiguration": map[string]any{"Rules": []any{noncurrent, abort}}}
	if got := erasurecheck.CheckBitmapBucket(erasurecheck.BucketShapeOf(props), "cbm/", c, problem.Root("b")); len(got) != 1 || got[0].Path.String() != "b.objectLockEnabled" {
		t.Errorf("template check: %v", got)
	}
}
