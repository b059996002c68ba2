package erasurecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// topicRefs is every identity the erasure topic is known by.
type topicRefs struct {
	idents []string
	keys   []string // the topic's key ARNs, when the channel is another app's (Config.TopicKeyArns)
}

// outsideTopic says whether no erasure topic is a resource of the app: the
// channel is another app's, known by ARN only.
func (r topicRefs) outsideTopic(a *assembly) bool {
	for _, ti := range r.idents {
		if _, _, ok := a.ResourceOf(ti); ok {
			return false
		}
	}
	return len(r.idents) > 0
}

func (a *assembly) erasureTopics(extraARNs []string) topicRefs {
	r := topicRefs{idents: append([]string(nil), extraARNs...)}
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			// The channel's marker, or a topic of the app whose name gives a
			// configured ARN (a plain template that declares the topic).
			if res := t.Resources[id]; res.Type == "AWS::SNS::Topic" && (res.Metadata[TopicMetadataKey] == true || len(extraARNs) > 0 && r.isTopic(t, id)) {
				r.idents = append(r.idents, cfnmodel.Aliases(t, id)...)
			}
		}
	}
	r.idents = cfnmodel.UniqueSorted(r.idents)
	return r
}

// names says whether v (a subscription's TopicArn in t) is the erasure topic:
// by Ref, cross-stack import, a nested stack's parameter, or ARN.
//
// A plain template (no cloud assembly manifest) may build the ARN from its
// own account and region (!Sub arn:aws:sns:${AWS::Region}:${AWS::AccountId}:name):
// those unknowns match any value of an ARN the check was given.
// isTopic says whether topic resource id of t is the erasure topic: by the
// channel's marker, or by the ARN its name gives (a pattern over a plain
// template's account and region) matching a configured ARN.
func (r topicRefs) isTopic(t *template, id string) bool {
	for _, al := range cfnmodel.Aliases(t, id) {
		for _, want := range r.idents {
			if iameval.ARNsMeet(al, want) {
				return true
			}
		}
	}
	return false
}

func (r topicRefs) names(a *assembly, t *template, v any) bool {
	if id := a.Ident(t, v); id != "" {
		return slices.Contains(r.idents, id)
	}
	pattern := a.IdentPattern(t, v)
	if !strings.Contains(pattern, "*") || strings.HasPrefix(pattern, "res:") {
		return false
	}
	for _, id := range r.idents {
		if !strings.HasPrefix(id, "res:") && iameval.GlobMatch(pattern, id) {
			return true
		}
	}
	return false
}

// isTopicKey says whether ident is the key of an erasure topic.
func (a *assembly) isTopicKey(r topicRefs, keyIdent string) bool {
	for _, k := range r.keys {
		if iameval.ARNsMeet(k, keyIdent) || k == keyIdent {
			return true
		}
	}
	for _, ti := range r.idents {
		if tt, id, ok := a.ResourceOf(ti); ok {
			if k := a.Ident(tt, tt.Resources[id].Properties["KmsMasterKeyId"]); k != "" && k == keyIdent {
				return true
			}
		}
	}
	return false
}

