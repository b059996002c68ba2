package erasurecheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// Cell is one row of the access matrix: may this principal take this action
// on this resource, what the channel needs, and what the synthesized
// policies decide.
type Cell struct {
	Principal string   `json:"principal"` // e.g. handler/space, other/222222222222, sns/erasure-topic
	Class     string   `json:"class"`     // the principal's class: handler, declared, administrators, any-other-principal, …
	Action    string   `json:"action"`    // sns:Subscribe(<endpoint class>) for a subscription`
	Resource  string   `json:"resource"`  // e.g. queue/space, response-queue, bucket-objects/bitmaps
	Want      Decision `json:"want"`
	Got       Decision `json:"got"`
	Because   string   `json:"because"` // the statement that decided, by stack, resource and Sid
}

// Holds says whether the policies decide what the channel needs.
func (c Cell) Holds() bool { return c.Want == c.Got || c.Want == Either && c.Got != Undecided }

// AccessMatrix is the channel's data path, evaluated offline over the
// synthesized identity, queue, topic, bucket and key policies.
type AccessMatrix struct {
	Cells []Cell

	a              *assembly
	principals     map[string]*principal
	principalOrder []string
	targets        map[string]*target
	order          []string // target names in the order found
	handlers       map[string]*principal
	decl           declared
	everything     []statement // newEverything, the witnesses' identity
	channelAccount string
	channelRegion  string // the erasure topic's region, "" when unknown
	topicIdents    []string
	storeNames     []string
	endpointOf     map[int]*endpoint // cell index -> its sns:Subscribe endpoint
	plain          map[int]bool      // cell index -> asked without TLS (plainCell)
	direct         map[int]bool      // cell index -> a key asked without kms:ViaService (directCell)
	// witnessAccounts are the accounts with witnesses, the unnamed one first.
	witnessAccounts []string
	// endpointAccounts are the accounts only an sns:Endpoint condition may
	// name: each is a class of endpoint (endpoints).
	endpointAccounts map[string]bool
	everyAccount     bool // Config.EveryAccount
	only             func(channelpolicy.Kind, string) bool
}

// Failing returns the cells whose decision is not what the channel needs.
func (m *AccessMatrix) Failing() []Cell {
	var out []Cell
	for _, c := range m.Cells {
		if !c.Holds() {
			out = append(out, c)
		}
	}
	return out
}

// Decide evaluates one request by the matrix's names (a principal such as
// handler/space or account-service, a resource such as response-queue):
// the local channel asks it before each call, so that a call the deployed
// policies would deny fails locally too. An unknown name is Undecided.
func (m *AccessMatrix) Decide(principalName, action, resourceName string) Decision {
	p, r := m.principals[principalName], m.targets[resourceName]
	if p == nil || r == nil || strings.EqualFold(action, "sns:Subscribe") {
		return Undecided // a subscription is decided with its endpoint (DecideSubscribe)
	}
	return m.a.decide(p, action, r).Decision
}

// DecideSubscribe decides an sns:Subscribe to the topic over protocol of an
// endpoint: a queue of the matrix by its name (queue/space), or any other
// endpoint as given (an SQS queue's ARN, a URL, …).
func (m *AccessMatrix) DecideSubscribe(principalName, protocol, endpoint string) Decision {
	p, r := m.principals[principalName], m.targets["topic"]
	if p == nil || r == nil {
		return Undecided
	}
	q := m.a.request(p, "sns:Subscribe", r)
	q.Ctx["sns:protocol"] = []string{protocol}
	q.Ctx["sns:endpoint"] = []string{endpoint}
	if t := m.targets[endpoint]; t != nil {
		q.Ctx["sns:endpoint"] = t.Aliases
	}
	return iameval.Evaluate(q).Decision
}

// RequestOf is the request a cell asked: for the cross-check against an
// independent evaluator.
func (m *AccessMatrix) requestOf(i int) iameval.Request {
	c := m.Cells[i]
	action := c.Action
	if j := strings.IndexByte(action, '('); j >= 0 {
		action = action[:j]
	}
	q := m.a.request(m.principals[c.Principal], action, m.targets[c.Resource])
	if m.plain[i] {
		q.Ctx[iameval.KeySecureTransport] = []string{"false"}
	}
	if m.direct[i] {
		q = q.Direct()
	}
	if e := m.endpointOf[i]; e != nil {
		q.Ctx["sns:protocol"] = []string{e.protocol}
		q.Ctx["sns:endpoint"] = e.values
	}
	return q
}

