// The access model's evaluation: each target's principals chosen (one
// witness of each class, every role that reaches it), then every cell asked
// of the evaluator, again without TLS and of a key directly where that
// matters.

package accessmodel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// evaluateAll decides every class against every action of every resource.
func (m *Matrix) evaluateAll() {
	k := m.askers()
	// Every target's candidates first, so that the cells are allocated once.
	asks := make([]targetAsk, len(m.order))
	cells := 0
	for ti, tname := range m.order {
		var n int
		asks[ti], n = m.planTarget(k, m.targets[tname])
		cells += n
	}
	m.Cells = make([]Cell, 0, len(m.Cells)+cells)
	for ti, tname := range m.order {
		m.askTarget(m.targets[tname], asks[ti])
	}
}

// askers are the principals evaluateAll asks of every target: the app's
// roles (indexed by alias, a handler by its store) and the witnesses, with
// the identity index and the pattern signatures targets share.
type askers struct {
	roles, witnesses []*Principal
	rolesByAlias     map[string][]*Principal
	storeOf          map[*Principal]string
	// signatures are, by a target's list of principal patterns, which of
	// them cover each principal.
	signatures map[string]map[*Principal]string
	cover      *identityCover
}

func (m *Matrix) askers() *askers {
	k := &askers{rolesByAlias: map[string][]*Principal{}, storeOf: map[*Principal]string{}, signatures: map[string]map[*Principal]string{}, cover: m.identityIndex()}
	for _, name := range m.principalOrder {
		p := m.principals[name]
		if p.Class == ClassHandler || p.Class == ClassRole {
			k.roles = append(k.roles, p)
		} else {
			k.witnesses = append(k.witnesses, p)
		}
	}
	for _, r := range k.roles {
		for _, al := range r.Aliases {
			k.rolesByAlias[al] = append(k.rolesByAlias[al], r)
		}
	}
	for name, h := range m.handlers {
		k.storeOf[h] = name
	}
	return k
}

// targetAsk is what evaluateAll asks of one target: the principals, the
// endpoints a subscription to it names, whether each cell is asked again
// without TLS (plain) and of a key directly (direct), and, for a topic,
// which endpoints each principal asks.
type targetAsk struct {
	candidates    []*Principal
	endpoints     []*endpoint
	plain, direct bool
	asks          func(*Principal, *endpoint) bool
}

// planTarget chooses the principals asked of t and returns them with the
// number of cells they make.
func (m *Matrix) planTarget(k *askers, t *Target) (targetAsk, int) {
	ta := targetAsk{plain: m.only == nil && m.tlsOnly(t), direct: m.only == nil && t.Kind.IsKey() && t.Via != ""}
	cells := 0
	exact, pats := principalsNamedBy(t)
	type standing struct {
		account string
		sig     string
	}
	represented := map[standing]bool{}
	// Which of pats cover a principal, remembered by the list of pats
	// (most targets' policies name the same patterns).
	patsKey := strings.Join(pats, "\x00")
	sigs := k.signatures[patsKey]
	if sigs == nil {
		sigs = map[*Principal]string{}
		k.signatures[patsKey] = sigs
	}
	signature := func(p *Principal) string {
		if len(pats) == 0 {
			return ""
		}
		if s, ok := sigs[p]; ok {
			return s
		}
		var b strings.Builder
		for i, pat := range pats {
			if iameval.CoversAny(pat, p.Aliases) {
				fmt.Fprintf(&b, "%d,", i)
			}
		}
		sigs[p] = b.String()
		return sigs[p]
	}
	// The witnesses of one account of each class towards t.
	rep := map[string]string{}
	if !m.everyAccount {
		rep = m.accountClasses(t, m.witnessAccounts)
	}
	standsFor := func(acct string) string {
		if r, ok := rep[acct]; ok {
			return r
		}
		return acct
	}
	// Of each kind of witness, the first of each class's accounts.
	groups := map[string][]*Principal{}
	var candidates []*Principal
	for _, w := range k.witnesses {
		if accountWitness[w.Class] {
			g := standsFor(w.Account) + "\x00" + witnessKind(w)
			groups[g] = append(groups[g], w)
			if len(groups[g]) > 1 {
				continue
			}
		}
		candidates = append(candidates, w)
		if w.Service == "" && w.Class != ClassDeclared {
			represented[standing{standsFor(w.Account), signature(w)}] = true
		}
	}
	// The roles t's policy names and those whose own statements reach t,
	// found from t's side: asking every role of the app of every target
	// was the check's quadratic term.
	asked := k.cover.reachedBy(t)
	for al := range exact {
		for _, r := range k.rolesByAlias[al] {
			asked[r] = true
		}
	}
	for _, r := range k.roles {
		// A handler the path needs here is always asked itself: a grant
		// it lost must fail its own cell, not pass as its witness's.
		needed := r.Class == ClassHandler && (t.Kind == channelpolicy.ResponseQueue || t.Kind == channelpolicy.ResponseKey || t.Store != "" && k.storeOf[r] == t.Store)
		if asked[r] || needed || k.cover.patternReaches(r, t) || !represented[standing{standsFor(r.Account), signature(r)}] {
			candidates = append(candidates, r)
		}
	}
	ta.candidates = candidates
	for _, action := range channelpolicy.Catalogue[t.Kind] {
		switch {
		case m.only != nil && !m.only(t.Kind, action):
		case action == "sns:Subscribe":
			ta.endpoints = m.endpoints(standsFor, candidates)
			// A subscription names a second resource, its endpoint, of
			// one account: of each kind of witness, one of the endpoint's
			// own account and one of another account of its class.
			subscribers := newSubscriberClasses(groups, standsFor)
			asked := map[*Principal]bool{}
			for _, p := range candidates {
				asked[p] = true
			}
			for _, e := range ta.endpoints {
				for _, p := range subscribers.extra(e) {
					if !asked[p] {
						asked[p] = true
						candidates = append(candidates, p)
					}
				}
			}
			// Each endpoint asks every role and witness of no account,
			// and at most two witnesses of each group.
			cells += (len(ta.candidates) + len(groups)) * len(ta.endpoints)
			ta.candidates, ta.asks = candidates, subscribers.asks
		default:
			cells += len(candidates)
			if ta.plain {
				cells += len(candidates)
			}
			if ta.direct && slices.Contains(channelpolicy.KeyUse, action) {
				cells += len(candidates)
			}
		}
	}
	return ta, cells
}