// checkFunctionWiring: what a handler needs at run time that a template can
// show, refused at synth instead of failing on the first request: its role
// may decrypt the store queue's key (the event source reads with it), and it
// may send to the response queue and use the response queue's key.
func (a *assembly) checkFunctionWiring(sc *storeCheck, ft *template, fnID string, fn resource, env map[string]any) {
	t, s, f := ft, sc.store, &sc.f
	roleT, roleID, ok := a.ResourceOf(a.Ident(t, fn.Properties["Role"]))
	if !ok {
		return // an imported role: its policies are not in this assembly (README: known limits)
	}
	role := a.rolePrincipal(t, fn.Properties["Role"])
	defer a.reportUnreadBoundary(sc, fnID, roleT, roleID, role)
	a.checkOwnQueueCalls(sc, fnID, roleT, roleID, role, env)
	urlValue, ok := env[contract.EnvResponseQueueURL]
	if !ok {
		// The seed names no variable for the response queue: a handler may
		// find it another way. What must hold is that its role may answer
		// there, judged where the channel's response queue is in this app;
		// with the channel elsewhere there is nothing to judge it against.
		rt, rid, found := a.channelResponseQueue()
		if !found {
			return
		}
		urlValue = cfnmodel.GetAtt(rid, "Arn")
		t = rt
	}
	queue := a.Pattern(t, urlValue) // a plain template's own account and region as a pattern
	if queue == "" {
		f.add(ruleResponseQueueUnresolved, fnID, s.Path.Child("responseQueue"), props("Environment", "Variables", contract.EnvResponseQueueURL), "function %s names the response queue (%s) with a value the check cannot resolve, so its grants cannot be checked; give the queue's URL, a reference or an import", fnID, contract.EnvResponseQueueURL)
		return
	}
	queue = cfnmodel.SQSURLToARN(queue)
	qt, qid, inApp := a.ResourceOf(queue)
	if !inApp { // a literal ARN: the channel's queue may still be in this assembly, under its name
		qt, qid, inApp = a.ByAlias(queue, "AWS::SQS::Queue")
	}
	if inApp && qt == sc.t && (qid == s.QueueID || qid == s.DeadLetterID) {
		return // answers to the store's own queue: checkHandlerEnvironment's line
	}
	// The response queue and its key: with their policies where they are in
	// this app; otherwise by ARN, their policies outside what was read (the
	// evaluator then decides only what the role's own policies settle).
	var rq, rkey *target
	if inApp {
		rq = a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues")
		if k := qt.Resources[qid].Properties["KmsMasterKeyId"]; k != nil {
			rkey = a.responseKey(qt, qid)
			if rkey == nil { // a key of another app, by ARN
				rkey = a.outsideKey(a.Ident(qt, k), qt.Account, qt.Region)
			}
		}
	} else {
		rq = &target{Resource: iameval.Resource{Aliases: []string{queue}, Account: iameval.ARNAccount(queue), Region: iameval.ARNRegion(queue), PolicyUnknown: true}}
		// Whether the channel's queue is encrypted is not known here: the
		// channel's queues always are (ErasureChannel), so a key of the
		// queue's account and region must be usable.
		rkey = a.outsideKey("", rq.Account, rq.Region)
	}
	a.checkRolePaths(sc, roleT, roleID, rq)
	if v := a.decide(role, "sqs:SendMessage", rq); v.Decision == Denied && v.DeniedByResource && a.isChannelQueue(rq) {
		f.add(ruleRoleOnRoster, fnID, s.Path.Child("roster"), props("Role"), "the role of function %s is not on the channel's roster: the response queue denies every answer it sends (%s); add the store to ErasureChannelProps.Stores and let ErasureSubscriber name its handler (contract.HandlerName, under the path contract.HandlerRolePath)", fnID, v.Because)
	} else if named := s.Path.RootName() == "ErasureSubscriber"; named && a.isChannelQueue(rq) && rosterKnown(rq) && !slices.Contains(iameval.StringsOf(rq.t.Resources[rq.id].Metadata[RosterMetadataKey]), s.Spec.Name) {
		// The channel admits the handler path of its roster's accounts; the
		// store's own name is what the ledger and the response reader judge.
		f.add(ruleStoreOnRoster, fnID, s.Path.Child("roster"), props("Environment", "Variables", contract.EnvSubscriber), "store %s is not on the channel's roster: the response reader refuses every answer it sends (%s) and no round waits for it; add the store to ErasureChannelProps.Stores", s.Spec.Name, contract.CodeSenderNotOnRoster)
	} else {
		a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerAnswers, actions: []string{"sqs:SendMessage"}, target: rq,
			on: "the response queue", breaks: "every answer fails and the store's requests dead-letter", at: s.Path.Child("responseQueue")})
	}
	if rkey == nil {
		return
	}
	a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerUsesResponseKey, actions: []string{"kms:GenerateDataKey", "kms:Decrypt"}, target: rkey,
		on: "the response queue's key", breaks: "every answer fails", at: s.Path.Child("responseQueue")})
}

