package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract/timing"
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
func (c Cell) Holds() bool { return c.Want == c.Got }

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
	channelAccount string
	topicIdents    []string
	storeNames     []string
	endpointOf     map[int]*endpoint // cell index -> its sns:Subscribe endpoint
	only           func(channelpolicy.Kind, string) bool
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
	return m.a.evaluate(m.request(p, action, r)).Decision
}

// DecideSubscribe decides an sns:Subscribe to the topic over protocol of an
// endpoint: a queue of the matrix by its name (queue/space), or any other
// endpoint as given (an SQS queue's ARN, a URL, …).
func (m *AccessMatrix) DecideSubscribe(principalName, protocol, endpoint string) Decision {
	p, r := m.principals[principalName], m.targets["topic"]
	if p == nil || r == nil {
		return Undecided
	}
	q := m.request(p, "sns:Subscribe", r)
	q.ctx["sns:protocol"] = []string{protocol}
	q.ctx["sns:endpoint"] = []string{endpoint}
	if t := m.targets[endpoint]; t != nil {
		q.ctx["sns:endpoint"] = t.aliases
	}
	return m.a.evaluate(q).Decision
}

// RequestOf is the request a cell asked: for the cross-check against an
// independent evaluator.
func (m *AccessMatrix) requestOf(i int) request {
	c := m.Cells[i]
	action := c.Action
	if j := strings.IndexByte(action, '('); j >= 0 {
		action = action[:j]
	}
	q := m.request(m.principals[c.Principal], action, m.targets[c.Resource])
	if e := m.endpointOf[i]; e != nil {
		q.ctx["sns:protocol"] = []string{e.protocol}
		q.ctx["sns:endpoint"] = e.values
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
		typ      timing.ProblemType
	}
	var order []group
	cells := map[group][]Cell{}
	for _, c := range m.Failing() {
		if !keep(c) {
			continue
		}
		typ := timing.BreaksErasure
		switch {
		case c.Got == Undecided:
			typ = timing.Invalid
		case c.Want == Allowed:
			typ = timing.Missing
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
		case timing.Invalid:
			detail = fmt.Sprintf("the check cannot judge %d cells (%s): %s; use the condition operators the channel's policies use, or leave the statement out", len(list), strings.Join(names, ", "), first.Because)
		case timing.Missing:
			detail = fmt.Sprintf("the channel needs %d cells allowed, and the synthesized policies deny them (%s; first: %s): the data path fails at run time", len(list), strings.Join(names, ", "), first.Because)
		default:
			detail = fmt.Sprintf("the channel needs %d cells denied, and the synthesized policies allow them (%s; first: %s): narrow the policy", len(list), strings.Join(names, ", "), first.Because)
		}
		r := m.targets[g.resource]
		out = append(out, Finding{Problem: timing.Problem{Path: "Access[" + g.resource + "]", Type: g.typ, Detail: detail},
			Stack: r.t.Stack, Template: r.t.Path, LogicalID: r.id})
	}
	return out
}

func storeName(s Store) string {
	if s.Spec.Name != "" {
		return s.Spec.Name
	}
	return s.Stack + "/" + s.QueueID
}

// request builds the request context IAM would see for p calling action on
// r: the principal's ARN and account, TLS, the topic SNS acts for, and for
// KMS the service the key is used through.
func (m *AccessMatrix) request(p *principal, action string, r *target) request {
	ctx := map[string][]string{"aws:securetransport": {"true"}}
	// An environment-agnostic stack's account is unknown: "*", as its own
	// ${AWS::AccountId} renders, so that the two name the same account.
	account := []string{orStar(p.account)}
	if p.service != "" {
		ctx["aws:sourcearn"] = p.aliases
		ctx["aws:sourceaccount"] = account
		ctx["aws:principalisawsservice"] = []string{"true"}
		ctx["aws:principalservicename"] = []string{p.service}
	} else {
		ctx["aws:principalarn"] = p.aliases
		ctx["aws:principalaccount"] = account
		ctx["kms:calleraccount"] = account
		ctx["aws:principalisawsservice"] = []string{"false"}
	}
	if r.isKey && p.service == "" {
		ctx["kms:viaservice"] = []string{r.via + "." + m.a.region() + ".amazonaws.com"}
	}
	return request{p: p, action: action, r: r, ctx: ctx}
}

// region is the app's region (the first stack's that names one).
func (a *assembly) region() string {
	for _, t := range a.templates {
		if t.Region != "" {
			return t.Region
		}
	}
	return "*"
}

