package erasurecheck

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// The access matrix is complete by construction: its principals are not a
// list of cases but the equivalence classes the policies themselves draw.
//
//   - Every principal the app builds (each IAM role, with its real identity
//     policies) and every principal the channel declares (publishers, readers).
//   - For every account involved (the stacks', the roster's, every account a
//     policy names) and for one account no policy names: a principal that
//     matches none of the named principals or patterns, whose own account
//     lets it do anything ("*" on "*"), so that only resource policies can
//     keep it out. It stands for every unnamed principal of its account.
//   - For every ARN pattern a policy names (aws:PrincipalArn, Principal): a
//     principal in that pattern's region that is named by no exact ARN (for
//     example role/cdk-*-cfn-exec-role-… minus every known role), also allowed
//     everything by its own account. The administrators are such a region.
//   - The erasure topic's SNS, SNS for another topic of every account, and
//     every service principal a policy names, acting for a source in every
//     account.
//
// An app role that a resource's policy does not name and whose identity does
// not reach the resource is decided by the witness of its account with the
// same standing towards that policy's patterns (it cannot do more: the
// witness's identity allows everything); where no witness has that standing,
// the role itself is evaluated. So every principal of every account is
// decided, without deciding every role against every resource.
//
// Every action of the channel's services that reaches a resource kind
// (channelpolicy.Catalogue) is asked, and sns:Subscribe once per endpoint
// class (each roster queue, a queue of every account, every other protocol).
// A cell is needed (Allowed) only where the channel's path needs it; every
// other cell must be Denied, and a cell the evaluator cannot decide fails.

// Names of the principal classes the matrix derives besides the app's roles.
const (
	AccountServicePrincipal = "account-service" // the channel's first declared publisher
	ErasureTopicSNS         = "sns/erasure-topic"
	otherTopicSNSName       = "sns/another-topic/" // + account
	otherPrincipal          = "other/"             // + account: any unnamed principal of it
	rootPrincipal           = "root/"              // + account: its root user
	federatedPrincipal      = "federated/"         // + account: a federated user of it
	adminPrincipal          = "admin/"             // + account: its administrators' region
	patternPrincipal        = "pattern/"           // + account + "/" + instance
	servicePrincipal        = "service/"           // + service + "/" + account
	handlerPrincipal        = "handler/"           // + store
	anyAccountLabel         = "any-account"
	// orgAccountLabel names the witness account of the channel's
	// organisation that nothing of the app names: in the organisation, off
	// the roster.
	orgAccountLabel = "an-account-of-the-organisation"
)

// newEverything is the identity policy of a principal that its own account
// lets do anything: only resource policies can keep it out. It is parsed (iameval.Parse), so the evaluator renders it once rather
// than at every cell; each matrix holds its own (the render cache is not
// shared between goroutines).
func newEverything() []statement {
	return iameval.Parse(map[string]any{"Statement": []any{map[string]any{"Sid": "AllowEverything", "Effect": "Allow", "Action": "*", "Resource": "*"}}},
		nil, "its own identity policy")
}

// Classes of principal, for the counts erasurectl access prints.
const (
	classHandler   = "handler"
	classDeclared  = "declared"
	classRole      = "app-role"
	classAdmin     = "administrators"
	classOther     = "any-other-principal"
	classRoot      = "account-root"
	classFederated = "federated-user"
	classPattern   = "pattern-region"
	classService   = "service"
	classTopicSNS  = "erasure-topic-sns"
	classOtherSNS  = "another-topic-sns"
	defaultRegionW = "*"
)

// endpoint is one class of sns:Subscribe endpoint.
type endpoint struct {
	label string // queue/space, sqs-queue-of/<account>, https, …
	// cellLabel is the action of its cells: sns:Subscribe(<label>).
	cellLabel string
	protocol  string
	values    []string // sns:Endpoint values
	queue     *target  // the roster queue it is, or nil
	account   string   // the account of an SQS endpoint
}

// declared is what the channel declares of its principals (its constructs'
// metadata), against which every cell is judged.
type declared struct {
	publishers []string
	readers    []string
	roster     map[string]bool // store names
	// rosterAccounts are the accounts whose handler path
	// (contract.HandlerRolePath) the channel admits (RosterAccountsMetadataKey).
	rosterAccounts map[string]bool
}

// matrixFor builds the access matrix of the channel and the stores the check found.
func (a *assembly) matrixFor(stores []Store, cfg Config) *AccessMatrix {
	return a.matrixOf(stores, cfg, nil)
}

