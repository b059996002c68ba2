package erasure

import (
	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
)

// ruleShape renders a CDK lifecycle rule in the CloudFormation shape
// checkBucketShape reads (CDK's own rendering cannot be read back through
// jsii before synth). A token where days must be checked is a problem.
//
// rules is the lifecycle rules' path, i this rule's index among them (its
// Id, when it has one, names it instead).
func ruleShape(l *problem.List, rules problem.Path, i int, r *awss3.LifecycleRule) map[string]any {
	m := map[string]any{"Status": "Enabled"}
	path := rules.Index(i)
	if r.Id != nil {
		m["Id"] = *r.Id
		path = rules.Key(*r.Id)
	}
	if r.Enabled != nil && !*r.Enabled {
		m["Status"] = "Disabled"
	}
	if r.Prefix != nil {
		m["Prefix"] = *r.Prefix
	}
	if r.TagFilters != nil && len(*r.TagFilters) > 0 {
		m["TagFilters"] = *r.TagFilters
	}
	if r.ObjectSizeGreaterThan != nil {
		m["ObjectSizeGreaterThan"] = *r.ObjectSizeGreaterThan
	}
	if r.ObjectSizeLessThan != nil {
		m["ObjectSizeLessThan"] = *r.ObjectSizeLessThan
	}
	days := func(field string, d awscdk.Duration) (float64, bool) {
		if d == nil {
			return 0, false
		}
		if u := d.IsUnresolved(); u != nil && *u {
			l.Add(path.Child(field), problem.UnresolvedToken, "a token cannot be checked at synth; give a literal duration")
			return 0, false
		}
		return *d.ToDays(nil), true
	}
	if n, ok := days("expiration", r.Expiration); ok {
		m["ExpirationInDays"] = n
	}
	if r.ExpirationDate != nil {
		m["ExpirationDate"] = r.ExpirationDate.String()
	}
	if r.Transitions != nil {
		var ts []any
		for _, t := range *r.Transitions {
			if t != nil && t.StorageClass != nil {
				ts = append(ts, map[string]any{"StorageClass": *t.StorageClass.Value()})
			}
		}
		m["Transitions"] = ts
	}
	if n, ok := days("noncurrentVersionExpiration", r.NoncurrentVersionExpiration); ok {
		nve := map[string]any{"NoncurrentDays": n}
		if r.NoncurrentVersionsToRetain != nil {
			nve["NewerNoncurrentVersions"] = *r.NoncurrentVersionsToRetain
		}
		m["NoncurrentVersionExpiration"] = nve
	}
	if n, ok := days("abortIncompleteMultipartUploadAfter", r.AbortIncompleteMultipartUploadAfter); ok {
		m["AbortIncompleteMultipartUpload"] = map[string]any{"DaysAfterInitiation": n}
	}
	return m
}
