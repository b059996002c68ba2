package accessmodel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// findPrincipals derives the principal classes from the policies.
func (m *Matrix) findPrincipals(roles []*Principal) {
	region := m.ctx.Region
	org := &m.ctx.Organisation
	m.addAppPrincipals(roles)
	accounts, services, patterns := m.mentions()
	delete(accounts, "")
	accountList := cfnmodel.SortedKeys(accounts)
	if m.agnostic() {
		// Environment-agnostic stacks deploy to one account, unknown at synth.
		accountList = append([]string{""}, accountList...)
	}
	fresh := FreshAccount(accounts)
	// The unnamed account first: it stands for every account a resource's
	// policy does not tell from it (accountClasses).
	m.witnessAccounts = append([]string{fresh}, accountList...)
	// A channel that admits an organisation: an account of it that nothing
	// of the app names (in the organisation, off the roster) besides the
	// unnamed one (outside it). Both take the handler path's patterns.
	unnamed := []string{fresh}
	var patternExtra []string
	if org.ID != "" {
		accounts[fresh] = true
		org.witness = FreshAccount(accounts)
		delete(accounts, fresh)
		m.witnessAccounts = append([]string{fresh, org.witness}, accountList...)
		unnamed = []string{org.witness, fresh}
		patternExtra = unnamed
	}
	known := m.knownARNs()
	// Any other principal of each account, and of an account nobody names.
	labelOf := func(acct string) string {
		switch {
		case acct == fresh:
			return anyAccountLabel
		case acct == org.witness:
			return orgAccountLabel
		}
		return acct
	}
	for _, acct := range append(append([]string{}, accountList...), unnamed...) {
		label := labelOf(acct)
		arn := witnessARN("arn:aws:iam::"+iameval.OrStar(acct)+":role/erasure-witness", patterns, known)
		m.addPrincipal(&Principal{Name: otherPrincipal + orLabel(label), Class: ClassOther, Principal: iameval.Principal{Account: acct, Aliases: []string{arn}, Identity: m.everything}})
		// The account's root user, and a federated user of it: principals a
		// lock can name (or forget) that are no role. Both may do anything
		// their account allows, and the channel needs nothing of them.
		m.addPrincipal(&Principal{Name: rootPrincipal + orLabel(label), Class: ClassRoot, Principal: iameval.Principal{Account: acct,
			Aliases: []string{"arn:aws:iam::" + iameval.OrStar(acct) + ":root"}, Identity: m.everything}})
		m.addPrincipal(&Principal{Name: federatedPrincipal + orLabel(label), Class: ClassFederated, Principal: iameval.Principal{Account: acct,
			Aliases: []string{"arn:aws:sts::" + iameval.OrStar(acct) + ":federated-user/erasure-witness"}, Identity: m.everything}})
		m.addPrincipal(witnessTopicSNS(otherTopicSNSName+orLabel(label), acct, region))
		for _, svc := range cfnmodel.SortedKeys(services) {
			if svc == "sns.amazonaws.com" {
				continue
			}
			prefix, _, _ := strings.Cut(svc, ".")
			m.addPrincipal(&Principal{Name: servicePrincipal + svc + "/" + orLabel(label), Class: ClassService, Principal: iameval.Principal{Service: svc, Account: acct, Aliases: []string{fmt.Sprintf("arn:aws:%s:%s:%s:erasure-witness", prefix, region, iameval.OrStar(acct))}, Region: region}})
		}
	}
	m.addPatternWitnesses(patterns, append(append([]string{}, accountList...), patternExtra...), known, labelOf)
	m.addPrincipal(SNSFor(ErasureTopicSNS, ClassTopicSNS, m.topicIdents, m.channelAccount, m.channelRegion))
}

