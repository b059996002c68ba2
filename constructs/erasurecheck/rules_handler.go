package erasurecheck

import (
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The handler family: each function with an event source on a store's
// queue: its concurrency, its environment as the handler reads it, and the
// grants it needs at run time.
var (
	ruleReservedConcurrencyZero = declare(Rule{ID: "EC311", Name: "HandlerRuns", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html",
		Title: "The handler's reserved concurrency is not 0",
		Why:   "A function with a reserved concurrency of 0 never runs: every request expires unanswered.",
		Fix:   "Remove ReservedConcurrentExecutions."})
	ruleReservedConcurrencyLow = declare(Rule{ID: "EC312", Name: "HandlerReservedConcurrency", Type: problem.BelowMinimum, Severity: SeverityWarning, Source: FromAWS, Acknowledgeable: true,
		Reference: "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html",
		Title:     "The handler reserves no concurrency, or at least 5",
		Why:       "AWS advises at least 5 for an SQS event source: the pollers' throttled invocations return messages to the queue, each receive counts toward maxReceiveCount, and requests can dead-letter unanswered.",
		Fix:       "Reserve at least 5, or none; acknowledge it with the reason the store's traffic makes throttling impossible."})
)

// handlerFamily judges each reader's function.
var handlerFamily = storeFamily{name: "handler", rules: []*Rule{ruleReservedConcurrencyZero, ruleReservedConcurrencyLow, ruleHandlerEnvironment, rulePassTwoQueueUnresolved,
	rulePassTwoOwnQueue, ruleAnswersOnResponseQueue, ruleHandlerDecrypts, ruleResponseQueueUnresolved, ruleRoleOnRoster, ruleStoreOnRoster, ruleHandlerAnswers,
	ruleHandlerUsesResponseKey, ruleUnreadableBoundary, ruleHandlerReadsQueue, ruleHandlerRefiles, ruleCallUndecided, ruleHandlerRolePath, ruleLookupRoleReads}, check: func(a *assembly, sc *storeCheck) {
	s, f := sc.store, &sc.f
	for _, r := range sc.readers {
		a.checkHandlerEnvironment(sc, r.ft, r.fnID, r.env, sc.c)
		rc, ok := r.fn.Properties["ReservedConcurrentExecutions"]
		if ok && a.NumAt(r.ft, rc, -1) == 0 {
			f.add(ruleReservedConcurrencyZero, r.fnID, s.Path.Child("reservedConcurrency"), props("ReservedConcurrentExecutions"), "function %s has a reserved concurrency of 0: it never runs; remove the setting", r.fnID)
		} else if n := a.NumAt(r.ft, rc, -1); ok && n > 0 && n < minReservedConcurrency {
			f.add(ruleReservedConcurrencyLow, r.fnID, s.Path.Child("reservedConcurrency"), props("ReservedConcurrentExecutions"), "function %s has a reserved concurrency of %d, below the %d AWS advises for an SQS event source: throttled receives count toward maxReceiveCount and requests dead-letter unanswered; reserve at least %d or none", r.fnID, n, minReservedConcurrency, minReservedConcurrency)
		}
		a.checkFunctionWiring(sc, r.ft, r.fnID, r.fn, r.env)
	}
}}

// readersFamily: only the store's handlers read its queue.
var readersFamily = storeFamily{name: "readers", rules: []*Rule{ruleOnlyHandlerReads}, check: func(a *assembly, sc *storeCheck) { a.checkReaders(sc) }}

var ruleOnlyHandlerReads = declare(Rule{ID: "EC331", Name: "OnlyHandlerReads", Type: problem.BreaksErasure, Source: FromLockdown, Reference: "docs/lockdown-and-access.md",
	Title: "Only the store's handlers read its queue",
	Why:   "A reader the check cannot judge (an EventBridge Pipe, a role or user granted sqs:ReceiveMessage, a principal the queue policy admits) takes requests from the handler without the visibility and timeout rules holding.",
	Fix:   "Consume the queue only with the handler's Lambda event source; remove the other grant or statement."})

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
		handlerRoles[a.Ident(fn.Template, fn.Template.Resources[fn.ID].Properties["Role"])] = true
	}
	ix := a.readerIndexOf()
	appNames := ix.appNames // every name of an app role, asked with its own policies
	for _, pipe := range ix.pipes {
		if iameval.CoversAny(a.Ident(pipe.Template, pipe.Template.Resources[pipe.ID].Properties["Source"]), queue.Aliases) {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "EventBridge Pipe %s reads the queue: the check cannot judge its timeout against the visibility timeout nor its partial failures; consume the queue only with the handler's Lambda event source", pipe.ID)
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
		if a.context().Decide(r.p, "sqs:ReceiveMessage", queue).Decision == iameval.Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "role %s (stack %s) may sqs:ReceiveMessage from the queue but is not the role of a function with an event source on it: a poller the check cannot judge would take requests from the handler; remove the grant", r.ID, r.Template.Stack)
		}
	}
	for _, u := range ix.usersAndGroups {
		p := &accessmodel.Principal{Principal: iameval.Principal{Aliases: []string{cfnmodel.ResIdent(u.Template, u.ID)}, Account: u.Template.Account, Identity: a.identityStatements(u.Template, u.ID),
			Boundary: a.boundaryOf(u.Template, u.ID)}}
		if a.context().Decide(p, "sqs:ReceiveMessage", queue).Decision == iameval.Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "%s %s (stack %s) may sqs:ReceiveMessage from the queue: a reader the check cannot judge would take requests from the handler; remove the grant", strings.TrimPrefix(u.Template.Resources[u.ID].Type, "AWS::IAM::"), u.ID, u.Template.Stack)
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
	everything := accessmodel.EverythingPolicy()
	ask := func(label, arn, account string) {
		if seen[label] {
			return
		}
		seen[label] = true
		p := &accessmodel.Principal{Principal: iameval.Principal{Aliases: []string{arn}, Account: account}}
		if account != t.Account || t.Account == "" {
			p.Identity = everything
		}
		if a.context().Decide(p, "sqs:ReceiveMessage", queue).Decision == iameval.Allowed {
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
			case accountID.MatchString(v):
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
		if inst := accessmodel.Instantiate(pat, appNames); inst != "" {
			account := iameval.ARNAccount(inst)
			if account == "*" {
				account = t.Account
			}
			ask(pat, inst, account)
		}
	}
	for _, svc := range cfnmodel.UniqueSorted(services) {
		p := &accessmodel.Principal{Principal: iameval.Principal{Service: svc, Aliases: []string{"arn:aws:" + strings.Split(svc, ".")[0] + ":" + iameval.OrStar(t.Region) + ":" + iameval.OrStar(t.Account) + ":erasure-witness"}, Account: t.Account, Region: t.Region}}
		if a.context().Decide(p, "sqs:ReceiveMessage", queue).Decision == iameval.Allowed {
			f.add(ruleOnlyHandlerReads, s.QueueID, s.Path.Child("readers"), nil, "the queue policy lets a service (%s) sqs:ReceiveMessage: a reader the check cannot judge would take requests from the handler; remove the statement", svc)
		}
	}
	if t.Account != "" {
		ask("every principal of the store's account", "arn:aws:iam::"+t.Account+":role/erasure-witness", t.Account)
	}
	fresh := accessmodel.FreshAccount(accounts)
	ask("*", "arn:aws:iam::"+fresh+":role/erasure-witness", fresh)
}
