// The access model's principals: the app's roles and handlers, the declared
// principals, and the witnesses of every account, service and pattern the
// policies name (one of each class), with the index of who reaches what.

package erasurecheck

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// findPrincipals derives the principal classes from the policies.
func (m *AccessMatrix) findPrincipals(stores []Store) {
	a := m.a
	region := a.Region()
	m.addAppPrincipals()
	accounts, services, patterns := m.mentions()
	delete(accounts, "")
	accountList := cfnmodel.SortedKeys(accounts)
	if m.agnostic() {
		// Environment-agnostic stacks deploy to one account, unknown at synth.
		accountList = append([]string{""}, accountList...)
	}
	fresh := freshAccount(accounts)
	// The unnamed account first: it stands for every account a resource's
	// policy does not tell from it (accountClasses).
	m.witnessAccounts = append([]string{fresh}, accountList...)
	// A channel that admits an organisation: an account of it that nothing
	// of the app names (in the organisation, off the roster) besides the
	// unnamed one (outside it). Both take the handler path's patterns.
	unnamed := []string{fresh}
	var patternExtra []string
	if org := a.organisation(); org.id != "" {
		accounts[fresh] = true
		org.witness = freshAccount(accounts)
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
		case acct == a.organisation().witness:
			return orgAccountLabel
		}
		return acct
	}
	for _, acct := range append(append([]string{}, accountList...), unnamed...) {
		label := labelOf(acct)
		arn := witnessARN("arn:aws:iam::"+iameval.OrStar(acct)+":role/erasure-witness", patterns, known)
		m.addPrincipal(&principal{name: otherPrincipal + orLabel(label), class: classOther, Principal: iameval.Principal{Account: acct, Aliases: []string{arn}, Identity: m.everything}})
		// The account's root user, and a federated user of it: principals a
		// lock can name (or forget) that are no role. Both may do anything
		// their account allows, and the channel needs nothing of them.
		m.addPrincipal(&principal{name: rootPrincipal + orLabel(label), class: classRoot, Principal: iameval.Principal{Account: acct,
			Aliases: []string{"arn:aws:iam::" + iameval.OrStar(acct) + ":root"}, Identity: m.everything}})
		m.addPrincipal(&principal{name: federatedPrincipal + orLabel(label), class: classFederated, Principal: iameval.Principal{Account: acct,
			Aliases: []string{"arn:aws:sts::" + iameval.OrStar(acct) + ":federated-user/erasure-witness"}, Identity: m.everything}})
		m.addPrincipal(witnessTopicSNS(otherTopicSNSName+orLabel(label), acct, region))
		for _, svc := range cfnmodel.SortedKeys(services) {
			if svc == "sns.amazonaws.com" {
				continue
			}
			prefix, _, _ := strings.Cut(svc, ".")
			m.addPrincipal(&principal{name: servicePrincipal + svc + "/" + orLabel(label), class: classService, Principal: iameval.Principal{Service: svc, Account: acct, Aliases: []string{fmt.Sprintf("arn:aws:%s:%s:%s:erasure-witness", prefix, region, iameval.OrStar(acct))}, Region: region}})
		}
	}
	m.addPatternWitnesses(patterns, append(append([]string{}, accountList...), patternExtra...), known, labelOf)
	m.addPrincipal(snsFor(ErasureTopicSNS, classTopicSNS, m.topicIdents, m.channelAccount, m.channelRegion))
}

