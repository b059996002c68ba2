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

// findPrincipals derives the principal classes from the policies.
func (m *AccessMatrix) findPrincipals(stores []Store) {
	a := m.a
	region := a.Region()
	// The app's roles, handlers first under their store's name.
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
	// Accounts, services and patterns the policies mention.
	accounts := map[string]bool{m.channelAccount: true}
	services := map[string]bool{"sns.amazonaws.com": true, "events.amazonaws.com": true}
	var patterns []string
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
	// A witness for each region a pattern draws: the administrators', and
	// any other pattern's.
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
		for _, a := range patternAccounts(f[4], append(append([]string{}, accountList...), patternExtra...), m.agnostic()) {
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
	m.addPrincipal(snsFor(ErasureTopicSNS, classTopicSNS, m.topicIdents, m.channelAccount, m.channelRegion))
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

// evaluateAll decides every class against every action of every resource.
func (m *AccessMatrix) evaluateAll() {
	cover := m.identityIndex()
	var witnesses []*principal
	var roles []*principal
	for _, name := range m.principalOrder {
		p := m.principals[name]
		if p.class == classHandler || p.class == classRole {
			roles = append(roles, p)
		} else {
			witnesses = append(witnesses, p)
		}
	}
	rolesByAlias := map[string][]*principal{}
	for _, r := range roles {
		for _, al := range r.Aliases {
			rolesByAlias[al] = append(rolesByAlias[al], r)
		}
	}
	signatures := map[string]map[*principal]string{}
	storeOf := map[*principal]string{}
	for name, h := range m.handlers {
		storeOf[h] = name
	}
	// Every target's candidates first, so that the cells are allocated once.
	candidatesOf := make([][]*principal, len(m.order))
	endpointsOf := make([][]*endpoint, len(m.order))
	askPlain, askDirect := make([]bool, len(m.order)), make([]bool, len(m.order))
	for ti, tname := range m.order {
		t := m.targets[tname]
		askPlain[ti] = m.only == nil && m.tlsOnly(t)
		askDirect[ti] = m.only == nil && t.kind.IsKey() && t.Via != ""
	}
	asksOf := make([]func(*principal, *endpoint) bool, len(m.order))
	cells := 0
	for ti, tname := range m.order {
		t := m.targets[tname]
		exact, pats := m.a.principalsNamedBy(t)
		type standing struct {
			account string
			sig     string
		}
		represented := map[standing]bool{}
		// Which of pats cover a principal, remembered by the list of pats
		// (most targets' policies name the same patterns).
		patsKey := strings.Join(pats, "\x00")
		sigs := signatures[patsKey]
		if sigs == nil {
			sigs = map[*principal]string{}
			signatures[patsKey] = sigs
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
		for _, w := range witnesses {
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
		asked := cover.reachedBy(t)
		for al := range exact {
			for _, r := range rolesByAlias[al] {
				asked[r] = true
			}
		}
		for _, r := range roles {
			// A handler the path needs here is always asked itself: a grant
			// it lost must fail its own cell, not pass as its witness's.
			needed := r.class == classHandler && (t.kind == channelpolicy.ResponseQueue || t.kind == channelpolicy.ResponseKey || t.store != "" && storeOf[r] == t.store)
			if asked[r] || needed || cover.patternReaches(r, t) || !represented[standing{standsFor(r.Account), signature(r)}] {
				candidates = append(candidates, r)
			}
		}
		candidatesOf[ti] = candidates
		for _, action := range channelpolicy.Catalogue[t.kind] {
			switch {
			case m.only != nil && !m.only(t.kind, action):
			case action == "sns:Subscribe":
				endpointsOf[ti] = m.endpoints(standsFor, candidates)
				// A subscription names a second resource, its endpoint, of
				// one account: of each kind of witness, one of the endpoint's
				// own account and one of another account of its class.
				subscribers := newSubscriberClasses(groups, standsFor)
				asked := map[*principal]bool{}
				for _, p := range candidates {
					asked[p] = true
				}
				for _, e := range endpointsOf[ti] {
					for _, p := range subscribers.extra(e) {
						if !asked[p] {
							asked[p] = true
							candidates = append(candidates, p)
						}
					}
				}
				// Each endpoint asks every role and witness of no account,
				// and at most two witnesses of each group.
				cells += (len(candidatesOf[ti]) + len(groups)) * len(endpointsOf[ti])
				candidatesOf[ti], asksOf[ti] = candidates, subscribers.asks
			default:
				cells += len(candidates)
				if askPlain[ti] {
					cells += len(candidates)
				}
				if askDirect[ti] && slices.Contains(channelpolicy.KeyUse, action) {
					cells += len(candidates)
				}
			}
		}
	}
	m.Cells = make([]Cell, 0, len(m.Cells)+cells)
	for ti, tname := range m.order {
		t := m.targets[tname]
		for _, p := range candidatesOf[ti] {
			base := m.a.request(p, "", t)
			plain, direct := base, base
			if askDirect[ti] {
				direct = base.Direct()
			}
			if askPlain[ti] {
				plain = base.Clone()
				plain.Ctx[iameval.KeySecureTransport] = []string{"false"}
			}
			onlySubscribes := asksOf[ti] != nil && !asksOf[ti](p, nil)
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
					for _, e := range endpointsOf[ti] {
						if !asksOf[ti](p, e) {
							continue
						}
						ctx["sns:protocol"], ctx["sns:endpoint"] = []string{e.protocol}, e.values
						m.cell(p, q, t, e)
					}
					continue
				}
				m.cell(p, q, t, nil)
				if askPlain[ti] {
					m.plainCell(p, plain.WithLowerAction(action, lowerActions[action]), t)
				}
				if askDirect[ti] && slices.Contains(channelpolicy.KeyUse, action) {
					m.directCell(p, direct.WithLowerAction(action, lowerActions[action]), t)
				}
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