// addAppPrincipals adds the app's roles, handlers first under their store's
// name, and the declared principals, granted outside the app.
func (m *Matrix) addAppPrincipals(roles []*Principal) {
	for _, name := range cfnmodel.SortedKeys(m.handlers) {
		p := m.handlers[name]
		p.Name, p.Class = handlerPrincipal+name, ClassHandler
		m.addPrincipal(p)
	}
	for _, p := range roles {
		p.Class = ClassRole
		m.addPrincipal(p)
	}
	// The declared principals, granted outside the app: their identity lets
	// them do anything, so that only the resource policies decide.
	for i, arn := range cfnmodel.UniqueSorted(append(append([]string{}, m.decl.Publishers...), m.decl.Readers...)) {
		name := fmt.Sprintf("declared/%d", i+1)
		if len(m.decl.Publishers) > 0 && arn == m.decl.Publishers[0] {
			name = AccountServicePrincipal
		}
		m.addPrincipal(&Principal{Name: name, Class: ClassDeclared, Principal: iameval.Principal{Account: iameval.ARNAccount(arn), Aliases: []string{arn}, Identity: m.everything}})
	}
}

// mentions are the accounts, services and principal patterns the targets'
// policies and the principals name.
func (m *Matrix) mentions() (accounts, services map[string]bool, patterns []string) {
	accounts = map[string]bool{m.channelAccount: true}
	services = map[string]bool{"sns.amazonaws.com": true, "events.amazonaws.com": true}
	note := func(v string) {
		switch {
		case v == "" || v == "*":
		case strings.HasPrefix(v, "arn:"):
			if acct := iameval.ARNAccount(v); acct != "" && acct != "*" && !strings.ContainsAny(acct, "*?") {
				accounts[acct] = true
			}
			// A pattern draws a region only through its resource part: a
			// wildcard partition, account or region is an unknown of an
			// environment-agnostic stack, not a set of principals.
			if f := strings.SplitN(v, ":", 6); len(f) == 6 && f[2] == "iam" && strings.ContainsAny(f[5], "*?") {
				patterns = append(patterns, v)
			}
		case len(v) == 12 && isDigits(v):
			accounts[v] = true
		}
	}
	for _, name := range m.order {
		t := m.targets[name]
		accounts[t.Account] = true
		for _, s := range t.Policy {
			aws, svcs := s.PrincipalValues()
			for _, sv := range svcs {
				services[sv] = true
			}
			for _, k := range []string{"aws:PrincipalArn", "aws:PrincipalAccount", "aws:SourceAccount"} {
				aws = append(aws, s.ConditionValues(k)...)
			}
			for _, v := range aws {
				note(v)
			}
			// An endpoint a condition names draws its account: a queue of
			// it is a class of endpoint, whoever subscribes it.
			for _, v := range s.ConditionValues("sns:Endpoint") {
				if acct := iameval.ARNAccount(v); len(acct) == 12 && isDigits(acct) {
					accounts[acct] = true
					m.endpointAccounts[acct] = true
				}
			}
		}
		for _, adm := range t.Admins {
			patterns = append(patterns, adm)
		}
	}
	for _, p := range m.principals {
		note(p.Account)
	}
	return accounts, services, patterns
}

// addPatternWitnesses adds a witness for each region a pattern draws (the
// administrators', and any other pattern's), in each of accounts it may be
// of.
func (m *Matrix) addPatternWitnesses(patterns, accounts []string, known map[string]bool, labelOf func(string) string) {
	seen := map[string]bool{}
	ordered := cfnmodel.UniqueSorted(patterns)
	// A pattern of one account before a pattern of any: admin/<account> is
	// the administrator that account's own resources declare.
	sort.SliceStable(ordered, func(i, j int) bool { return !anyAccountARN(ordered[i]) && anyAccountARN(ordered[j]) })
	for _, pat := range ordered {
		f := strings.SplitN(pat, ":", 6)
		if len(f) != 6 || !strings.ContainsAny(f[5], "*?") {
			continue
		}
		for _, a := range patternAccounts(f[4], accounts, m.agnostic()) {
			inst := Instantiate("arn:aws:iam::"+iameval.OrStar(a)+":"+f[5], known)
			if inst == "" || seen[inst] {
				continue
			}
			seen[inst] = true
			class, name := ClassPattern, patternPrincipal+orLabel(labelOf(a))+"/"+inst[strings.LastIndex(inst, "/")+1:]
			if m.isAdministratorARN(inst, a) {
				class, name = ClassAdmin, adminPrincipal+orLabel(labelOf(a))
				if m.principals[name] != nil {
					name += "/" + inst[strings.LastIndex(inst, "/")+1:]
				}
			}
			m.addPrincipal(&Principal{Name: name, Class: class, Principal: iameval.Principal{Account: a, Aliases: []string{inst}, Identity: m.everything}})
		}
	}
}