func (a *assembly) templateAt(path string) *template {
	for _, t := range a.templates {
		if t.Path == path {
			return t
		}
	}
	return nil
}

// channelTopic is the erasure topic ErasureChannel built in this app, if any.
func (a *assembly) channelTopic() (*template, string, bool) {
	for _, t := range a.templates {
		for _, id := range t.ids() {
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
	tg := &target{aliases: aliases(t, id), account: t.Account, t: t, id: id}
	inline, inlineProp := map[string]string{"AWS::SQS::QueuePolicy": "AWS::SQS::QueueInlinePolicy", "AWS::SNS::TopicPolicy": "AWS::SNS::TopicInlinePolicy"}[policyType],
		map[string]string{"AWS::SQS::QueuePolicy": "Queue", "AWS::SNS::TopicPolicy": "TopicArn"}[policyType]
	var policies []string
	for _, pid := range t.ids() {
		r := t.Resources[pid]
		switch {
		case r.Type == policyType && (mentions(r.Properties[listProp], id) || refersTo(r.Properties[listProp], id)),
			inline != "" && r.Type == inline && (refersTo(r.Properties[inlineProp], id) || a.ident(t, r.Properties[inlineProp]) == resIdent(t, id)):
			tg.policy = append(tg.policy, labelled(statementsIn(t, r.Properties["PolicyDocument"]), t, pid)...)
			policies = append(policies, pid)
		}
	}
	if len(policies) > 1 {
		// A queue, topic or bucket has one policy: each of these resources
		// sets it whole, and whichever deploys last replaces the others.
		tg.conflict = fmt.Sprintf("%d resource policies (%s) set the same policy: whichever deploys last replaces the others; merge them into one",
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
	kt, kid, ok := a.resourceOf(a.keyIdent(t, v))
	if !ok || kt.Resources[kid].Type != "AWS::KMS::Key" {
		return nil
	}
	return &target{aliases: []string{resIdent(kt, kid)}, account: kt.Account, isKey: true, via: via, t: kt, id: kid,
		policy: labelled(statementsIn(kt, kt.Resources[kid].Properties["KeyPolicy"]), kt, kid)}
}

// bucketKeyValue is the value naming the bucket's default-encryption key.
func (a *assembly) bucketKeyValue(b *BitmapBucket) any {
	enc, _ := field(b.Properties, "BucketEncryption").(map[string]any)
	for _, r := range listOf(field(enc, "ServerSideEncryptionConfiguration")) {
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
	q := sqsURLToARN(a.ident(t, url))
	qt, qid, ok := a.resourceOf(q)
	if !ok {
		qt, qid, ok = a.byAlias(q, "AWS::SQS::Queue")
	}
	if !ok {
		return
	}
	m.add("response-queue", channelpolicy.ResponseQueue, "", a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues"))
	if k := a.keyTarget(qt, qt.Resources[qid].Properties["KmsMasterKeyId"], "sqs"); k != nil {
		// A key's ARN is unknown before it is deployed: a store in another
		// app names the response key by the ARN its channel's output gave.
		// An ARN naming a key of the response key's account and region is
		// taken to be it (and only for this key).
		if k.account != "" && qt.Region != "" {
			k.aliases = append(k.aliases, fmt.Sprintf("arn:aws:kms:%s:%s:key/*", qt.Region, k.account))
		}
		m.add("response-key", channelpolicy.ResponseKey, "", k)
	}
}

// rolePrincipal is the principal of a function's role: its ARN from its
// RoleName and stack account, its reference, and its identity policies.
func (a *assembly) rolePrincipal(t *template, roleRef any) *principal {
	id := a.ident(t, roleRef)
	rt, rid, ok := a.resourceOf(id)
	if !ok || rt.Resources[rid].Type != "AWS::IAM::Role" {
		return &principal{aliases: []string{id}, account: arnAccount(id)}
	}
	p := &principal{aliases: []string{resIdent(rt, rid)}, account: rt.Account, identity: a.roleStatements(rt, rid)}
	if name, _ := rt.Resources[rid].Properties["RoleName"].(string); name != "" {
		rolePath, _ := rt.Resources[rid].Properties["Path"].(string)
		if rolePath == "" {
			rolePath = "/"
		}
		account := rt.Account
		if account == "" {
			account = "*" // an environment-agnostic stack: its role in whatever account it deploys to
		}
		p.aliases = append(p.aliases, "arn:aws:iam::"+account+":role"+rolePath+name)
	}
	return p
}