// checkOwnQueueCalls judges the calls of the store's own queue, by default
// (whatever Config.Access says): the event source's receives, deletes and
// attribute reads, the queue key's decrypt it needs, and pass two's send to
// the queue with the key's data key (when the handler names its own queue).
func (a *assembly) checkOwnQueueCalls(sc *storeCheck, fnID string, roleT *template, roleID string, role *principal, env map[string]any) {
	s := sc.store
	queue := a.policyTarget(sc.t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues")
	key := a.keyTarget(sc.t, sc.queue.Properties["KmsMasterKeyId"], "sqs")
	at := s.Path.Child("handlerRole")
	if !a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerReadsQueue, actions: []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"},
		target: queue, on: "the store's queue", breaks: "the event source cannot read a single message, or reads each again until it dead-letters", at: at}) {
		return
	}
	if key != nil && !a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerDecrypts, actions: []string{"kms:Decrypt"}, target: key,
		on: "the queue's key", breaks: "the event source cannot read a single message", at: at}) {
		return
	}
	if _, refiles := env[contract.EnvQueueURL]; !refiles || fnID != s.FunctionID {
		// No pass two to its own queue (EC315's and the handler's business),
		// or a second reader, which the lockdown keeps from sending at all:
		// pass two is the store's handler's.
		return
	}
	if !a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerRefiles, actions: []string{"sqs:SendMessage"}, target: queue,
		on: "the store's queue", breaks: "pass two is never sent and no ERASE completes", at: s.Path.Child("passTwo")}) {
		return
	}
	if key != nil {
		a.judgeCall(sc, fnID, roleT, roleID, role, storeCall{rule: ruleHandlerRefiles, actions: []string{"kms:GenerateDataKey", "kms:Decrypt"}, target: key,
			on: "the queue's key", breaks: "pass two is never sent and no ERASE completes", at: s.Path.Child("passTwo")})
	}
}

// outsideKey is a KMS key of another app: by its ARN where it is known,
// else any key of account and region; its key policy is outside what was read.
func (a *assembly) outsideKey(arn, account, region string) *target {
	if !strings.HasPrefix(arn, "arn:") {
		arn = fmt.Sprintf("arn:aws:kms:%s:%s:key/*", iameval.OrStar(region), iameval.OrStar(account))
	}
	return &target{Resource: iameval.Resource{Aliases: []string{arn}, Account: account, Region: region, IsKey: true, Via: "sqs", PolicyUnknown: true}}
}

