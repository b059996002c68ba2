package erasurecheck

import (
	"fmt"
	"sort"

	"github.com/linn-cloud/erasure-channel/contract/timing"

	"github.com/linn-cloud/erasure-channel/contract"
)

// Cell is one row of the access matrix: may this principal take this action
// on this resource, what the channel needs, and what the synthesized
// policies decide.
type Cell struct {
	Principal string   `json:"principal"` // e.g. handler/space, other/222222222222, sns/erasure-topic
	Action    string   `json:"action"`
	Resource  string   `json:"resource"` // e.g. queue/space, response-queue, bucket-objects/bitmaps
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

	a          *assembly
	principals map[string]*principal
	targets    map[string]*target
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
	if p == nil || r == nil {
		return Undecided
	}
	return m.a.evaluate(m.request(p, action, r)).Decision
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

// Names of the principals the matrix models besides the app's own roles.
const (
	AccountServicePrincipal = "account-service" // the channel account's publisher and response reader
	ErasureTopicSNS         = "sns/erasure-topic"
	otherTopicSNS           = "sns/another-topic/" // + account
	otherPrincipal          = "other/"             // + account
	handlerPrincipal        = "handler/"           // + store
)

// everything is the identity policy of a principal that its own account
// lets do anything: only resource policies can keep it out.
var everything = []statement{{Sid: "AllowEverything", Effect: "Allow", Action: "*", Resource: "*", from: "its own identity policy"}}

func (a *assembly) accessMatrix(cfg Config) *AccessMatrix {
	cfg.Access = false
	return a.matrixFor(a.check(cfg).Stores, cfg)
}

// matrixFor builds the access matrix of the channel and the stores the check found.
func (a *assembly) matrixFor(stores []Store, cfg Config) *AccessMatrix {
	m := &AccessMatrix{a: a, principals: map[string]*principal{}, targets: map[string]*target{}}
	topics := a.erasureTopics(cfg.TopicArns)

	var channelAccount string
	if tt, tid, ok := a.channelTopic(); ok {
		channelAccount = tt.Account
		m.targets["topic"] = a.policyTarget(tt, tid, "AWS::SNS::TopicPolicy", "Topics")
		if k := a.keyTarget(tt, tt.Resources[tid].Properties["KmsMasterKeyId"], "sns"); k != nil {
			m.targets["topic-key"] = k
		}
	} else if len(topics.idents) > 0 {
		channelAccount = arnAccount(topics.idents[0])
	}
	accounts := []string{channelAccount}
	for _, s := range stores {
		t := a.templateAt(s.Template)
		if t == nil {
			continue
		}
		name := storeName(s)
		accounts = append(accounts, t.Account)
		m.targets["queue/"+name] = a.policyTarget(t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues")
		if k := a.keyTarget(t, t.Resources[s.QueueID].Properties["KmsMasterKeyId"], "sqs"); k != nil {
			m.targets["queue-key/"+name] = k
		}
		if b := s.Bitmap; b != nil {
			m.targets["bucket/"+name] = a.policyTarget(b.t, b.BucketID, "AWS::S3::BucketPolicy", "Bucket")
			objects := *m.targets["bucket/"+name]
			objects.aliases = nil
			for _, al := range aliases(b.t, b.BucketID) {
				objects.aliases = append(objects.aliases, al+"/"+b.Prefix+"subject-probe/segments/s0.1.crbm")
			}
			m.targets["bucket-objects/"+name] = &objects
			if k := a.keyTarget(b.t, a.bucketKeyValue(b), "s3"); k != nil {
				m.targets["bucket-key/"+name] = k
			}
		}
		if len(s.FunctionIDs) > 0 {
			fn := t.Resources[s.FunctionIDs[0]]
			m.principals[handlerPrincipal+name] = a.rolePrincipal(t, fn.Properties["Role"])
			if _, ok := m.targets["response-queue"]; !ok {
				if env, _ := dig(fn.Properties, "Environment", "Variables").(map[string]any); env != nil {
					a.responseTargets(m, t, env[contract.EnvResponseQueueURL])
				}
			}
		}
	}
	accounts = uniqueSorted(accounts)
	if channelAccount != "" {
		m.principals[AccountServicePrincipal] = &principal{account: channelAccount,
			aliases:  []string{"arn:aws:iam::" + channelAccount + ":role/account-service"},
			identity: []statement{{Sid: "GrantedOutsideThisApp", Effect: "Allow", Action: "*", Resource: "*", from: "the account service's identity policy"}}}
	}
	m.principals[ErasureTopicSNS] = &principal{service: "sns.amazonaws.com", account: channelAccount, aliases: topics.idents}
	for _, acct := range accounts {
		m.principals[otherTopicSNS+acct] = &principal{service: "sns.amazonaws.com", account: acct,
			aliases: []string{fmt.Sprintf("arn:aws:sns:%s:%s:another-topic", a.region(), acct)}}
		m.principals[otherPrincipal+acct] = &principal{account: acct,
			aliases: []string{"arn:aws:iam::" + acct + ":role/not-a-store-handler"}, identity: everything}
	}
	m.Cells = m.cells(stores, accounts)
	return m
}

// findings are the failing cells, each on the resource it reaches.
func (m *AccessMatrix) findings() Findings {
	var out Findings
	for _, c := range m.Failing() {
		r := m.targets[c.Resource]
		typ, detail := timing.BreaksErasure, fmt.Sprintf("the channel needs it denied, and the synthesized policies allow it (%s): narrow the policy", c.Because)
		switch {
		case c.Got == Undecided:
			typ, detail = timing.Invalid, fmt.Sprintf("the check cannot judge it (%s): use the condition operators the channel's policies use, or leave the statement out", c.Because)
		case c.Want == Allowed:
			typ, detail = timing.Missing, fmt.Sprintf("the channel needs it allowed, and the synthesized policies deny it (%s): the data path fails at run time", c.Because)
		}
		out = append(out, Finding{Problem: timing.Problem{Path: "Access[" + c.Principal + " " + c.Action + " " + c.Resource + "]", Type: typ, Detail: detail},
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

// cells lists what the channel needs allowed and what it needs denied.
func (m *AccessMatrix) cells(stores []Store, accounts []string) []Cell {
	var out []Cell
	add := func(p, action, r string, want Decision) {
		if m.principals[p] == nil || m.targets[r] == nil {
			return
		}
		v := m.a.evaluate(m.request(m.principals[p], action, m.targets[r]))
		out = append(out, Cell{Principal: p, Action: action, Resource: r, Want: want, Got: v.Decision, Because: v.Because})
	}
	acct := AccountServicePrincipal
	add(acct, "sns:Publish", "topic", Allowed)
	add(acct, "kms:GenerateDataKey", "topic-key", Allowed)
	for _, act := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage"} {
		add(acct, act, "response-queue", Allowed)
	}
	add(acct, "kms:Decrypt", "response-key", Allowed)
	for _, x := range accounts {
		add(otherPrincipal+x, "sqs:SendMessage", "response-queue", Denied)
	}
	names := make([]string, 0, len(stores))
	for _, s := range stores {
		names = append(names, storeName(s))
	}
	sort.Strings(names)
	for _, s := range names {
		h := handlerPrincipal + s
		add(ErasureTopicSNS, "sqs:SendMessage", "queue/"+s, Allowed)
		add(ErasureTopicSNS, "kms:GenerateDataKey", "queue-key/"+s, Allowed)
		add(ErasureTopicSNS, "kms:Decrypt", "queue-key/"+s, Allowed)
		for _, x := range accounts {
			add(otherTopicSNS+x, "sqs:SendMessage", "queue/"+s, Denied)
			add(otherTopicSNS+x, "kms:GenerateDataKey", "queue-key/"+s, Denied)
		}
		for _, act := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:SendMessage"} {
			add(h, act, "queue/"+s, Allowed) // the event source reads with the handler's role; pass two re-sends
		}
		add(h, "kms:Decrypt", "queue-key/"+s, Allowed)
		add(h, "kms:GenerateDataKey", "queue-key/"+s, Allowed)
		add(h, "sqs:SendMessage", "response-queue", Allowed)
		add(h, "kms:GenerateDataKey", "response-key", Allowed)
		add(h, "kms:Decrypt", "response-key", Allowed)
		for _, act := range []string{"s3:ListBucket", "s3:ListBucketVersions"} {
			add(h, act, "bucket/"+s, Allowed)
		}
		for _, act := range []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:GetObjectVersion", "s3:DeleteObjectVersion"} {
			add(h, act, "bucket-objects/"+s, Allowed)
		}
		add(h, "kms:Decrypt", "bucket-key/"+s, Allowed)
		add(h, "kms:GenerateDataKey", "bucket-key/"+s, Allowed)
		for _, x := range accounts {
			for _, act := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage"} {
				add(otherPrincipal+x, act, "queue/"+s, Denied)
			}
		}
		for _, o := range names {
			if o == s {
				continue
			}
			for _, act := range []string{"sqs:ReceiveMessage", "sqs:SendMessage"} {
				add(h, act, "queue/"+o, Denied)
			}
			add(h, "kms:Decrypt", "queue-key/"+o, Denied)
			for _, act := range []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:DeleteObjectVersion"} {
				add(h, act, "bucket-objects/"+o, Denied)
			}
			add(h, "s3:ListBucket", "bucket/"+o, Denied)
			add(h, "kms:Decrypt", "bucket-key/"+o, Denied)
		}
	}
	return out
}

// request builds the request context IAM would see for p calling action on
// r: the principal's ARN and account, TLS, the topic SNS acts for, and for
// KMS the service the key is used through.
func (m *AccessMatrix) request(p *principal, action string, r *target) request {
	ctx := map[string][]string{"aws:securetransport": {"true"}}
	if p.service != "" {
		ctx["aws:sourcearn"] = p.aliases
		ctx["aws:sourceaccount"] = []string{p.account}
	} else {
		ctx["aws:principalarn"] = p.aliases
		ctx["aws:principalaccount"] = []string{p.account}
		ctx["kms:calleraccount"] = []string{p.account}
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
		for _, id := range sortedIDs(t.Resources) {
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
	for _, pid := range sortedIDs(t.Resources) {
		if r := t.Resources[pid]; r.Type == policyType && (mentions(r.Properties[listProp], id) || refersTo(r.Properties[listProp], id)) {
			tg.policy = append(tg.policy, labelled(statementsIn(t, r.Properties["PolicyDocument"]), t, pid)...)
		}
	}
	return tg
}

// keyTarget is the KMS key v names, with its key policy, or nil when it is
// not a key of this app; via is the service that uses it for its callers.
func (a *assembly) keyTarget(t *template, v any, via string) *target {
	if v == nil {
		return nil
	}
	kt, kid, ok := a.resourceOf(a.ident(t, v))
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
	m.targets["response-queue"] = a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues")
	if k := a.keyTarget(qt, qt.Resources[qid].Properties["KmsMasterKeyId"], "sqs"); k != nil {
		// A key's ARN is unknown before it is deployed: a store in another
		// app names the response key by the ARN its channel's output gave.
		// An ARN naming a key of the response key's account and region is
		// taken to be it (and only for this key).
		if k.account != "" && qt.Region != "" {
			k.aliases = append(k.aliases, fmt.Sprintf("arn:aws:kms:%s:%s:key/*", qt.Region, k.account))
		}
		m.targets["response-key"] = k
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
