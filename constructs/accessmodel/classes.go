package accessmodel

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Accounts by their standing towards one resource's policy.
//
// A witness of an account (any other principal of it, its administrators,
// SNS for another topic of it, a service acting for it) is asked of every
// resource. Two accounts that the resource's policy and the channel's needs
// cannot tell apart decide alike: swapping their ids maps every statement
// onto itself. So a resource asks the witnesses of one account of each
// class, and the class is drawn from the policy itself:
//
//   - whether the account is the resource's own (same-account access needs
//     only one side's grant), whether it is on the roster (the channel
//     admits its handler path) and whether it is in the organisation the
//     channel admits instead (aws:PrincipalOrgID);
//   - every place the policy or its administrators' patterns write the
//     account's id, with the value that writes it (the id taken out), so
//     that two accounts listed side by side in one condition are one
//     class, and an account named in an ARN of its own is its own;
//   - every account pattern of the policy (an account field or a bare
//     value with a wildcard other than "*"), matched or not.
//
// With 200 roster accounts that a store's queue names only as "the
// channel's" and "its own", the queue asks four accounts' witnesses, not
// 201; the roster's shared policies list the roster accounts in one
// condition, and ask one of them besides the channel's.

// accountClasses maps each of accounts to the account that stands for its
// class towards t: the first of the class in accounts' order.
func (m *Matrix) accountClasses(t *Target, accounts []string) map[string]string {
	mentions := map[string][]string{}
	var globs []string
	site := func(where string, v string) {
		for _, acct := range accountIDsIn(v) {
			mentions[acct] = append(mentions[acct], where+"\x00"+strings.ReplaceAll(v, acct, "\x01"))
		}
		if g := accountGlob(v); g != "" {
			globs = append(globs, g)
		}
	}
	for i, s := range t.Policy {
		where := string(rune('a'+i%26)) + strings.Repeat("'", i/26)
		aws, _ := s.PrincipalValues()
		for _, v := range aws {
			site(where+"/principal", v)
		}
		for op, block := range s.Condition {
			bm, _ := block.(map[string]any)
			for key, vals := range bm {
				for _, v := range iameval.ListOf(vals) {
					site(where+"/"+op+"/"+strings.ToLower(key), s.Render(v))
				}
			}
		}
	}
	for _, adm := range t.Admins {
		site("admins", adm)
	}
	globs = cfnmodel.UniqueSorted(globs)
	rep := make(map[string]string, len(accounts))
	first := map[string]string{}
	var b strings.Builder
	for _, acct := range accounts {
		if _, done := rep[acct]; done {
			continue
		}
		b.Reset()
		b.WriteByte(bit(acct == t.Account))
		b.WriteByte(bit(m.decl.RosterAccounts[acct]))
		b.WriteByte(bit(m.ctx.Organisation.InOrganisation(acct)))
		b.WriteByte(bit(acct == ""))
		for _, g := range globs {
			b.WriteByte(bit(iameval.GlobMatch(g, acct)))
		}
		for _, s := range cfnmodel.UniqueSorted(mentions[acct]) {
			b.WriteString("\x02" + s)
		}
		sig := b.String()
		if r, ok := first[sig]; ok {
			rep[acct] = r
			continue
		}
		first[sig], rep[acct] = acct, acct
	}
	return rep
}

func bit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// accountIDsIn are the account ids (runs of exactly 12 digits) v writes.
func accountIDsIn(v string) []string {
	var out []string
	for i := 0; i < len(v); {
		if v[i] < '0' || v[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		if j-i == 12 {
			out = append(out, v[i:j])
		}
		i = j
	}
	return out
}

// accountGlob is the account pattern v holds, "" when none: an ARN's account
// field, or a bare value, with a wildcard that is not the whole of it ("*"
// matches every account alike).
func accountGlob(v string) string {
	if !strings.ContainsAny(v, "*?") {
		return ""
	}
	g := v
	if strings.HasPrefix(v, "arn:") {
		f := strings.SplitN(v, ":", 6)
		if len(f) < 5 {
			return ""
		}
		g = f[4]
	} else if strings.ContainsAny(v, ":/") {
		return ""
	}
	if !strings.ContainsAny(g, "*?") || strings.Trim(g, "*") == "" {
		return ""
	}
	return g
}