// Access builds the access matrix of cloud assembly directories (nested
// assemblies and stacks included) or templates, as CheckPaths reads them.
func Access(paths []string, cfg Config) (*AccessMatrix, error) {
	a, err := readPaths(paths)
	if err != nil {
		return nil, err
	}
	if err := a.setOrganisation(cfg); err != nil {
		return nil, err
	}
	return a.accessMatrix(cfg), nil
}

func (a *assembly) accessMatrix(cfg Config) *AccessMatrix {
	cfg.Access = false
	return a.matrixFor(a.check(cfg).Stores, cfg)
}

// findings are the failing cells, one line per resource and kind of
// failure (a widened policy fails many cells at once), on the resource they
// reach, naming the first few cells.
func (m *AccessMatrix) findings() Findings { return m.findingsOf(func(Cell) bool { return true }) }

// findingsOf is findings over the failing cells keep admits.
func (m *AccessMatrix) findingsOf(keep func(Cell) bool) Findings {
	type group struct {
		resource string
		typ      problem.Type
	}
	var order []group
	cells := map[group][]Cell{}
	for _, c := range m.Failing() {
		if !keep(c) {
			continue
		}
		typ := problem.BreaksErasure
		switch {
		case c.Got == Undecided:
			typ = problem.Invalid
		case c.Want == Allowed:
			typ = problem.Missing
		}
		g := group{c.Resource, typ}
		if cells[g] == nil {
			order = append(order, g)
		}
		cells[g] = append(cells[g], c)
	}
	var out Findings
	for _, g := range order {
		list := cells[g]
		var names []string
		for i, c := range list {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more (erasurectl access --failing)", len(list)-3))
				break
			}
			names = append(names, c.Principal+" "+c.Action)
		}
		first := list[0]
		var detail string
		switch g.typ {
		case problem.Invalid:
			detail = fmt.Sprintf("the check cannot judge %d cells (%s): %s; use the condition operators the channel's policies use, or leave the statement out", len(list), strings.Join(names, ", "), first.Because)
		case problem.Missing:
			detail = fmt.Sprintf("the channel needs %d cells allowed, and the synthesized policies deny them (%s; first: %s): the data path fails at run time", len(list), strings.Join(names, ", "), first.Because)
		default:
			detail = fmt.Sprintf("the channel needs %d cells denied, and the synthesized policies allow them (%s; first: %s): narrow the policy", len(list), strings.Join(names, ", "), first.Because)
		}
		r := m.targets[g.resource]
		rule := ruleAccessWidened
		switch g.typ {
		case problem.Invalid:
			rule = ruleAccessJudgeable
		case problem.Missing:
			rule = ruleAccessNeeded
		}
		f := findings{t: r.t}
		f.addProblem(rule, r.id, nil, problem.Problem{Path: problem.Root("Access").Key(g.resource), Type: g.typ, Detail: detail})
		out = append(out, f.out...)
	}
	return out
}

func storeName(s Store) string {
	if s.Spec.Name != "" {
		return s.Spec.Name
	}
	return s.Stack + "/" + s.QueueID
}

// channelTopic is the erasure topic ErasureChannel built in this app, if any.
func (a *assembly) channelTopic() (*template, string, bool) {
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if r := t.Resources[id]; r.Type == "AWS::SNS::Topic" && r.Metadata[TopicMetadataKey] == true {
				return t, id, true
			}
		}
	}
	return nil, "", false
}

// policyTarget is a queue, topic or bucket with its resource policy: every
// policyType resource in its template whose listProp names it.
func (a *assembly) policyTarget(t *template, id, policyType, listProp string) *target {
	tg := &target{Resource: iameval.Resource{Aliases: withDeployARN(cfnmodel.Aliases(t, id), t, id), Account: t.Account, Region: t.Region}, t: t, id: id}
	inline, inlineProp := map[string]string{"AWS::SQS::QueuePolicy": "AWS::SQS::QueueInlinePolicy", "AWS::SNS::TopicPolicy": "AWS::SNS::TopicInlinePolicy"}[policyType],
		map[string]string{"AWS::SQS::QueuePolicy": "Queue", "AWS::SNS::TopicPolicy": "TopicArn"}[policyType]
	var policies []string
	types := []string{policyType}
	if inline != "" {
		types = append(types, inline)
	}
	for _, pid := range a.policiesNaming(t, id, types, listProp, inlineProp) {
		r := t.Resources[pid]
		switch {
		case r.Type == policyType && a.Names(t, r.Properties[listProp], t, id),
			inline != "" && r.Type == inline && a.Names(t, r.Properties[inlineProp], t, id):
			tg.Policy = append(tg.Policy, a.policy(t, r.Properties["PolicyDocument"], pid)...)
			policies = append(policies, pid)
		}
	}
	if len(policies) > 1 {
		// A queue, topic or bucket has one policy: each of these resources
		// sets it whole, and whichever deploys last replaces the others.
		tg.Conflict = fmt.Sprintf("%d resource policies (%s) set the same policy: whichever deploys last replaces the others; merge them into one",
			len(policies), strings.Join(policies, ", "))
	}
	return tg
}