// addAppPrincipals adds the app's roles, handlers first under their store's
// name, and the declared principals, granted outside the app.
func (m *AccessMatrix) addAppPrincipals() {
	a := m.a
	byAlias := map[string]*principal{}
	for name, p := range m.handlers {
		p.name, p.class = handlerPrincipal+name, classHandler
		m.addPrincipal(p)
		for _, al := range p.Aliases {
			byAlias[al] = p
		}
	}
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if t.Resources[id].Type != "AWS::IAM::Role" {
				continue
			}
			if byAlias[cfnmodel.ResIdent(t, id)] != nil {
				continue
			}
			p := a.rolePrincipal(t, cfnmodel.GetAtt(id, "Arn"))
			p.name, p.class = "role/"+t.Stack+"/"+id, classRole
			m.addPrincipal(p)
		}
	}
	// The declared principals, granted outside the app: their identity lets
	// them do anything, so that only the resource policies decide.
	for i, arn := range cfnmodel.UniqueSorted(append(append([]string{}, m.decl.publishers...), m.decl.readers...)) {
		name := fmt.Sprintf("declared/%d", i+1)
		if len(m.decl.publishers) > 0 && arn == m.decl.publishers[0] {
			name = AccountServicePrincipal
		}
		m.addPrincipal(&principal{name: name, class: classDeclared, Principal: iameval.Principal{Account: iameval.ARNAccount(arn), Aliases: []string{arn}, Identity: m.everything}})
	}
}