// checkReaders: every reader of the store queue is one the check can judge.
// A queue consumed by anything but a Lambda event source (an EventBridge
// Pipe, a role allowed sqs:ReceiveMessage that is not a handler's, another
// account through the queue policy) would take requests from the handler
// without the visibility/timeout rule holding: refused, naming the reader.
func (a *assembly) checkReaders(sc *storeCheck) {
	t, s, f := sc.t, sc.store, &sc.f
	queue := a.policyTarget(t, s.QueueID, "AWS::SQS::QueuePolicy", "Queues")
	handlerRoles := map[string]bool{}
	for _, fn := range s.functions {
		handlerRoles[a.Ident(fn.t, fn.t.Resources[fn.id].Properties["Role"])] = true
	}
	ix := a.readerIndexOf()
	appNames := ix.appNames // every name of an app role, asked with its own policies
	for _, pipe := range ix.pipes {
		if iameval.CoversAny(a.Ident(pipe.t, pipe.t.Resources[pipe.id].Properties["Source"]), queue.Aliases) {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "EventBridge Pipe %s reads the queue: the check cannot judge its timeout against the visibility timeout nor its partial failures; consume the queue only with the handler's Lambda event source", pipe.id)
		}
	}
	// A role is allowed only by an Allow: of its identity reaching the queue,
	// or of the queue's policy. Without an Allow of ReceiveMessage in the
	// queue's policy, only the roles whose identity allows it on the queue
	// are asked; every other role is denied without asking.
	policyAllows := false
	for _, st := range queue.Policy {
		policyAllows = policyAllows || strings.EqualFold(st.Effect, "Allow") && st.HasAction("sqs:ReceiveMessage")
	}
	for _, r := range ix.roles {
		if handlerRoles[r.ident] || !policyAllows && !r.mayReceiveFrom(queue) {
			continue
		}
		if a.decide(r.p, "sqs:ReceiveMessage", queue).Decision == Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "role %s (stack %s) may sqs:ReceiveMessage from the queue but is not the role of a function with an event source on it: a poller the check cannot judge would take requests from the handler; remove the grant", r.id, r.t.Stack)
		}
	}
	for _, u := range ix.usersAndGroups {
		p := &principal{Principal: iameval.Principal{Aliases: []string{cfnmodel.ResIdent(u.t, u.id)}, Account: u.t.Account, Identity: a.identityStatements(u.t, u.id),
			Boundary: a.boundaryOf(u.t, u.id)}}
		if a.decide(p, "sqs:ReceiveMessage", queue).Decision == Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "%s %s (stack %s) may sqs:ReceiveMessage from the queue: a reader the check cannot judge would take requests from the handler; remove the grant", strings.TrimPrefix(u.t.Resources[u.id].Type, "AWS::IAM::"), u.id, u.t.Stack)
		}
	}
	// Principals outside the app, as the queue policy draws them: each
	// principal, pattern and service it names, anyone of the store's account,
	// and anyone of an account it does not name. One of another account is
	// allowed everything by its own account; one of the store's account has no
	// grant of its own, so that only the queue policy can let it in (any
	// principal of the account with a broad identity policy is the access
	// matrix's, with Config.Access).
	seen := map[string]bool{}
	everything := newEverything()
	ask := func(label, arn, account string) {
		if seen[label] {
			return
		}
		seen[label] = true
		p := &principal{Principal: iameval.Principal{Aliases: []string{arn}, Account: account}}
		if account != t.Account || t.Account == "" {
			p.Identity = everything
		}
		if a.decide(p, "sqs:ReceiveMessage", queue).Decision == Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "the queue policy lets %s sqs:ReceiveMessage: a reader the check cannot judge (a poller outside the app) would take requests from the handler; remove the statement", describePrincipal(label))
		}
	}
	accounts := map[string]bool{t.Account: true}
	var named, patterns, services []string
	for _, st := range queue.Policy {
		aws, svcs := st.PrincipalValues()
		services = append(services, svcs...)
		for _, v := range append(aws, st.ConditionValues("aws:PrincipalArn")...) {
			accounts[iameval.ARNAccount(v)], accounts[v] = true, true
			switch {
			case v == "" || v == "*" || appNames[v]:
			case len(v) == 12 && isDigits(v):
				named = append(named, "arn:aws:iam::"+v+":role/erasure-witness")
			case strings.HasPrefix(v, "arn:") && strings.ContainsAny(v, "*?"):
				patterns = append(patterns, v)
			case strings.HasPrefix(v, "arn:"):
				named = append(named, v)
			}
		}
	}
	for _, arn := range cfnmodel.UniqueSorted(named) {
		ask(arn, arn, iameval.ARNAccount(arn))
	}
	for _, pat := range cfnmodel.UniqueSorted(patterns) {
		if inst := instantiate(pat, appNames); inst != "" {
			account := iameval.ARNAccount(inst)
			if account == "*" {
				account = t.Account
			}
			ask(pat, inst, account)
		}
	}
	for _, svc := range cfnmodel.UniqueSorted(services) {
		p := &principal{Principal: iameval.Principal{Service: svc, Aliases: []string{"arn:aws:" + strings.Split(svc, ".")[0] + ":" + iameval.OrStar(t.Region) + ":" + iameval.OrStar(t.Account) + ":erasure-witness"}, Account: t.Account, Region: t.Region}}
		if a.decide(p, "sqs:ReceiveMessage", queue).Decision == Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "the queue policy lets a service (%s) sqs:ReceiveMessage: a reader the check cannot judge would take requests from the handler; remove the statement", svc)
		}
	}
	if t.Account != "" {
		ask("every principal of the store's account", "arn:aws:iam::"+t.Account+":role/erasure-witness", t.Account)
	}
	fresh := freshAccount(accounts)
	ask("*", "arn:aws:iam::"+fresh+":role/erasure-witness", fresh)
}

// readerIndex is what checkReaders asks of every store, read once: the
// app's pipes, users and groups, and its roles with the identity statements
// that allow sqs:ReceiveMessage.
type readerIndex struct {
	pipes, usersAndGroups []resourceRef
	roles                 []readerRole
	appNames              map[string]bool
}

