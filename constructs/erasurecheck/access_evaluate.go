// The access model's evaluation: each target's principals chosen (one
// witness of each class, every role that reaches it), then every cell asked
// of the evaluator, again without TLS and of a key directly where that
// matters.

package erasurecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// evaluateAll decides every class against every action of every resource.
func (m *AccessMatrix) evaluateAll() {
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
	roles, witnesses []*principal
	rolesByAlias     map[string][]*principal
	storeOf          map[*principal]string
	// signatures are, by a target's list of principal patterns, which of
	// them cover each principal.
	signatures map[string]map[*principal]string
	cover      *identityCover
}

func (m *AccessMatrix) askers() *askers {
	k := &askers{rolesByAlias: map[string][]*principal{}, storeOf: map[*principal]string{}, signatures: map[string]map[*principal]string{}, cover: m.identityIndex()}
	for _, name := range m.principalOrder {
		p := m.principals[name]
		if p.class == classHandler || p.class == classRole {
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
	candidates    []*principal
	endpoints     []*endpoint
	plain, direct bool
	asks          func(*principal, *endpoint) bool
}

// planTarget chooses the principals asked of t and returns them with the
// number of cells they make.
func (m *AccessMatrix) planTarget(k *askers, t *target) (targetAsk, int) {
	ta := targetAsk{plain: m.only == nil && m.tlsOnly(t), direct: m.only == nil && t.kind.IsKey() && t.Via != ""}
	cells := 0
	exact, pats := m.a.principalsNamedBy(t)
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
		sigs = map[*principal]string{}
		k.signatures[patsKey] = sigs
	}
	signature := func(p *principal) string {
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
	groups := map[string][]*principal{}
	var candidates []*principal
	for _, w := range k.witnesses {
		if accountWitness[w.class] {
			g := standsFor(w.Account) + "\x00" + witnessKind(w)
			groups[g] = append(groups[g], w)
			if len(groups[g]) > 1 {
				continue
			}
		}
		candidates = append(candidates, w)
		if w.Service == "" && w.class != classDeclared {
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
		needed := r.class == classHandler && (t.kind == channelpolicy.ResponseQueue || t.kind == channelpolicy.ResponseKey || t.store != "" && k.storeOf[r] == t.store)
		if asked[r] || needed || k.cover.patternReaches(r, t) || !represented[standing{standsFor(r.Account), signature(r)}] {
			candidates = append(candidates, r)
		}
	}
	ta.candidates = candidates
	for _, action := range channelpolicy.Catalogue[t.kind] {
		switch {
		case m.only != nil && !m.only(t.kind, action):
		case action == "sns:Subscribe":
			ta.endpoints = m.endpoints(standsFor, candidates)
			// A subscription names a second resource, its endpoint, of
			// one account: of each kind of witness, one of the endpoint's
			// own account and one of another account of its class.
			subscribers := newSubscriberClasses(groups, standsFor)
			asked := map[*principal]bool{}
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
func (m *AccessMatrix) askTarget(t *target, ta targetAsk) {
	for _, p := range ta.candidates {
		base := m.a.request(p, "", t)
		plain, direct := base, base
		if ta.direct {
			direct = base.Direct()
		}
		if ta.plain {
			plain = base.Clone()
			plain.Ctx[iameval.KeySecureTransport] = []string{"false"}
		}
		onlySubscribes := ta.asks != nil && !ta.asks(p, nil)
		for _, action := range channelpolicy.Catalogue[t.kind] {
			if m.only != nil && !m.only(t.kind, action) || onlySubscribes && action != "sns:Subscribe" {
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
func (m *AccessMatrix) tlsOnly(t *target) bool {
	if !plainHTTP[t.kind] {
		return false
	}
	if t.t != nil && t.t.Resources[t.id].Metadata[channelpolicy.KindMetadataKey] != nil {
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
func (m *AccessMatrix) plainCell(p *principal, q iameval.Request, t *target) {
	v := iameval.Evaluate(q)
	m.Cells = append(m.Cells, Cell{Principal: p.name, Class: p.class, Action: q.Action + plainHTTPLabel, Resource: t.name, Want: Denied, Got: v.Decision, Because: v.Because})
	m.plain[len(m.Cells)-1] = true
}

// directKeyLabel marks a key cell asked without kms:ViaService, as a
// principal calls KMS itself: kms:Decrypt(direct).
const directKeyLabel = "(direct)"

// directCell is the cell of q asked of a key directly. The data path uses
// its keys only through SQS and SNS, so a principal the path does not need
// must be denied; one it needs may be let in directly or not (CDK's grants
// do, a ViaService condition does not): the operator's choice.
func (m *AccessMatrix) directCell(p *principal, q iameval.Request, t *target) {
	v := iameval.Evaluate(q)
	want := m.need(p, q.Action, t, nil)
	if want == Allowed {
		want = Either
	}
	m.Cells = append(m.Cells, Cell{Principal: p.name, Class: p.class, Action: q.Action + directKeyLabel, Resource: t.name, Want: want, Got: v.Decision, Because: v.Because})
	m.direct[len(m.Cells)-1] = true
}

// subscriberClasses chooses the witnesses a subscription to one endpoint
// asks: of each kind and class of account, the first; of the endpoint's own
// class, one of the endpoint's account and one of another.
type subscriberClasses struct {
	groups    map[string][]*principal // class and kind -> its witnesses in order
	standsFor func(string) string
	group     map[*principal][]*principal          // each witness's group
	byAccount map[*principal]map[string]*principal // a group's first -> its first witness of each account
}

func newSubscriberClasses(groups map[string][]*principal, standsFor func(string) string) *subscriberClasses {
	s := &subscriberClasses{groups: groups, standsFor: standsFor, group: map[*principal][]*principal{}, byAccount: map[*principal]map[string]*principal{}}
	for _, g := range groups {
		first := map[string]*principal{}
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
func (s *subscriberClasses) pick(g []*principal, e *endpoint) (own, other *principal) {
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
func (s *subscriberClasses) extra(e *endpoint) []*principal {
	var out []*principal
	for _, k := range cfnmodel.SortedKeys(s.groups) {
		own, other := s.pick(s.groups[k], e)
		for _, w := range []*principal{own, other} {
			if w != nil && w != s.groups[k][0] {
				out = append(out, w)
			}
		}
	}
	return out
}

// asks says whether p is asked of e (of every request but a subscription,
// when e is nil). Roles and witnesses of no account are asked of all.
func (s *subscriberClasses) asks(p *principal, e *endpoint) bool {
	g, ok := s.group[p]
	if !ok {
		return true
	}
	own, other := s.pick(g, e)
	return p == own || p == other
}

// witnessKind is w's name with its account taken out: other/#,
// admin/#, pattern/#/erasure-handler-w, service/events.amazonaws.com/#.
func witnessKind(w *principal) string {
	parts := strings.Split(w.name, "/")
	for i, p := range parts {
		if p == anyAccountLabel || p == orLabel("") || len(p) == 12 && isDigits(p) {
			parts[i] = "#"
		}
	}
	return w.class + ":" + strings.Join(parts, "/")
}

// accountWitness are the classes of witness that stand for an account:
// a resource asks those of one account of each class (accountClasses).
var accountWitness = map[string]bool{classOther: true, classOtherSNS: true, classService: true, classAdmin: true, classPattern: true,
	classRoot: true, classFederated: true}

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

func (m *AccessMatrix) cell(p *principal, q iameval.Request, t *target, e *endpoint) {
	action, label := q.Action, q.Action
	if e != nil {
		label = e.cellLabel
	}
	v := iameval.Evaluate(q)
	c := Cell{Principal: p.name, Class: p.class, Action: label, Resource: t.name, Want: m.need(p, action, t, e), Got: v.Decision, Because: v.Because}
	m.Cells = append(m.Cells, c)
	if e != nil {
		m.endpointOf[len(m.Cells)-1] = e
	}
}