// askTarget adds every cell of t that ta asks.
func (m *Matrix) askTarget(t *Target, ta targetAsk) {
	for _, p := range ta.candidates {
		base := m.ctx.Request(p, "", t)
		plain, direct := base, base
		if ta.direct {
			direct = base.Direct()
		}
		if ta.plain {
			plain = base.Clone()
			plain.Ctx[iameval.KeySecureTransport] = []string{"false"}
		}
		onlySubscribes := ta.asks != nil && !ta.asks(p, nil)
		for _, action := range channelpolicy.Catalogue[t.Kind] {
			if m.only != nil && !m.only(t.Kind, action) || onlySubscribes && action != "sns:Subscribe" {
				continue
			}
			q := base
			q = q.WithLowerAction(action, lowerActions[action])
			if action == "sns:Subscribe" {
				// One context for every endpoint class, its two keys set
				// in place: the evaluator keeps no request.
				q = q.Clone()
				ctx := q.Ctx
				for _, e := range ta.endpoints {
					if !ta.asks(p, e) {
						continue
					}
					ctx["sns:protocol"], ctx["sns:endpoint"] = []string{e.protocol}, e.values
					m.cell(p, q, t, e)
				}
				continue
			}
			m.cell(p, q, t, nil)
			if ta.plain {
				m.plainCell(p, plain.WithLowerAction(action, lowerActions[action]), t)
			}
			if ta.direct && slices.Contains(channelpolicy.KeyUse, action) {
				m.directCell(p, direct.WithLowerAction(action, lowerActions[action]), t)
			}
		}
	}
}

// plainHTTP are the kinds whose service also answers over plain HTTP (SQS,
// SNS, S3; KMS answers over TLS only): each cell of a resource held to TLS
// (tlsOnly) is asked again without it, where the channel needs every request
// denied. The check without Config.Access asks only the lockdown's cells.
var plainHTTP = map[channelpolicy.Kind]bool{
	channelpolicy.Topic: true, channelpolicy.Queue: true, channelpolicy.DeadLetters: true, channelpolicy.ResponseQueue: true,
	channelpolicy.ResponseDLQ: true, channelpolicy.Bucket: true, channelpolicy.BucketObjects: true,
	channelpolicy.LedgerAnchor: true, channelpolicy.LedgerAnchorObjects: true,
	channelpolicy.BucketRows: true, channelpolicy.BucketOutside: true,
}

// tlsOnly says whether t is held to TLS: a resource of a kind whose service
// answers over plain HTTP, that the channel's constructs locked (their kind
// metadata: they always deny requests without TLS) or whose policy itself
// names aws:SecureTransport. A hand-rolled store that declares no TLS lock is
// not asked to have one; one that declares it is held to it whole.
func (m *Matrix) tlsOnly(t *Target) bool {
	if !plainHTTP[t.Kind] {
		return false
	}
	if t.Locked {
		return true
	}
	for _, s := range t.Policy {
		for _, block := range s.Condition {
			bm, _ := block.(map[string]any)
			for k := range bm {
				if strings.EqualFold(k, "aws:SecureTransport") {
					return true
				}
			}
		}
	}
	return false
}

// plainHTTPLabel marks a cell asked without TLS: sqs:SendMessage(plain-http).
const plainHTTPLabel = "(plain-http)"