// keyTarget is the KMS key v names, with its key policy, or nil when it is
// not a key of this app; via is the service that uses it for its callers.
func (a *assembly) keyTarget(t *template, v any, via string) *target {
	if v == nil {
		return nil
	}
	kt, kid, ok := a.ResourceOf(a.KeyIdent(t, v))
	if !ok || kt.Resources[kid].Type != "AWS::KMS::Key" {
		return nil
	}
	return &target{Resource: iameval.Resource{Aliases: withDeployARN([]string{cfnmodel.ResIdent(kt, kid)}, kt, kid), Account: kt.Account, Region: kt.Region, IsKey: true, Via: via,
		Policy: a.policy(kt, kt.Resources[kid].Properties["KeyPolicy"], kid)}, t: kt, id: kid}
}

// bucketKeyValue is the value naming the bucket's default-encryption key.
func (a *assembly) bucketKeyValue(b *BitmapBucket) any {
	enc, _ := field(b.Properties, "BucketEncryption").(map[string]any)
	for _, r := range iameval.ListOf(field(enc, "ServerSideEncryptionConfiguration")) {
		rm, _ := r.(map[string]any)
		def, _ := field(rm, "ServerSideEncryptionByDefault").(map[string]any)
		if k := field(def, "KMSMasterKeyID"); k != nil {
			return k
		}
	}
	return nil
}

