package iameval

import "strings"

// GlobMatch matches an IAM resource or action pattern against s: "*" is any
// run of characters (colons and slashes included) and "?" any one character;
// nothing else is special ("[" is a character like any other).
func GlobMatch(pattern, s string) bool {
	if pattern == "" {
		return false
	}
	if strings.IndexByte(pattern, '*') < 0 && strings.IndexByte(pattern, '?') < 0 {
		return pattern == s
	}
	// Iterative wildcard matching with one backtrack point.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p, i = p+1, i+1
		case star >= 0:
			p, mark = star+1, mark+1
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// ARNMatch matches an ARN pattern against an ARN as IAM's Arn* condition
// operators do: the six colon-separated fields one by one (the last may hold
// colons), each with "*" and "?" wildcards that stay within the field. A
// value that is not an ARN (a reference to a resource) is matched whole.
func ARNMatch(pattern, s string) bool {
	if !strings.HasPrefix(pattern, "arn:") || !strings.HasPrefix(s, "arn:") {
		return GlobMatch(pattern, s) // a reference to a resource of the app
	}
	for i := 0; i < 6; i++ {
		pf, prest, pok := nextField(pattern, i)
		sf, srest, sok := nextField(s, i)
		if !pok || !sok {
			return false // not an ARN: IAM matches nothing
		}
		if pf != sf && !GlobMatch(pf, sf) {
			return false
		}
		pattern, s = prest, srest
	}
	return true
}

// nextField splits off an ARN's field i of six (the last keeps its colons).
func nextField(s string, i int) (field, rest string, ok bool) {
	if i == 5 {
		return s, "", true
	}
	j := strings.IndexByte(s, ':')
	if j < 0 {
		return "", "", false
	}
	return s[:j], s[j+1:], true
}

// ARNsMeet says whether a and b can name the same resource: equal, or ARNs
// of which either is a pattern over an account or region a plain template
// leaves unknown (arn:aws:sqs:*:*:name) that the other matches.
func ARNsMeet(a, b string) bool {
	if a == b {
		return a != ""
	}
	return strings.HasPrefix(a, "arn:") && strings.HasPrefix(b, "arn:") && (ARNMatch(a, b) || ARNMatch(b, a))
}

// arnMatchAny is ARNMatch, either way round when the value is itself a
// pattern (a plain template's unknown account or region).
func arnMatchAny(pattern, s string) bool {
	return ARNMatch(pattern, s) || strings.Contains(s, "*") && ARNMatch(s, pattern)
}

// CoversAny says whether a statement resource pattern names one of targets.
// A target that is itself a pattern (a plain template's unknown account or
// region) is met by a resource it could be.
func CoversAny(pattern string, targets []string) bool {
	for _, t := range targets {
		if GlobMatch(pattern, t) || strings.IndexByte(t, '*') >= 0 && GlobMatch(t, pattern) {
			return true
		}
	}
	return false
}

// ARNAccount is the account field of an ARN, "" if s is not one.
func ARNAccount(s string) string {
	f := strings.SplitN(s, ":", 6)
	if len(f) < 6 || f[0] != "arn" {
		return ""
	}
	return f[4]
}

// ARNRegion is the region field of an ARN, "" if s is not one.
func ARNRegion(s string) string {
	f := strings.SplitN(s, ":", 6)
	if len(f) < 6 || f[0] != "arn" {
		return ""
	}
	return f[3]
}
