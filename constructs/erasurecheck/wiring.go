package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/timing"
)

// topicRefs is every identity the erasure topic is known by.
type topicRefs struct {
	idents []string
}

func (a *assembly) erasureTopics(extraARNs []string) topicRefs {
	r := topicRefs{idents: append([]string(nil), extraARNs...)}
	for _, t := range a.templates {
		for _, id := range t.ids() {
			if res := t.Resources[id]; res.Type == "AWS::SNS::Topic" && res.Metadata[TopicMetadataKey] == true {
				r.idents = append(r.idents, aliases(t, id)...)
			}
		}
	}
	r.idents = uniqueSorted(r.idents)
	return r
}

// names says whether v (a subscription's TopicArn in t) is the erasure topic:
// by Ref, cross-stack import, a nested stack's parameter, or ARN.
//
// A plain template (no cloud assembly manifest) may build the ARN from its
// own account and region (!Sub arn:aws:sns:${AWS::Region}:${AWS::AccountId}:name):
// those unknowns match any value of an ARN the check was given.
func (r topicRefs) names(a *assembly, t *template, v any) bool {
	if id := a.ident(t, v); id != "" {
		return containsString(r.idents, id)
	}
	pattern := a.identPattern(t, v)
	if !strings.Contains(pattern, "*") || strings.HasPrefix(pattern, "res:") {
		return false
	}
	for _, id := range r.idents {
		if !strings.HasPrefix(id, "res:") && globMatch(pattern, id) {
			return true
		}
	}
	return false
}