// responseTargets adds the response queue and its key that a handler's
// ERASURE_RESPONSE_QUEUE_URL names, when they are in this app.
func (a *assembly) responseTargets(m *AccessMatrix, t *template, url any) {
	if url == nil {
		return
	}
	q := cfnmodel.SQSURLToARN(a.Ident(t, url))
	qt, qid, ok := a.ResourceOf(q)
	if !ok {
		qt, qid, ok = a.ByAlias(q, "AWS::SQS::Queue")
	}
	if !ok {
		return
	}
	m.add("response-queue", channelpolicy.ResponseQueue, "", a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues"))
	if k := a.responseKey(qt, qid); k != nil {
		m.add("response-key", channelpolicy.ResponseKey, "", k)
	}
}

// responseKey is the key of response queue qid in qt, when it is a key of
// this app. A key's ARN is unknown before it is deployed: a store in
// another app names the response key by the ARN its channel's output gave.
// An ARN naming a key of the response key's account and region is taken to
// be it (and only for this key).
func (a *assembly) responseKey(qt *template, qid string) *target {
	k := a.keyTarget(qt, qt.Resources[qid].Properties["KmsMasterKeyId"], "sqs")
	if k != nil && k.Account != "" && qt.Region != "" {
		k.Aliases = append(k.Aliases, fmt.Sprintf("arn:aws:kms:%s:%s:key/*", qt.Region, k.Account))
	}
	return k
}

// rolePrincipal is the principal of a function's role: its ARN from its
// RoleName and stack account, its reference, and its identity policies.
func (a *assembly) rolePrincipal(t *template, roleRef any) *principal {
	id := a.Ident(t, roleRef)
	rt, rid, ok := a.ResourceOf(id)
	if !ok || rt.Resources[rid].Type != "AWS::IAM::Role" {
		return &principal{Principal: iameval.Principal{Aliases: []string{id}, Account: iameval.ARNAccount(id)}}
	}
	p := &principal{Principal: iameval.Principal{Aliases: withDeployARN([]string{cfnmodel.ResIdent(rt, rid)}, rt, rid), Account: rt.Account, Identity: a.roleStatements(rt, rid),
		Boundary: a.boundaryOf(rt, rid)}}
	if name, _ := rt.Resources[rid].Properties["RoleName"].(string); name != "" {
		rolePath, _ := rt.Resources[rid].Properties["Path"].(string)
		if rolePath == "" {
			rolePath = "/"
		}
		account := rt.Account
		if account == "" {
			account = "*" // an environment-agnostic stack: its role in whatever account it deploys to
		}
		p.Aliases = append(p.Aliases, "arn:aws:iam::"+account+":role"+rolePath+name)
	}
	return p
}

// withDeployARN is aliases with the ARN t's resource id will have once
// deployed, where the template does not name it (cfnmodel.DeployARN): a
// policy over the account, region or a path (arn:aws:kms:*:111111111111:key/*)
// reaches it, a policy naming another resource does not.
func withDeployARN(aliases []string, t *template, id string) []string {
	if arn := cfnmodel.DeployARN(t, id); arn != "" {
		return append(aliases, arn)
	}
	return aliases
}

// policyIndex is which resource policies of a template (of some types) name
// which of its resources, read once: asking every policy of a template about
// every target was quadratic (2,000 stores in one template: 2,000 policies
// asked about each of 2,000 queues).
type policyIndex struct {
	byTarget map[string][]string // a target's logical id → the policies whose references name it
	// loose are the policies whose targets are not all references to the
	// template's own resources (a name, an ARN, a URL, an import, a value
	// the model cannot render): each target asks them itself (Names).
	loose []string
	order map[string]int // each policy's place in the template's order
}

// policyIndexKey is a template's policy types.
type policyIndexKey struct {
	t     *template
	types string
}

// policiesNaming are the policies of t of types that may name resource id
// (a superset, in the template's order: policyTarget asks each with Names).
func (a *assembly) policiesNaming(t *template, id string, types []string, listProp, inlineProp string) []string {
	key := policyIndexKey{t, strings.Join(types, " ")}
	ix := a.policyIndexes[key]
	if ix == nil {
		ix = &policyIndex{byTarget: map[string][]string{}, order: map[string]int{}}
		for i, pid := range t.IDsOf(types...) {
			ix.order[pid] = i
			r := t.Resources[pid]
			v := r.Properties[listProp]
			if r.Type != types[0] {
				v = r.Properties[inlineProp]
			}
			named, loose := []string{}, a.Unrendered(t, v)
			for _, s := range a.Targets(t, v) {
				rt, rid, ok := a.ResourceOf(s)
				switch {
				case !ok && strings.HasPrefix(s, "res:"):
					// a reference to nothing the templates hold: it names no target
				case !ok:
					loose = true
				case rt == t:
					named = append(named, rid)
				}
			}
			if loose {
				ix.loose = append(ix.loose, pid)
				continue
			}
			for _, rid := range named {
				if l := ix.byTarget[rid]; len(l) == 0 || l[len(l)-1] != pid {
					ix.byTarget[rid] = append(l, pid)
				}
			}
		}
		if a.policyIndexes == nil {
			a.policyIndexes = map[policyIndexKey]*policyIndex{}
		}
		a.policyIndexes[key] = ix
	}
	if len(ix.loose) == 0 {
		return ix.byTarget[id]
	}
	out := append(append([]string{}, ix.byTarget[id]...), ix.loose...)
	sort.Slice(out, func(i, j int) bool { return ix.order[out[i]] < ix.order[out[j]] })
	return out
}

// The rules this file reports.
var (
	ruleAccessNeeded = declare(Rule{ID: "EC611", Name: "AccessNeededAllowed", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel needs is allowed",
		Why:   "The data path fails at run time: a delivery, a read, an answer or a key use is denied.",
		Fix:   "Restore the grant the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessWidened = declare(Rule{ID: "EC612", Name: "AccessOthersDenied", Type: problem.BreaksErasure, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "Every access the channel must deny is denied",
		Why:   "A widened policy lets another principal publish an ERASE, send a forged request, answer for a store or use its key.",
		Fix:   "Narrow the policy the cell names (erasurectl access --failing lists every cell)."})
	ruleAccessJudgeable = declare(Rule{ID: "EC613", Name: "AccessJudgeable", Type: problem.Invalid, Source: FromCheck, Reference: "docs/lockdown-and-access.md",
		Title: "Every policy on the channel's resources can be judged",
		Why:   "A condition operator or key the evaluator does not model leaves a cell undecided, and an undecided lockdown is not a lockdown.",
		Fix:   "Use the condition operators the channel's policies use, or leave the statement out."})
)