// lockdownCells are the cells the check judges without Config.Access: every
// sender of a store's queue and every publisher of the topic.
func lockdownCells(k channelpolicy.Kind, action string) bool {
	return k == channelpolicy.Queue && action == "sqs:SendMessage" || k == channelpolicy.Topic && action == "sns:Publish" ||
		k == channelpolicy.QueueKey && (action == "kms:GenerateDataKey" || action == "kms:Decrypt")
}

// matrixOf is matrixFor with only the cells only admits (all, when nil).
func (a *assembly) matrixOf(stores []Store, cfg Config, only func(channelpolicy.Kind, string) bool) *AccessMatrix {
	m := &AccessMatrix{a: a, principals: map[string]*principal{}, targets: map[string]*target{}, endpointAccounts: map[string]bool{}, everything: newEverything(),
		handlers: map[string]*principal{}, endpointOf: map[int]*endpoint{}, plain: map[int]bool{}, direct: map[int]bool{}, decl: declared{roster: map[string]bool{}, rosterAccounts: map[string]bool{}}}
	m.findTargets(stores, cfg)
	m.findPrincipals(stores)
	m.only = only
	m.everyAccount = cfg.EveryAccount
	m.evaluateAll()
	return m
}

// add names a target of kind for store ("" for the channel's own).
func (m *AccessMatrix) add(name string, kind channelpolicy.Kind, store string, t *target) {
	if t == nil {
		return
	}
	t.name, t.kind, t.store = name, kind, store
	t.admins = m.a.administratorsOf(t)
	m.targets[name] = t
	m.order = append(m.order, name)
}