type readerRole struct {
	resourceRef
	ident  string
	p      *principal
	allows []statement // its identity's Allows of sqs:ReceiveMessage
}

// mayReceiveFrom says whether one of the role's identity Allows of
// sqs:ReceiveMessage reaches the queue (NotResource, a pattern or its ARN).
func (r readerRole) mayReceiveFrom(queue *target) bool {
	for _, st := range r.allows {
		if st.Resource == nil && st.NotResource == nil || st.Covers(queue.Aliases) {
			return true
		}
	}
	return false
}

func (a *assembly) readerIndexOf() *readerIndex {
	if a.readers != nil {
		return a.readers
	}
	ix := &readerIndex{appNames: map[string]bool{}}
	for _, rt := range a.Templates {
		for _, id := range rt.IDs() {
			switch rt.Resources[id].Type {
			case "AWS::Pipes::Pipe":
				ix.pipes = append(ix.pipes, resourceRef{rt, id})
			case "AWS::IAM::User", "AWS::IAM::Group":
				ix.usersAndGroups = append(ix.usersAndGroups, resourceRef{rt, id})
			case "AWS::IAM::Role":
				p := a.appRole(rt, id)
				for _, al := range p.Aliases {
					ix.appNames[al] = true
				}
				r := readerRole{resourceRef: resourceRef{rt, id}, ident: cfnmodel.ResIdent(rt, id), p: p}
				for _, st := range p.Identity {
					if strings.EqualFold(st.Effect, "Allow") && st.HasAction("sqs:ReceiveMessage") {
						r.allows = append(r.allows, st)
					}
				}
				ix.roles = append(ix.roles, r)
			}
		}
	}
	a.readers = ix
	return ix
}

// describePrincipal names a principal without account-internal references.
func describePrincipal(p string) string {
	switch {
	case p == "*":
		return "every principal (*)"
	case strings.HasPrefix(p, "res:"):
		return "a principal of this app"
	}
	return p
}

