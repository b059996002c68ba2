package erasurecheck

import (
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/bucketrule"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// TestFieldRulesAreTheSharedRules: the check's maps from a setting to its
// rule (timingRules, bucketRules) name, field for field, the rules the
// shared checks give their problems (timing.RuleOf, bucketrule.RuleOf), so
// that a construct's refusal and the check's finding of one value name one
// rule. The bucket's read TTL is the check's own (the construct reports it
// beside the bucket rule).
func TestFieldRulesAreTheSharedRules(t *testing.T) {
	for name, c := range map[string]struct {
		check  map[string]*Rule
		shared map[string]string
	}{
		"timing": {timingRules, timing.FieldRules()},
		"bucket": {bucketRules, bucketrule.FieldRules()},
	} {
		delete(c.shared, "readTtl")
		for field, id := range c.shared {
			if r := c.check[field]; r == nil || r.ID != id {
				t.Errorf("%s: %s is %s where it is checked, %v in the check", name, field, id, r)
			}
		}
		for field, r := range c.check {
			if c.shared[field] != r.ID {
				t.Errorf("%s: the check names %s by %s, the shared rule by %q", name, field, r.ID, c.shared[field])
			}
		}
	}
}