func (m *AccessMatrix) findTargets(stores []Store, cfg Config) {
	a := m.a
	topics := a.erasureTopics(cfg.TopicArns)
	m.topicIdents = topics.idents
	if tt, tid, ok := a.channelTopic(); ok {
		m.channelAccount, m.channelRegion = tt.Account, tt.Region
		m.add("topic", channelpolicy.Topic, "", a.policyTarget(tt, tid, "AWS::SNS::TopicPolicy", "Topics"))
		m.add("topic-key", channelpolicy.TopicKey, "", a.keyTarget(tt, tt.Resources[tid].Properties["KmsMasterKeyId"], "sns"))
		m.decl.publishers = a.metadataList(tt, tid, channelpolicy.PublishersMetadataKey)
	} else if len(topics.idents) > 0 {
		m.channelAccount, m.channelRegion = iameval.ARNAccount(topics.idents[0]), iameval.ARNRegion(topics.idents[0])
	}
	for _, s := range stores {
		t := a.TemplateAt(s.Template)
		if t == nil {
			continue
		}
		name := storeName(s)
		if _, taken := m.targets["queue/"+name]; taken {
			name = s.Stack + "/" + s.QueueID // two hand-rolled stores of one shape
		}
		m.storeNames = append(m.storeNames, name)
		m.add("queue/"+name, channelpolicy.Queue, name, a.policyTarget(t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues"))
		if s.DeadLetterID != "" {
			m.add("dlq/"+name, channelpolicy.DeadLetters, name, a.policyTarget(t, s.DeadLetterID, "AWS::SQS::QueuePolicy", "Queues"))
		}
		m.add("queue-key/"+name, channelpolicy.QueueKey, name, a.keyTarget(t, t.Resources[s.QueueID].Properties["KmsMasterKeyId"], "sqs"))
		if b := s.Bitmap; b != nil {
			bucket := a.policyTarget(b.t, b.BucketID, "AWS::S3::BucketPolicy", "Bucket")
			objects := *bucket
			objects.Aliases = nil
			for _, al := range cfnmodel.Aliases(b.t, b.BucketID) {
				objects.Aliases = append(objects.Aliases, al+"/"+b.Prefix+"subject-probe/segments/s0.1.crbm")
			}
			m.add("bucket/"+name, channelpolicy.Bucket, name, bucket)
			m.add("bucket-objects/"+name, channelpolicy.BucketObjects, name, &objects)
			// One class of object per place the store keeps objects: its
			// registry rows, and (under a prefix) what lies outside it.
			objectsAt := func(key string) *target {
				o := *bucket
				o.Aliases = nil
				for _, al := range cfnmodel.Aliases(b.t, b.BucketID) {
					o.Aliases = append(o.Aliases, al+"/"+key)
				}
				return &o
			}
			m.add("bucket-rows/"+name, channelpolicy.BucketRows, name, objectsAt(b.Prefix+"registry/subject-probe/s0.reg"))
			if b.Prefix != "" {
				m.add("bucket-outside/"+name, channelpolicy.BucketOutside, name, objectsAt("outside-the-store-prefix-probe"))
			}
			m.add("bucket-key/"+name, channelpolicy.BucketKey, name, a.keyTarget(b.t, a.bucketKeyValue(b), "s3"))
		}
		if len(s.functions) > 0 {
			ft := s.functions[0].t
			fn := ft.Resources[s.functions[0].id]
			m.handlers[name] = a.rolePrincipal(ft, fn.Properties["Role"])
			if _, ok := m.targets["response-queue"]; !ok {
				if env, _ := cfnmodel.Dig(fn.Properties, "Environment", "Variables").(map[string]any); env != nil {
					a.responseTargets(m, ft, env[contract.EnvResponseQueueURL])
				}
			}
		}
	}
	if _, ok := m.targets["response-queue"]; !ok {
		if t, id, ok := a.channelResponseQueue(); ok {
			a.responseTargets(m, t, cfnmodel.Ref(id))
		}
	}
	if rq := m.targets["response-queue"]; rq != nil {
		m.decl.readers = a.metadataList(rq.t, rq.id, channelpolicy.ReadersMetadataKey)
		for _, n := range iameval.StringsOf(rq.t.Resources[rq.id].Metadata[RosterMetadataKey]) {
			m.decl.roster[n] = true
		}
		for _, v := range iameval.ListOf(rq.t.Resources[rq.id].Metadata[RosterAccountsMetadataKey]) {
			acct := m.a.Pattern(rq.t, v)
			if !isDigits(acct) || len(acct) != 12 {
				acct = rq.t.Account // the stack's own account, unknown at synth
			}
			m.decl.rosterAccounts[acct] = true
		}
		if _, did := a.RedriveOf(rq.t, rq.t.Resources[rq.id].Properties); did != "" {
			m.add("response-dlq", channelpolicy.ResponseDLQ, "", a.policyTarget(rq.t, did, "AWS::SQS::QueuePolicy", "Queues"))
		}
	}
	if len(m.decl.readers) == 0 {
		m.decl.readers = m.decl.publishers
	}
	m.findAnchors()
	sort.Strings(m.storeNames)
}

// findAnchors adds every ledger anchor of the app (the buckets marked
// channelpolicy.LedgerAnchor): the bucket, and its heads as one object class.
func (m *AccessMatrix) findAnchors() {
	a := m.a
	n := 0
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			r := t.Resources[id]
			if r.Type != "AWS::S3::Bucket" || r.Metadata[channelpolicy.KindMetadataKey] != string(channelpolicy.LedgerAnchor) {
				continue
			}
			suffix := ""
			if n++; n > 1 {
				suffix = "/" + t.Stack
			}
			bucket := a.policyTarget(t, id, "AWS::S3::BucketPolicy", "Bucket")
			bucket.writers = a.metadataList(t, id, channelpolicy.WritersMetadataKey)
			bucket.readers = a.metadataList(t, id, channelpolicy.ReadersMetadataKey)
			heads := *bucket
			heads.Aliases = nil
			for _, al := range cfnmodel.Aliases(t, id) {
				heads.Aliases = append(heads.Aliases, al+"/"+contract.LedgerAnchorPrefix+"anchor-probe")
			}
			m.add(string(channelpolicy.LedgerAnchor)+suffix, channelpolicy.LedgerAnchor, "", bucket)
			m.add(string(channelpolicy.LedgerAnchorObjects)+suffix, channelpolicy.LedgerAnchorObjects, "", &heads)
		}
	}
}