// Roster reads the roster's store names from the response queue ErasureChannel
// marked (RosterMetadataKey) in cloud assembly directories or templates:
// every store a round waits for. It returns nil when no channel with a
// roster is there.
func Roster(paths []string) ([]string, error) {
	a, err := readPaths(paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range a.Templates {
		for _, id := range t.IDs() {
			if r := t.Resources[id]; r.Type == "AWS::SQS::Queue" {
				out = append(out, iameval.StringsOf(r.Metadata[RosterMetadataKey])...)
			}
		}
	}
	return cfnmodel.UniqueSorted(out), nil
}

// channelResponseQueue is the response queue ErasureChannel built in this
// app (marked with its kind), if any.
func (a *assembly) channelResponseQueue() (*template, string, bool) {
	if a.responseQueue == nil {
		a.responseQueue = &resourceRef{}
	find:
		for _, t := range a.Templates {
			for _, id := range t.IDsOf("AWS::SQS::Queue") {
				if t.Resources[id].Metadata[channelpolicy.KindMetadataKey] == string(channelpolicy.ResponseQueue) {
					a.responseQueue = &resourceRef{t, id}
					break find
				}
			}
		}
	}
	return a.responseQueue.t, a.responseQueue.id, a.responseQueue.t != nil
}

// checkHandlerEnvironment judges a store function's ERASURE_* variables as its
// handler will read them: each value the check can know is parsed by the
// contract's own rule (contract.HandlerVariableProblem), so a value the handler
// refuses at start-up is refused here with the same words; pass two must go
// to the queue the event source reads, and answers to the channel's response
// queue.
func (a *assembly) checkHandlerEnvironment(sc *storeCheck, ft *template, fnID string, env map[string]any, c contract.Constants) {
	t, s, f := ft, sc.store, &sc.f
	for _, name := range contract.HandlerEnvironmentVariables {
		v, ok := env[name]
		if !ok {
			continue
		}
		value := a.Ident(t, v)
		if value == "" || strings.HasPrefix(value, "res:") || strings.Contains(value, "${") {
			continue // a reference or a value only deploy knows: judged by what it names
		}
		p := contract.HandlerVariableProblem(name, value, c)
		if p == "" || (name == contract.EnvPassTwoDelaySeconds || name == contract.EnvBatchTimeoutSeconds) && strings.HasPrefix(p, "above the cap") {
			continue // a cap the timing rules report with its derivation
		}
		f.add(ruleHandlerEnvironment, fnID, s.Path.Child("environment").Child(name), props("Environment", "Variables", name), "function %s: the handler refuses this value at start-up (%s: %s), so every request dead-letters unanswered", fnID, name, p)
	}
	if v, ok := env[contract.EnvQueueURL]; ok {
		x := a.Ident(t, v)
		own := cfnmodel.Aliases(sc.t, s.QueueID)
		switch {
		case x == "":
			f.add(rulePassTwoQueueUnresolved, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s takes its own queue's URL from a value only deploy knows (a parameter from SSM, another app's export): the check cannot tell it is the queue the event source reads; give a reference to the queue", fnID)
		case strings.HasPrefix(x, "res:") && x != own[0]:
			_, id, _ := a.ResourceOf(x)
			f.add(rulePassTwoOwnQueue, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s sends pass two to %s, not the queue its event source reads: pass two never runs and no ERASE completes; name the store's own queue", fnID, id)
		case !strings.HasPrefix(x, "res:") && !iameval.CoversAny(cfnmodel.SQSURLToARN(x), own[1:]):
			if len(own) > 1 { // the queue has a name: the URL names another queue
				f.add(rulePassTwoOwnQueue, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s sends pass two to a queue that is not the one its event source reads: pass two never runs and no ERASE completes; name the store's own queue", fnID)
			} else {
				f.add(rulePassTwoQueueUnresolved, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s names its own queue by a literal URL, while the queue's name is given at deploy: the check cannot tell it is the queue the event source reads; give a reference to the queue", fnID)
			}
		}
	}
	if v, ok := env[contract.EnvResponseQueueURL]; ok {
		x := a.Ident(t, v)
		qt, qid, found := a.ResourceOf(x)
		if !found && x != "" {
			qt, qid, found = a.ByAlias(cfnmodel.SQSURLToARN(x), "AWS::SQS::Queue")
			if ct, cid, channel := a.channelResponseQueue(); !found && channel && ct.Account != "" && ct.Region != "" && len(cfnmodel.Aliases(ct, cid)) > 1 {
				f.add(ruleAnswersOnResponseQueue, fnID, s.Path.Child("environment").Child(contract.EnvResponseQueueURL), props("Environment", "Variables", contract.EnvResponseQueueURL), "function %s answers on a queue that is not the channel's response queue: the account service never reads its answers; name the channel's response queue", fnID)
				return
			}
		}
		if !found || qt.Resources[qid].Type != "AWS::SQS::Queue" {
			return
		}
		ct, cid, channel := a.channelResponseQueue()
		own := qt == sc.t && (qid == s.QueueID || qid == s.DeadLetterID)
		if own || channel && (ct != qt || cid != qid) {
			f.add(ruleAnswersOnResponseQueue, fnID, s.Path.Child("environment").Child(contract.EnvResponseQueueURL), props("Environment", "Variables", contract.EnvResponseQueueURL), "function %s answers on %s, not the channel's response queue: the account service never reads its answers; name the channel's response queue", fnID, qid)
		}
	}
}

// isChannelQueue says whether r is the response queue ErasureChannel built
// (its roster, or the roster's size, is in its metadata).
func (a *assembly) isChannelQueue(r *target) bool {
	if r.t == nil {
		return false
	}
	md := r.t.Resources[r.id].Metadata
	return md[RosterMetadataKey] != nil || md[RosterSizeMetadataKey] != nil
}

// rosterKnown says whether the roster's names were read with the response
// queue r: the template keeps only their number (RosterSizeMetadataKey), the
// names are in its cloud assembly's metadata, absent from a bare template.
// A roster not known is never taken for an empty one.
func rosterKnown(r *target) bool {
	md := r.t.Resources[r.id].Metadata
	return md[RosterMetadataKey] != nil || cfnmodel.Number(md[RosterSizeMetadataKey], -1) == 0
}
