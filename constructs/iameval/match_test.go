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

// globOracle is IAM's "*" and "?" matching written the plain recursive way,
// the independent oracle of FuzzGlobMatch.
func globOracle(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '*':
		return globOracle(p[1:], s) || s != "" && globOracle(p, s[1:])
	case '?':
		return s != "" && globOracle(p[1:], s[1:])
	}
	return s != "" && p[0] == s[0] && globOracle(p[1:], s[1:])
}

// FuzzGlobMatch: GlobMatch agrees with the recursive oracle on every
// pattern and string (an empty pattern matches nothing).
func FuzzGlobMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"sqs:*", "sqs:SendMessage"}, {"sqs:Send?essage", "sqs:SendMessage"}, {"a*b*c", "aXbYc"}, {"abc", "abd"},
		{"ab", "abc"}, {"abc", "ab"}, {"a?", "a"}, {"*", ""}, {"arn:aws:iam::*:role/erasure/*", "arn:aws:iam::1:role/erasure/h"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 24 || len(s) > 24 {
			return // the oracle is exponential
		}
		want := pattern != "" && globOracle(pattern, s)
		if got := GlobMatch(pattern, s); got != want {
			t.Fatalf("GlobMatch(%q, %q) = %v, the oracle says %v", pattern, s, got, want)
		}
	})
}