// metadataList renders a resource's metadata list (ARNs, possibly built
// with intrinsics).
func (a *assembly) metadataList(t *template, id, key string) []string {
	var out []string
	for _, v := range iameval.ListOf(t.Resources[id].Metadata[key]) {
		if s := a.Pattern(t, v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// administratorsOf is the ARN patterns the target's construct declared for
// its administrators, or the default administrators of its account.
func (a *assembly) administratorsOf(t *target) []string {
	if t.t != nil {
		if list := a.metadataList(t.t, t.id, channelpolicy.AdministratorsMetadataKey); len(list) > 0 {
			return list
		}
	}
	acct, region := iameval.OrStar(t.Account), defaultRegionW
	if t.t != nil && t.t.Region != "" {
		region = t.t.Region
	}
	return []string{channelpolicy.DefaultAdministrators("aws", acct, region)}
}

// subscribesItsStoreQueue says whether e is a store queue
// (contract.QueueNamePrefix) of p's own account, over SQS, and p an
// administrator of the topic from a roster account: the one subscription the
// channel admits.
func (m *AccessMatrix) subscribesItsStoreQueue(p *principal, topic *target, e *endpoint) bool {
	if e == nil || e.protocol != "sqs" || p.Service != "" || e.account != p.Account {
		return false
	}
	if len(m.decl.rosterAccounts) == 0 && m.a.organisation().id == "" {
		// A channel that names no roster accounts (an older template): a
		// roster store's own queue, by its administrators.
		return e.queue != nil && m.isAdmin(p, e.queue) && m.decl.roster[e.queue.store]
	}
	if !m.admitsAccount(p.Account) {
		return false
	}
	named := false
	for _, v := range e.values {
		f := strings.SplitN(v, ":", 6)
		named = named || len(f) == 6 && f[2] == "sqs" && strings.HasPrefix(f[5], contract.QueueNamePrefix)
	}
	if !named {
		return false
	}
	for _, adm := range topic.admins {
		if iameval.CoversAny(adm, p.Aliases) {
			return true
		}
	}
	return e.queue != nil && m.isAdmin(p, e.queue)
}

// need is what the channel's path needs of one request.
func (m *AccessMatrix) need(p *principal, action string, t *target, e *endpoint) Decision {
	yes := func(b bool) Decision {
		if b {
			return Allowed
		}
		return Denied
	}
	admin := m.isAdmin(p, t)
	if !slices.Contains(dataActions(t.kind), action) {
		// Off the data path: the administrators keep what CloudFormation's
		// handlers need; the rest is theirs to harden (channelpolicy).
		if admin {
			if needed, known := channelpolicy.AdministratorNeeds(t.kind, action, t.gated()); known && !needed {
				return Either
			}
		}
		return yes(admin)
	}
	handler := m.isHandler(p, t.store)
	switch t.kind {
	case channelpolicy.Topic:
		if action == "sns:Publish" {
			return yes(m.isDeclared(p, m.decl.publishers))
		}
		// sns:Subscribe: a store queue of the subscriber's own account,
		// over SQS, by an administrator of a roster account.
		return yes(m.subscribesItsStoreQueue(p, t, e))
	case channelpolicy.TopicKey:
		return yes(m.isDeclared(p, m.decl.publishers))
	case channelpolicy.Queue:
		switch action {
		case "sqs:SendMessage":
			return yes(p.name == ErasureTopicSNS || handler)
		case "sqs:GetQueueAttributes":
			return yes(handler || admin)
		}
		return yes(handler)
	case channelpolicy.QueueKey:
		return yes(p.name == ErasureTopicSNS || handler)
	case channelpolicy.DeadLetters:
		return yes(action != "sqs:SendMessage" && admin)
	case channelpolicy.ResponseQueue:
		switch action {
		case "sqs:SendMessage":
			return yes(m.isRosterHandler(p))
		case "sqs:GetQueueAttributes":
			return yes(m.isDeclared(p, m.decl.readers) || admin)
		}
		return yes(m.isDeclared(p, m.decl.readers))
	case channelpolicy.ResponseDLQ:
		return yes(action != "sqs:SendMessage" && (admin || m.isDeclared(p, m.decl.readers)))
	case channelpolicy.ResponseKey:
		return yes(m.isRosterHandler(p) || m.isDeclared(p, m.decl.readers))
	case channelpolicy.Bucket, channelpolicy.BucketObjects, channelpolicy.BucketKey:
		return yes(handler)
	case channelpolicy.BucketRows:
		// The registry's history stays for a restore: nobody reads or
		// deletes its versions.
		return yes(handler && !slices.Contains(channelpolicy.VersionData, action))
	case channelpolicy.BucketOutside:
		return Denied // the data path never leaves the store's prefix
	case channelpolicy.LedgerAnchor, channelpolicy.LedgerAnchorObjects:
		// The sweeper writes heads; it, the administrators and the
		// declared auditors read them.
		writer := m.isDeclaredPattern(p, t.writers)
		if action == "s3:PutObject" {
			return yes(writer)
		}
		return yes(writer || admin || m.isDeclaredPattern(p, t.readers))
	}
	return Denied
}

// isDeclaredPattern says whether p is named by one of the ARNs or ARN
// patterns of list.
func (m *AccessMatrix) isDeclaredPattern(p *principal, list []string) bool {
	if p.Service != "" {
		return false
	}
	for _, d := range list {
		if iameval.CoversAny(d, p.Aliases) {
			return true
		}
	}
	return false
}

// dataActions are a kind's data-path actions (channelpolicy).
func dataActions(k channelpolicy.Kind) []string {
	switch k {
	case channelpolicy.Topic:
		return channelpolicy.TopicData
	case channelpolicy.Queue, channelpolicy.DeadLetters, channelpolicy.ResponseQueue, channelpolicy.ResponseDLQ:
		return channelpolicy.QueueData
	case channelpolicy.Bucket:
		return channelpolicy.BucketList
	case channelpolicy.BucketObjects, channelpolicy.BucketRows, channelpolicy.BucketOutside:
		return channelpolicy.ObjectData
	case channelpolicy.LedgerAnchor:
		return channelpolicy.AnchorList
	case channelpolicy.LedgerAnchorObjects:
		return channelpolicy.AnchorData
	}
	return channelpolicy.KeyUse
}

// endpoints are the classes of sns:Subscribe request: every protocol with
// every class of endpoint (each roster queue, a queue of each account, an
// endpoint that is no queue), so that protocol and endpoint are each judged
// on their own. The queues of an account are asked for the accounts that
// stand for their class (standsFor), and for the accounts of the principals
// asked: the topic's policy ties an endpoint to its subscriber's account.
func (m *AccessMatrix) endpoints(standsFor func(string) string, askers []*principal) []*endpoint {
	type ep struct {
		label   string
		values  []string
		queue   *target
		account string
	}
	var eps []ep
	accounts := map[string]bool{}
	for _, name := range m.order {
		t := m.targets[name]
		accounts[t.Account] = true
		if t.kind == channelpolicy.Queue {
			eps = append(eps, ep{name, t.Aliases, t, t.Account})
		}
	}
	for acct := range m.decl.rosterAccounts {
		accounts[acct] = true
	}
	if w := m.a.organisation().witness; w != "" {
		accounts[w] = true
	}
	for acct := range m.endpointAccounts {
		accounts[acct] = true
	}
	// Of each class, the account that stands for it and one more: a
	// subscriber's queue of another account of its own class.
	asked := map[string]bool{}
	second := map[string]bool{}
	for _, acct := range cfnmodel.SortedKeys(accounts) {
		switch r := standsFor(acct); {
		case r == acct:
			asked[acct] = true
		case !second[r]:
			second[r], asked[acct] = true, true
		}
	}
	// And a queue of each subscriber's own account. Not in an
	// environment-agnostic app: its stacks' one account is unknown at synth,
	// and may be any account the policies name.
	if !m.agnostic() {
		for _, p := range askers {
			asked[p.Account] = true
		}
	}
	accounts = asked
	region := m.a.Region()
	for _, acct := range cfnmodel.SortedKeys(accounts) {
		eps = append(eps, ep{"a-queue-of/" + orLabel(acct), []string{fmt.Sprintf("arn:aws:sqs:%s:%s:erasure-witness-queue", region, iameval.OrStar(acct))}, nil, acct})
		// A queue named like a store's (contract.QueueNamePrefix) that is no
		// queue of this app: the class a store-queue pattern draws.
		eps = append(eps, ep{"a-store-queue-of/" + orLabel(acct), []string{fmt.Sprintf("arn:aws:sqs:%s:%s:%serasure-witness", region, iameval.OrStar(acct), contract.QueueNamePrefix)}, nil, acct})
	}
	eps = append(eps, ep{"not-a-queue", []string{"https://erasure-witness.invalid/"}, nil, ""})
	var out []*endpoint
	for _, proto := range []string{"sqs", "http", "https", "email", "email-json", "lambda", "application", "firehose", "sms"} {
		for _, e := range eps {
			label := proto + ":" + e.label
			out = append(out, &endpoint{label: label, cellLabel: "sns:Subscribe(" + label + ")", protocol: proto, values: e.values, queue: e.queue, account: e.account})
		}
	}
	return out
}

// ClassCount is the matrix's cells of one principal class.
type ClassCount struct {
	Class      string `json:"class"`
	Principals int    `json:"principals"` // principals of the class evaluated
	Cells      int    `json:"cells"`
	Allowed    int    `json:"allowed"` // cells the channel needs allowed
	Failing    int    `json:"failing"`
}

// Classes counts the cells by principal class, in a stable order.
func (m *AccessMatrix) Classes() []ClassCount {
	by := map[string]*ClassCount{}
	principals := map[string]map[string]bool{}
	for _, c := range m.Cells {
		cc := by[c.Class]
		if cc == nil {
			cc = &ClassCount{Class: c.Class}
			by[c.Class], principals[c.Class] = cc, map[string]bool{}
		}
		cc.Cells++
		principals[c.Class][c.Principal] = true
		if c.Want == Allowed {
			cc.Allowed++
		}
		if !c.Holds() {
			cc.Failing++
		}
	}
	var out []ClassCount
	for _, k := range cfnmodel.SortedKeys(by) {
		by[k].Principals = len(principals[k])
		out = append(out, *by[k])
	}
	return out
}
