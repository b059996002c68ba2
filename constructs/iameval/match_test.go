package iameval

import "testing"

// TestGlobMatch: IAM wildcards over references, ARNs and suffixes.
func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "res:a/b#C", true}, {"arn:aws:sqs:*:111111111111:*", "arn:aws:sqs:eu-west-1:111111111111:q", true},
		{"res:p#Bucket/cbm/*", "res:p#Bucket/cbm/x/y", true}, {"arn:aws:sqs:eu-west-1:2:q", "arn:aws:sqs:eu-west-1:1:q", false},
		{"", "", false},
	} {
		if got := GlobMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("GlobMatch(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}
