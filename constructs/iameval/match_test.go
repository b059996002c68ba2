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

// TestARNsMeet: two names of one resource, either a pattern over an
// account or region a plain template leaves unknown.
func TestARNsMeet(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"arn:aws:sqs:eu-west-1:111111111111:q", "arn:aws:sqs:eu-west-1:111111111111:q", true},
		{"arn:aws:sqs:*:*:q", "arn:aws:sqs:eu-west-1:111111111111:q", true},
		{"arn:aws:sqs:eu-west-1:111111111111:q", "arn:aws:sqs:*:*:q", true},
		{"arn:aws:sqs:*:*:q", "arn:aws:sqs:eu-west-1:111111111111:other", false},
		{"res:a#Q", "res:a#Q", true},
		{"res:a#Q", "res:a#*", false},
		{"", "", false},
	} {
		if got := ARNsMeet(tc.a, tc.b); got != tc.want {
			t.Errorf("ARNsMeet(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