// anyAccountARN says whether an ARN pattern's account field is a wildcard.
func anyAccountARN(arn string) bool {
	f := strings.SplitN(arn, ":", 6)
	return len(f) == 6 && strings.ContainsAny(f[4], "*?")
}

// agnostic says whether the channel's resources are in environment-agnostic
// stacks (account unknown at synth).
func (m *Matrix) agnostic() bool {
	for _, name := range m.order {
		if m.targets[name].Account == "" {
			return true
		}
	}
	return false
}

func orLabel(acct string) string {
	if acct == "" {
		return "this-account"
	}
	return acct
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// FreshAccount is an account id no policy names.
func FreshAccount(accounts map[string]bool) string {
	for n := 999999999999; ; n-- {
		s := fmt.Sprint(n)
		if !accounts[s] {
			return s
		}
	}
}

// patternAccounts are the accounts a pattern's account field covers. In an
// environment-agnostic app (its stacks' account unknown), a wildcard
// account is the stacks' own ${AWS::AccountId}: the app is taken to deploy
// to one account.
func patternAccounts(acct string, accounts []string, agnostic bool) []string {
	if !strings.ContainsAny(acct, "*?") {
		return []string{acct}
	}
	if agnostic {
		return []string{""}
	}
	var out []string
	for _, a := range accounts {
		if iameval.GlobMatch(acct, iameval.OrStar(a)) {
			out = append(out, a)
		}
	}
	return out
}

// Instantiate turns an ARN pattern into a principal in its region that is
// no known principal: each wildcard becomes a fresh name.
func Instantiate(pattern string, known map[string]bool) string {
	prefix, res := pattern[:strings.LastIndex(pattern, ":")+1], pattern[strings.LastIndex(pattern, ":")+1:]
	for _, fill := range []string{"w", "witness", "erasure-witness-x"} {
		arn := prefix + strings.NewReplacer("*", fill, "?", "w").Replace(res)
		if !known[arn] {
			return arn
		}
	}
	return ""
}

// witnessARN is base, changed until it matches none of the patterns and is
// no known principal.
func witnessARN(base string, patterns []string, known map[string]bool) string {
	for i := 0; ; i++ {
		arn := base
		if i > 0 {
			arn = fmt.Sprintf("%s-%d", base, i)
		}
		hit := known[arn]
		for _, p := range patterns {
			hit = hit || iameval.GlobMatch(p, arn)
		}
		if !hit || i > 20 {
			return arn
		}
	}
}

// knownARNs are the literal ARNs of every principal found so far.
func (m *Matrix) knownARNs() map[string]bool {
	out := map[string]bool{}
	for _, p := range m.principals {
		for _, al := range p.Aliases {
			out[al] = true
		}
	}
	return out
}

func (m *Matrix) addPrincipal(p *Principal) {
	m.principals[p.Name] = p
	m.principalOrder = append(m.principalOrder, p.Name)
}

// principalsNamedBy is every exact principal ARN or reference t's policy
// names (Principal, NotPrincipal, aws:PrincipalArn), and every pattern.
func principalsNamedBy(t *Target) (exact map[string]bool, patterns []string) {
	exact = map[string]bool{}
	for _, s := range t.Policy {
		aws, _ := s.PrincipalValues()
		for _, id := range append(aws, s.ConditionValues("aws:PrincipalArn")...) {
			switch {
			case id == "" || id == "*":
			case strings.ContainsAny(id, "*?"):
				patterns = append(patterns, id)
			default:
				exact[id] = true
			}
		}
	}
	for _, adm := range t.Admins {
		patterns = append(patterns, adm)
	}
	return exact, cfnmodel.UniqueSorted(patterns)
}