// isTopicKey says whether ident is the key of an erasure topic.
func (a *assembly) isTopicKey(r topicRefs, keyIdent string) bool {
	for _, ti := range r.idents {
		if tt, id, ok := a.resourceOf(ti); ok {
			if k := a.ident(tt, tt.Resources[id].Properties["KmsMasterKeyId"]); k != "" && k == keyIdent {
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
func (a *assembly) checkFunctionWiring(sc *storeCheck, fnID string, fn resource, env map[string]any) {
	t, s, f := sc.t, sc.store, &sc.f
	roleIdent := a.ident(t, fn.Properties["Role"])
	rt, roleID, ok := a.resourceOf(roleIdent)
	if !ok {
		return // an imported role: its policies are not in this assembly (README: known limits)
	}
	stmts := a.roleStatements(rt, roleID)
	if keyRef := sc.queue.Properties["KmsMasterKeyId"]; keyRef != nil {
		if k := a.ident(t, keyRef); strings.HasPrefix(k, "res:") && !a.identityAllows(stmts, []string{k}, "kms:Decrypt") {
			f.add(fnID, s.Path+".handlerRole", timing.Missing, "the role of function %s may not kms:Decrypt the queue's key: the event source cannot read a single message; grant kms:Decrypt on the key", fnID)
		}
	}
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
		urlValue = map[string]any{"Fn::GetAtt": []any{rid, "Arn"}}
		t = rt
	}
	queue := a.ident(t, urlValue)
	if queue == "" {
		queue = a.identPattern(t, urlValue) // a plain template's own account and region
	}
	if queue == "" {
		f.add(fnID, s.Path+".responseQueue", timing.UnresolvedToken, "function %s names the response queue (%s) with a value the check cannot resolve, so its grants cannot be checked; give the queue's URL, a reference or an import", fnID, contract.EnvResponseQueueURL)
		return
	}
	queue = sqsURLToARN(queue)
	targets := []string{queue}
	var keyTargets []string
	keyKnown := false
	qt, qid, inApp := a.resourceOf(queue)
	if !inApp { // a literal ARN: the channel's queue may still be in this assembly, under its name
		qt, qid, inApp = a.byAlias(queue, "AWS::SQS::Queue")
	}
	if inApp && qt == sc.t && (qid == s.QueueID || qid == s.DeadLetterID) {
		return // answers to the store's own queue: checkHandlerEnvironment's line
	}
	if inApp {
		targets = aliases(qt, qid)
		if k := qt.Resources[qid].Properties["KmsMasterKeyId"]; k != nil {
			keyKnown = true
			keyTargets = []string{a.ident(qt, k)}
		}
	}
	if inApp {
		if roster, ok := a.rosterOf(qt, qid); ok && !a.onRoster(rt, roleID, roster) {
			f.add(fnID, s.Path+".roster", timing.Missing, "the role of function %s is not on the channel's roster: the response queue denies every answer it sends; add the store to ErasureChannelProps.Stores and let ErasureSubscriber name its handler (contract.HandlerName)", fnID)
		}
	}
	if !a.identityAllows(stmts, targets, "sqs:SendMessage") {
		f.add(fnID, s.Path+".responseQueue", timing.Missing, "the role of function %s may not sqs:SendMessage to the response queue: every answer fails and the store's requests dead-letter; grant sqs:SendMessage on it", fnID)
	}
	account := arnAccount(queue)
	if inApp {
		account = qt.Account
	}
	if !inApp || keyKnown {
		if !a.keyUsable(stmts, keyTargets, account, inApp) {
			f.add(fnID, s.Path+".responseQueue", timing.Missing, "the role of function %s may not use the response queue's key (kms:GenerateDataKey and kms:Decrypt): every answer fails; grant both on the channel's response key", fnID)
		}
	}
}

// keyUsable: the statements allow kms:GenerateDataKey and kms:Decrypt on the
// response queue's key. When the key is a resource of this assembly, on that
// key; when the channel is elsewhere, on a key named by ARN in the response
// queue's account (the check cannot know which key that is, only that the
// grant names one where the queue is), or on every key.
func (a *assembly) keyUsable(stmts []statement, keyTargets []string, queueAccount string, inApp bool) bool {
	actions := []string{"kms:GenerateDataKey", "kms:Decrypt"}
	if inApp {
		if a.identityAllows(stmts, keyTargets, actions...) {
			return true
		}
	}
	if queueAccount == "" {
		return false
	}
	for _, act := range actions {
		ok := false
		for _, st := range stmts {
			if st.Effect != "Allow" || !st.hasAction(act) {
				continue
			}
			for _, r := range listOf(st.Resource) {
				id := a.ident(st.t, r)
				if id == "" {
					id = a.identPattern(st.t, r)
				}
				if id == "*" || strings.HasPrefix(id, "arn:aws:kms:") && (arnAccount(id) == queueAccount || queueAccount == "*" || arnAccount(id) == "*") ||
					strings.HasPrefix(id, "arn:aws:kms:*:") || strings.HasPrefix(id, "arn:*:kms:") {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// byAlias finds a resource of type typ whose literal ARN is arn.
func (a *assembly) byAlias(arn, typ string) (*template, string, bool) {
	for _, t := range a.templates {
		for _, id := range t.ids() {
			if t.Resources[id].Type != typ {
				continue
			}
			for _, al := range aliases(t, id)[1:] {
				if al == arn {
					return t, id, true
				}
			}
		}
	}
	return nil, "", false
}

// checkReaders: every reader of the store queue is one the check can judge.
// A queue consumed by anything but a Lambda event source (an EventBridge
// Pipe, a role allowed sqs:ReceiveMessage that is not a handler's, another
// account through the queue policy) would take requests from the handler
// without the visibility/timeout rule holding: refused, naming the reader.
func (a *assembly) checkReaders(sc *storeCheck) {
	t, s, f := sc.t, sc.store, &sc.f
	queue := aliases(t, s.QueueID)
	handlerRoles := map[string]bool{}
	for _, fnID := range s.FunctionIDs {
		handlerRoles[a.ident(t, t.Resources[fnID].Properties["Role"])] = true
	}
	for _, rt := range a.templates {
		for _, id := range rt.ids() {
			r := rt.Resources[id]
			switch r.Type {
			case "AWS::Pipes::Pipe":
				if coversAny(a.ident(rt, r.Properties["Source"]), queue) {
					f.add(s.QueueID, s.Path+".readers", timing.BreaksErasure, "EventBridge Pipe %s reads the queue: the check cannot judge its timeout against the visibility timeout nor its partial failures; consume the queue only with the handler's Lambda event source", id)
				}
			case "AWS::IAM::Role":
				roleIdent := resIdent(rt, id)
				if handlerRoles[roleIdent] {
					continue
				}
				if a.identityAllows(a.roleStatements(rt, id), queue, "sqs:ReceiveMessage") {
					f.add(s.QueueID, s.Path+".readers", timing.BreaksErasure, "role %s (stack %s) may sqs:ReceiveMessage from the queue but is not the role of a function with an event source on it: a poller the check cannot judge would take requests from the handler; remove the grant", id, rt.Stack)
				}
			case "AWS::IAM::User", "AWS::IAM::Group":
				var stmts []statement
				for _, p := range listOf(r.Properties["Policies"]) {
					pm, _ := p.(map[string]any)
					stmts = append(stmts, statementsIn(rt, pm["PolicyDocument"])...)
				}
				for _, pid := range rt.ids() {
					pr := rt.Resources[pid]
					if (pr.Type == "AWS::IAM::Policy" || pr.Type == "AWS::IAM::ManagedPolicy") && (mentions(pr.Properties["Users"], id) || mentions(pr.Properties["Groups"], id)) {
						stmts = append(stmts, statementsIn(rt, pr.Properties["PolicyDocument"])...)
					}
				}
				if a.identityAllows(stmts, queue, "sqs:ReceiveMessage") {
					f.add(s.QueueID, s.Path+".readers", timing.BreaksErasure, "%s %s (stack %s) may sqs:ReceiveMessage from the queue: a reader the check cannot judge would take requests from the handler; remove the grant", strings.TrimPrefix(r.Type, "AWS::IAM::"), id, rt.Stack)
				}
			}
		}
	}
	for _, st := range a.queuePolicyStatements(t, s.QueueID) {
		if st.Effect != "Allow" || !st.hasAction("sqs:ReceiveMessage") {
			continue
		}
		for _, p := range a.principalsOf(st) {
			f.add(s.QueueID, s.Path+".readers", timing.BreaksErasure, "the queue policy lets %s sqs:ReceiveMessage: a reader the check cannot judge (another account's poller) would take requests from the handler; remove the statement", describePrincipal(p))
		}
		if pm, ok := st.Principal.(map[string]any); ok && pm["Service"] != nil {
			f.add(s.QueueID, s.Path+".readers", timing.BreaksErasure, "the queue policy lets a service (%s) sqs:ReceiveMessage: a reader the check cannot judge would take requests from the handler; remove the statement", strings.Join(stringsOf(pm["Service"]), ", "))
		}
	}
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

// rosterOf returns the principal ARN patterns the response queue's policy
// admits answers from: the aws:PrincipalArn list of a Deny on
// sqs:SendMessage to every other principal (ErasureChannel's roster).
func (a *assembly) rosterOf(t *template, queueID string) ([]string, bool) {
	var out []string
	found := false
	for _, st := range a.queuePolicyStatements(t, queueID) {
		if st.Effect != "Deny" || !st.hasAction("sqs:SendMessage") {
			continue
		}
		for op, cond := range st.Condition {
			switch strings.ToLower(op) {
			case "arnnotlike", "arnnotequals", "stringnotlike", "stringnotequals":
			default:
				continue
			}
			m, _ := cond.(map[string]any)
			for k, v := range m {
				if strings.EqualFold(k, "aws:PrincipalArn") {
					found = true
					for _, p := range listOf(v) {
						out = append(out, a.resourcePattern(t, p))
					}
				}
			}
		}
	}
	return out, found
}

// onRoster says whether role id in t is one of the roster's patterns: its
// ARN from its RoleName and its stack's account (any account when unknown).
func (a *assembly) onRoster(t *template, roleID string, roster []string) bool {
	name, _ := t.Resources[roleID].Properties["RoleName"].(string)
	if name == "" {
		return false // a name CloudFormation generates cannot be on a roster written before it
	}
	account := t.Account
	if account == "" {
		account = "*"
	}
	arn := "arn:aws:iam::" + account + ":role/" + name
	return coversAny(arn, roster)
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
	for _, t := range a.templates {
		for _, id := range t.ids() {
			if r := t.Resources[id]; r.Type == "AWS::SQS::Queue" {
				out = append(out, stringsOf(r.Metadata[RosterMetadataKey])...)
			}
		}
	}
	return uniqueSorted(out), nil
}

// channelResponseQueue is the response queue ErasureChannel built in this
// app (marked with its kind), if any.
func (a *assembly) channelResponseQueue() (*template, string, bool) {
	for _, t := range a.templates {
		for _, id := range t.ids() {
			if r := t.Resources[id]; r.Type == "AWS::SQS::Queue" && r.Metadata[channelpolicy.KindMetadataKey] == string(channelpolicy.ResponseQueue) {
				return t, id, true
			}
		}
	}
	return nil, "", false
}

// checkHandlerEnvironment judges a store function's ERASURE_* variables as its
// handler will read them: each value the check can know is parsed by the
// contract's own rule (contract.HandlerVariableProblem), so a value the handler
// refuses at start-up is refused here with the same words; pass two must go
// to the queue the event source reads, and answers to the channel's response
// queue.
func (a *assembly) checkHandlerEnvironment(sc *storeCheck, fnID string, env map[string]any, c contract.Constants) {
	t, s, f := sc.t, sc.store, &sc.f
	for _, name := range contract.HandlerEnvironmentVariables {
		v, ok := env[name]
		if !ok {
			continue
		}
		value := a.ident(t, v)
		if value == "" || strings.HasPrefix(value, "res:") || strings.Contains(value, "${") {
			continue // a reference or a value only deploy knows: judged by what it names
		}
		p := contract.HandlerVariableProblem(name, value, c)
		if p == "" || (name == contract.EnvPassTwoDelaySeconds || name == contract.EnvBatchTimeoutSeconds) && strings.HasPrefix(p, "above the cap") {
			continue // a cap the timing rules report with its derivation
		}
		f.add(fnID, s.Path+".environment."+name, timing.Invalid, "function %s: the handler refuses this value at start-up (%s: %s), so every request dead-letters unanswered", fnID, name, p)
	}
	if v, ok := env[contract.EnvQueueURL]; ok {
		if x := a.ident(t, v); strings.HasPrefix(x, "res:") && x != resIdent(t, s.QueueID) {
			_, id, _ := a.resourceOf(x)
			f.add(fnID, s.Path+".environment."+contract.EnvQueueURL, timing.BreaksErasure, "function %s sends pass two to %s, not the queue its event source reads: pass two never runs and no ERASE completes; name the store's own queue", fnID, id)
		}
	}
	if v, ok := env[contract.EnvResponseQueueURL]; ok {
		x := a.ident(t, v)
		qt, qid, found := a.resourceOf(x)
		if !found || qt.Resources[qid].Type != "AWS::SQS::Queue" {
			return
		}
		ct, cid, channel := a.channelResponseQueue()
		own := qt == t && (qid == s.QueueID || qid == s.DeadLetterID)
		if own || channel && (ct != qt || cid != qid) {
			f.add(fnID, s.Path+".environment."+contract.EnvResponseQueueURL, timing.BreaksErasure, "function %s answers on %s, not the channel's response queue: the account service never reads its answers; name the channel's response queue", fnID, qid)
		}
	}
}
