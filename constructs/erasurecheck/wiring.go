package erasurecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
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
		if _, ok := a.ResourceOf(ti); ok {
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
	if !strings.Contains(pattern, "*") || cfnmodel.IsResourceIdent(pattern) {
		return false
	}
	for _, id := range r.idents {
		if !cfnmodel.IsResourceIdent(id) && iameval.GlobMatch(pattern, id) {
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
		if ref, ok := a.ResourceOf(ti); ok {
			tt, id := ref.Template, ref.ID
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
	ref, ok := a.ResourceOf(a.Ident(t, fn.Properties["Role"]))
	roleT, roleID := ref.Template, ref.ID
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
	ref, inApp := a.ResourceOf(queue)
	qt, qid := ref.Template, ref.ID
	if !inApp { // a literal ARN: the channel's queue may still be in this assembly, under its name
		qt, qid, inApp = a.ByAlias(queue, "AWS::SQS::Queue")
	}
	if inApp && qt == sc.t && (qid == s.QueueID || qid == s.DeadLetterID) {
		return // answers to the store's own queue: checkHandlerEnvironment's line
	}
	// The response queue and its key: with their policies where they are in
	// this app; otherwise by ARN, their policies outside what was read (the
	// evaluator then decides only what the role's own policies settle).
	var rq, rkey *accessmodel.Target
	if inApp {
		rq = a.policyTarget(qt, qid, "AWS::SQS::QueuePolicy", "Queues")
		if k := qt.Resources[qid].Properties["KmsMasterKeyId"]; k != nil {
			rkey = a.responseKey(qt, qid)
			if rkey == nil { // a key of another app, by ARN
				rkey = a.outsideKey(a.Ident(qt, k), qt.Account, qt.Region)
			}
		}
	} else {
		rq = &accessmodel.Target{Resource: iameval.Resource{Aliases: []string{queue}, Account: iameval.ARNAccount(queue), Region: iameval.ARNRegion(queue), PolicyUnknown: true}}
		// Whether the channel's queue is encrypted is not known here: the
		// channel's queues always are (ErasureChannel), so a key of the
		// queue's account and region must be usable.
		rkey = a.outsideKey("", rq.Account, rq.Region)
	}
	a.checkRolePaths(sc, roleT, roleID, rq)
	if v := a.context().Decide(role, "sqs:SendMessage", rq); v.Decision == iameval.Denied && v.DeniedByResource && a.isChannelQueue(rq) {
		f.add(ruleRoleOnRoster, fnID, s.Path.Child("roster"), props("Role"), "the role of function %s is not on the channel's roster: the response queue denies every answer it sends (%s); add the store to ErasureChannelProps.Stores and let ErasureSubscriber name its handler (contract.HandlerName, under the path contract.HandlerRolePath)", fnID, v.Because)
	} else if named := s.Path.RootName() == "ErasureSubscriber"; named && a.isChannelQueue(rq) && rosterKnown(rq) && !slices.Contains(iameval.StringsOf(rq.Template.Resources[rq.ID].Metadata[RosterMetadataKey]), s.Spec.Name) {
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
func (a *assembly) checkOwnQueueCalls(sc *storeCheck, fnID string, roleT *template, roleID string, role *accessmodel.Principal, env map[string]any) {
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
func (a *assembly) outsideKey(arn, account, region string) *accessmodel.Target {
	if !strings.HasPrefix(arn, "arn:") {
		arn = fmt.Sprintf("arn:aws:kms:%s:%s:key/*", iameval.OrStar(region), iameval.OrStar(account))
	}
	return &accessmodel.Target{Resource: iameval.Resource{Aliases: []string{arn}, Account: account, Region: region, IsKey: true, Via: "sqs", PolicyUnknown: true}}
}

// readerIndex is what checkReaders asks of every store, read once: the
// app's pipes, users and groups, and its roles with the identity statements
// that allow sqs:ReceiveMessage.
type readerIndex struct {
	pipes, usersAndGroups []cfnmodel.ResourceID
	roles                 []readerRole
	appNames              map[string]bool
}

type readerRole struct {
	cfnmodel.ResourceID
	ident  string
	p      *accessmodel.Principal
	allows []statement // its identity's Allows of sqs:ReceiveMessage
}

// mayReceiveFrom says whether one of the role's identity Allows of
// sqs:ReceiveMessage reaches the queue (NotResource, a pattern or its ARN).
func (r readerRole) mayReceiveFrom(queue *accessmodel.Target) bool {
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
				ix.pipes = append(ix.pipes, cfnmodel.ResourceID{Template: rt, ID: id})
			case "AWS::IAM::User", "AWS::IAM::Group":
				ix.usersAndGroups = append(ix.usersAndGroups, cfnmodel.ResourceID{Template: rt, ID: id})
			case "AWS::IAM::Role":
				p := a.appRole(rt, id)
				for _, al := range p.Aliases {
					ix.appNames[al] = true
				}
				r := readerRole{ResourceID: cfnmodel.ResourceID{Template: rt, ID: id}, ident: cfnmodel.ResIdent(rt, id), p: p}
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
	case cfnmodel.IsResourceIdent(p):
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
		a.responseQueue = &cfnmodel.ResourceID{}
	find:
		for _, t := range a.Templates {
			for _, id := range t.IDsOf("AWS::SQS::Queue") {
				if t.Resources[id].Metadata[channelpolicy.KindMetadataKey] == string(channelpolicy.ResponseQueue) {
					a.responseQueue = &cfnmodel.ResourceID{Template: t, ID: id}
					break find
				}
			}
		}
	}
	return a.responseQueue.Template, a.responseQueue.ID, a.responseQueue.Template != nil
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
		if value == "" || cfnmodel.IsResourceIdent(value) || strings.Contains(value, "${") {
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
		case cfnmodel.IsResourceIdent(x) && x != own[0]:
			ref, _ := a.ResourceOf(x)
			_, id := ref.Template, ref.ID
			f.add(rulePassTwoOwnQueue, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s sends pass two to %s, not the queue its event source reads: pass two never runs and no ERASE completes; name the store's own queue", fnID, id)
		case !cfnmodel.IsResourceIdent(x) && !iameval.CoversAny(cfnmodel.SQSURLToARN(x), own[1:]):
			if len(own) > 1 { // the queue has a name: the URL names another queue
				f.add(rulePassTwoOwnQueue, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s sends pass two to a queue that is not the one its event source reads: pass two never runs and no ERASE completes; name the store's own queue", fnID)
			} else {
				f.add(rulePassTwoQueueUnresolved, fnID, s.Path.Child("environment").Child(contract.EnvQueueURL), props("Environment", "Variables", contract.EnvQueueURL), "function %s names its own queue by a literal URL, while the queue's name is given at deploy: the check cannot tell it is the queue the event source reads; give a reference to the queue", fnID)
			}
		}
	}
	if v, ok := env[contract.EnvResponseQueueURL]; ok {
		x := a.Ident(t, v)
		ref, found := a.ResourceOf(x)
		qt, qid := ref.Template, ref.ID
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
func (a *assembly) isChannelQueue(r *accessmodel.Target) bool {
	if r.Template == nil {
		return false
	}
	md := r.Template.Resources[r.ID].Metadata
	return md[RosterMetadataKey] != nil || md[RosterSizeMetadataKey] != nil
}

// rosterKnown says whether the roster's names were read with the response
// queue r: the template keeps only their number (RosterSizeMetadataKey), the
// names are in its cloud assembly's metadata, absent from a bare template.
// A roster not known is never taken for an empty one.
func rosterKnown(r *accessmodel.Target) bool {
	md := r.Template.Resources[r.ID].Metadata
	return md[RosterMetadataKey] != nil || cfnmodel.Number(md[RosterSizeMetadataKey], -1) == 0
}

// The rules this file reports.
var (
	ruleHandlerEnvironment = declare(Rule{ID: "EC313", Name: "HandlerEnvironment", Type: problem.Invalid, Source: FromSeed, Reference: "contract.HandlerVariableProblem",
		Title: "Every ERASURE_* variable holds a value the handler accepts",
		Why:   "The handler refuses the value at start-up with the contract's own rule: every request dead-letters unanswered.",
		Fix:   "Give the variable a value the contract accepts (docs/quickstart/handler.md), or leave it out."})
	rulePassTwoQueueUnresolved = declare(Rule{ID: "EC314", Name: "PassTwoQueueKnown", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "The handler names its own queue by a reference the check can follow",
		Why:   "Pass two is sent to ERASURE_QUEUE_URL: given by a value only deploy knows, or a literal URL of a queue named at deploy, the check cannot tell it is the queue the event source reads.",
		Fix:   "Give a reference to the queue (!Ref Queue, queue.queueUrl); or acknowledge with where the value comes from."})
	rulePassTwoOwnQueue = declare(Rule{ID: "EC315", Name: "PassTwoToOwnQueue", Type: problem.BreaksErasure, Source: FromSeed, Reference: "seed: pass two is sent to the store's own queue",
		Title: "The handler sends pass two to the queue its event source reads",
		Why:   "Pass two sent elsewhere never runs on this store: no ERASE completes.",
		Fix:   "Set ERASURE_QUEUE_URL to the store's own queue."})
	ruleAnswersOnResponseQueue = declare(Rule{ID: "EC316", Name: "AnswersOnResponseQueue", Type: problem.BreaksErasure, Source: FromSeed, Reference: "seed: every store answers on one shared response queue",
		Title: "The handler answers on the channel's response queue",
		Why:   "The account service reads answers only from the channel's response queue: answers sent elsewhere are never read.",
		Fix:   "Set ERASURE_RESPONSE_QUEUE_URL to the channel's response queue."})
	ruleHandlerDecrypts = declare(Rule{ID: "EC317", Name: "HandlerMayDecryptQueue", Type: problem.Missing, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html",
		Title: "The handler's role may kms:Decrypt the queue's key",
		Why:   "The event source reads with the function's role: without kms:Decrypt it cannot read a single message.",
		Fix:   "Grant kms:Decrypt on the queue's key to the handler's role."})
	ruleResponseQueueUnresolved = declare(Rule{ID: "EC318", Name: "ResponseQueueKnown", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "The handler names the response queue by a value the check can resolve",
		Why:   "Whether the handler's role may answer there cannot be judged.",
		Fix:   "Give the queue's URL, a reference or an import; or acknowledge with where the value comes from."})
	ruleRoleOnRoster = declare(Rule{ID: "EC319", Name: "HandlerRoleOnRoster", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The handler's role is on the channel's roster",
		Why:   "The response queue's policy denies every role not on the roster: every answer fails and requests dead-letter.",
		Fix:   "Add the store to ErasureChannelProps.Stores and let ErasureSubscriber name its handler (contract.HandlerName, under contract.HandlerRolePath)."})
	ruleStoreOnRoster = declare(Rule{ID: "EC320", Name: "StoreOnRoster", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The store is on the channel's roster",
		Why:   "The response reader refuses answers from a store not on the roster, and no round waits for it.",
		Fix:   "Add the store to ErasureChannelProps.Stores."})
	ruleHandlerAnswers = declare(Rule{ID: "EC321", Name: "HandlerMayAnswer", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The handler's role may sqs:SendMessage to the response queue",
		Why:   "Every answer fails and the store's requests dead-letter.",
		Fix:   "Grant sqs:SendMessage on the response queue to the handler's role."})
	ruleHandlerUsesResponseKey = declare(Rule{ID: "EC322", Name: "HandlerMayUseResponseKey", Type: problem.Missing, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
		Title: "The handler's role may use the response queue's key",
		Why:   "Without kms:GenerateDataKey and kms:Decrypt on the channel's response key every answer fails.",
		Fix:   "Grant kms:GenerateDataKey and kms:Decrypt on the channel's response key to the handler's role."})
	ruleHandlerReadsQueue = declare(Rule{ID: "EC324", Name: "HandlerMayReadQueue", Type: problem.Missing, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
		Title: "The handler's role may receive, delete and read the attributes of the store's queue",
		Why:   "The event source polls with the function's role: without sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes it reads nothing, or reads every request again until it dead-letters.",
		Fix:   "Let every policy over the role (its own, its permissions boundary, the organisation's) allow the three actions on the store's queue."})
	ruleHandlerRefiles = declare(Rule{ID: "EC325", Name: "HandlerMayRefile", Type: problem.Missing, Source: FromSeed, Reference: "seed: pass two is sent to the store's own queue",
		Title: "The handler's role may send pass two to the store's queue",
		Why:   "Pass two is a message the handler sends to its own queue (sqs:SendMessage, with kms:GenerateDataKey and kms:Decrypt on the queue's key): denied, no ERASE completes.",
		Fix:   "Let every policy over the role allow sqs:SendMessage on the store's queue and kms:GenerateDataKey and kms:Decrypt on its key."})
)