// mentions are the accounts, services and principal patterns the targets'
// policies and the principals name.
func (m *AccessMatrix) mentions() (accounts, services map[string]bool, patterns []string) {
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
		for _, adm := range t.admins {
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
func (m *AccessMatrix) addPatternWitnesses(patterns, accounts []string, known map[string]bool, labelOf func(string) string) {
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
			inst := instantiate("arn:aws:iam::"+iameval.OrStar(a)+":"+f[5], known)
			if inst == "" || seen[inst] {
				continue
			}
			seen[inst] = true
			class, name := classPattern, patternPrincipal+orLabel(labelOf(a))+"/"+inst[strings.LastIndex(inst, "/")+1:]
			if m.isAdministratorARN(inst, a) {
				class, name = classAdmin, adminPrincipal+orLabel(labelOf(a))
				if m.principals[name] != nil {
					name += "/" + inst[strings.LastIndex(inst, "/")+1:]
				}
			}
			m.addPrincipal(&principal{name: name, class: class, Principal: iameval.Principal{Account: a, Aliases: []string{inst}, Identity: m.everything}})
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
func (m *AccessMatrix) agnostic() bool {
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

// freshAccount is an account id no policy names.
func freshAccount(accounts map[string]bool) string {
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

// instantiate turns an ARN pattern into a principal in its region that is
// no known principal: each wildcard becomes a fresh name.
func instantiate(pattern string, known map[string]bool) string {
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
func (m *AccessMatrix) knownARNs() map[string]bool {
	out := map[string]bool{}
	for _, p := range m.principals {
		for _, al := range p.Aliases {
			out[al] = true
		}
	}
	return out
}

func (m *AccessMatrix) addPrincipal(p *principal) {
	m.principals[p.name] = p
	m.principalOrder = append(m.principalOrder, p.name)
}

// isAdministratorARN says whether arn is one of the declared administrators
// of some resource of account.
func (m *AccessMatrix) isAdministratorARN(arn, account string) bool {
	for _, name := range m.order {
		t := m.targets[name]
		if t.Account != account {
			continue
		}
		for _, adm := range t.admins {
			if iameval.GlobMatch(adm, arn) {
				return true
			}
		}
	}
	return false
}

// isAdmin says whether p administers t: one of t's administrator patterns
// names it, in t's own account.
func (m *AccessMatrix) isAdmin(p *principal, t *target) bool {
	if p.Service != "" || p.Account != t.Account {
		return false
	}
	for _, adm := range t.admins {
		if iameval.CoversAny(adm, p.Aliases) {
			return true
		}
	}
	return false
}

func (m *AccessMatrix) isDeclared(p *principal, list []string) bool {
	if p.Service != "" {
		return false
	}
	for _, d := range list {
		if slices.Contains(p.Aliases, d) {
			return true
		}
	}
	return false
}

func (m *AccessMatrix) isHandler(p *principal, store string) bool {
	h := m.handlers[store]
	return h != nil && p == h
}

func (m *AccessMatrix) isRosterHandler(p *principal) bool {
	for s := range m.decl.roster {
		if m.isHandler(p, s) {
			return true
		}
	}
	return m.onHandlerPath(p)
}

// onHandlerPath says whether p is a role under the handler path
// (contract.HandlerRolePath) of a roster account: the channel's shared
// policies admit every such role, and the response reader authenticates each
// answer by its store's exact role id, refusing (and alarming on) the rest.
func (m *AccessMatrix) onHandlerPath(p *principal) bool {
	if p.Service != "" || !m.admitsAccount(p.Account) {
		return false
	}
	return iameval.CoversAny(contract.HandlerRolePattern("*", iameval.OrStar(p.Account)), p.Aliases)
}

// admitsAccount says whether the channel's shared policies admit the
// handler path of account: a roster account, or, for a channel that admits
// its organisation, any account of it but the channel's own without a store.
func (m *AccessMatrix) admitsAccount(account string) bool {
	if m.decl.rosterAccounts[account] {
		return true
	}
	org := m.a.organisation()
	return org.id != "" && account != m.channelAccount && org.inOrganisation(account)
}

// principalsNamedBy is every exact principal ARN or reference t's policy
// names (Principal, NotPrincipal, aws:PrincipalArn), and every pattern.
func (a *assembly) principalsNamedBy(t *target) (exact map[string]bool, patterns []string) {
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
	for _, adm := range t.admins {
		patterns = append(patterns, adm)
	}
	return exact, cfnmodel.UniqueSorted(patterns)
}

// identityCover indexes which targets each role's identity statements reach.
type identityCover struct {
	exact   map[string][]*principal // resource alias -> roles with a statement naming it
	exactOf map[*principal][]string // role -> the exact resources its statements name
	pattern map[*principal][]coverPattern
	covered map[string]map[*principal]bool // a target's pattern alias -> the roles naming an ARN it covers, once
}

type coverPattern struct{ pattern, prefix string }

func (m *AccessMatrix) identityIndex() *identityCover {
	c := &identityCover{exact: map[string][]*principal{}, exactOf: map[*principal][]string{}, pattern: map[*principal][]coverPattern{}, covered: map[string]map[*principal]bool{}}
	for _, name := range m.principalOrder {
		p := m.principals[name]
		if p.class != classHandler && p.class != classRole {
			continue
		}
		for _, s := range p.Identity {
			if s.NotResource != nil {
				c.pattern[p] = append(c.pattern[p], coverPattern{pattern: "*"})
				continue
			}
			for _, r := range iameval.ListOf(s.Resource) {
				pat := s.Render(r)
				if pat == "" {
					continue
				}
				if i := strings.IndexAny(pat, "*?"); i >= 0 {
					c.pattern[p] = append(c.pattern[p], coverPattern{pattern: pat, prefix: pat[:i]})
				} else {
					c.exact[pat] = append(c.exact[pat], p)
					c.exactOf[p] = append(c.exactOf[p], pat)
				}
			}
		}
	}
	return c
}

// reachedBy is every role a statement of which names t exactly: reaches'
// first question, asked once for all roles.
func (c *identityCover) reachedBy(t *target) map[*principal]bool {
	out := map[*principal]bool{}
	for _, al := range t.Aliases {
		for _, q := range c.exact[al] {
			out[q] = true
		}
	}
	return out
}

// patternReaches is reaches by a pattern: t's or one of p's statements'.
func (c *identityCover) patternReaches(p *principal, t *target) bool {
	for _, al := range t.Aliases {
		if !strings.ContainsAny(al, "*?") {
			continue
		}
		// A target known only by a pattern (another app's key of the
		// response queue's account and region) is reached by an exact ARN
		// the pattern covers.
		covered, ok := c.covered[al]
		if !ok {
			covered = map[*principal]bool{}
			for q, exact := range c.exactOf {
				if iameval.CoversAny(al, exact) {
					covered[q] = true
				}
			}
			c.covered[al] = covered
		}
		if covered[p] {
			return true
		}
	}
	for _, cp := range c.pattern[p] {
		for _, al := range t.Aliases {
			if strings.HasPrefix(al, cp.prefix) && iameval.CoversAny(cp.pattern, []string{al}) || strings.Contains(al, "*") && iameval.CoversAny(cp.pattern, []string{al}) {
				return true
			}
		}
	}
	return false
}