// plainCell is the cell of q asked without TLS: the channel needs it denied.
func (m *Matrix) plainCell(p *Principal, q iameval.Request, t *Target) {
	v := iameval.Evaluate(q)
	m.Cells = append(m.Cells, Cell{Principal: p.Name, Class: p.Class, Action: q.Action + plainHTTPLabel, Resource: t.Name, Want: iameval.Denied, Got: v.Decision, Because: v.Because})
	m.plain[len(m.Cells)-1] = true
}

// directKeyLabel marks a key cell asked without kms:ViaService, as a
// principal calls KMS itself: kms:Decrypt(direct).
const directKeyLabel = "(direct)"

// directCell is the cell of q asked of a key directly. The data path uses
// its keys only through SQS and SNS, so a principal the path does not need
// must be denied; one it needs may be let in directly or not (CDK's grants
// do, a ViaService condition does not): the operator's choice.
func (m *Matrix) directCell(p *Principal, q iameval.Request, t *Target) {
	v := iameval.Evaluate(q)
	want := m.need(p, q.Action, t, nil)
	if want == iameval.Allowed {
		want = Either
	}
	m.Cells = append(m.Cells, Cell{Principal: p.Name, Class: p.Class, Action: q.Action + directKeyLabel, Resource: t.Name, Want: want, Got: v.Decision, Because: v.Because})
	m.direct[len(m.Cells)-1] = true
}

// subscriberClasses chooses the witnesses a subscription to one endpoint
// asks: of each kind and class of account, the first; of the endpoint's own
// class, one of the endpoint's account and one of another.
type subscriberClasses struct {
	groups    map[string][]*Principal // class and kind -> its witnesses in order
	standsFor func(string) string
	group     map[*Principal][]*Principal          // each witness's group
	byAccount map[*Principal]map[string]*Principal // a group's first -> its first witness of each account
}

func newSubscriberClasses(groups map[string][]*Principal, standsFor func(string) string) *subscriberClasses {
	s := &subscriberClasses{groups: groups, standsFor: standsFor, group: map[*Principal][]*Principal{}, byAccount: map[*Principal]map[string]*Principal{}}
	for _, g := range groups {
		first := map[string]*Principal{}
		for _, w := range g {
			s.group[w] = g
			if first[w.Account] == nil {
				first[w.Account] = w
			}
		}
		s.byAccount[g[0]] = first
	}
	return s
}

// pick is the witnesses of group g that a subscription to e asks.
func (s *subscriberClasses) pick(g []*Principal, e *endpoint) (own, other *Principal) {
	if e == nil || e.account == "" || s.standsFor(e.account) != s.standsFor(g[0].Account) {
		return nil, g[0]
	}
	own = s.byAccount[g[0]][e.account]
	for _, w := range g {
		if w.Account != e.account {
			return own, w
		}
	}
	return own, nil
}

// extra are the witnesses a subscription to e asks besides each group's first.
func (s *subscriberClasses) extra(e *endpoint) []*Principal {
	var out []*Principal
	for _, k := range cfnmodel.SortedKeys(s.groups) {
		own, other := s.pick(s.groups[k], e)
		for _, w := range []*Principal{own, other} {
			if w != nil && w != s.groups[k][0] {
				out = append(out, w)
			}
		}
	}
	return out
}

// asks says whether p is asked of e (of every request but a subscription,
// when e is nil). Roles and witnesses of no account are asked of all.
func (s *subscriberClasses) asks(p *Principal, e *endpoint) bool {
	g, ok := s.group[p]
	if !ok {
		return true
	}
	own, other := s.pick(g, e)
	return p == own || p == other
}

// witnessKind is w's name with its account taken out: other/#,
// admin/#, pattern/#/erasure-handler-w, service/events.amazonaws.com/#.
func witnessKind(w *Principal) string {
	parts := strings.Split(w.Name, "/")
	for i, p := range parts {
		if p == anyAccountLabel || p == orLabel("") || len(p) == 12 && isDigits(p) {
			parts[i] = "#"
		}
	}
	return w.Class + ":" + strings.Join(parts, "/")
}

// accountWitness are the classes of witness that stand for an account:
// a resource asks those of one account of each class (accountClasses).
var accountWitness = map[string]bool{ClassOther: true, ClassOtherSNS: true, ClassService: true, ClassAdmin: true, ClassPattern: true,
	ClassRoot: true, ClassFederated: true}

// lowerActions are the catalogue's actions in lower case, once.
var lowerActions = func() map[string]string {
	out := map[string]string{}
	for _, list := range channelpolicy.Catalogue {
		for _, a := range list {
			out[a] = strings.ToLower(a)
		}
	}
	return out
}()

func (m *Matrix) cell(p *Principal, q iameval.Request, t *Target, e *endpoint) {
	action, label := q.Action, q.Action
	if e != nil {
		label = e.cellLabel
	}
	v := iameval.Evaluate(q)
	c := Cell{Principal: p.Name, Class: p.Class, Action: label, Resource: t.Name, Want: m.need(p, action, t, e), Got: v.Decision, Because: v.Because}
	m.Cells = append(m.Cells, c)
	if e != nil {
		m.endpointOf[len(m.Cells)-1] = e
	}
}
