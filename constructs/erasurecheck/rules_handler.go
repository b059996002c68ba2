package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/contract"
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
	ruleUnreadableBoundary = declare(Rule{ID: "EC323", Name: "PermissionsBoundaryReadable", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true,
		Title: "The handler role's and the lookup role's permissions boundaries can be read",
		Why:   "A boundary defined outside the app (a landing zone's) may deny the handler its reads and answers, or the lookup role its iam:GetRole: without its document, whether they may is not known.",
		Fix:   "Pass the boundary's document (erasurectl check --boundary ARN=FILE; the plugin's boundaries), or acknowledge the finding with the boundary's owner and why it allows the answers. AWS managed policies the check knows (AdministratorAccess, PowerUserAccess) are read without a document."})
	ruleHandlerReadsQueue = declare(Rule{ID: "EC324", Name: "HandlerMayReadQueue", Type: problem.Missing, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html",
		Title: "The handler's role may receive, delete and read the attributes of the store's queue",
		Why:   "The event source polls with the function's role: without sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes it reads nothing, or reads every request again until it dead-letters.",
		Fix:   "Let every policy over the role (its own, its permissions boundary, the organisation's) allow the three actions on the store's queue."})
	ruleHandlerRefiles = declare(Rule{ID: "EC325", Name: "HandlerMayRefile", Type: problem.Missing, Source: FromSeed, Reference: "seed: pass two is sent to the store's own queue",
		Title: "The handler's role may send pass two to the store's queue",
		Why:   "Pass two is a message the handler sends to its own queue (sqs:SendMessage, with kms:GenerateDataKey and kms:Decrypt on the queue's key): denied, no ERASE completes.",
		Fix:   "Let every policy over the role allow sqs:SendMessage on the store's queue and kms:GenerateDataKey and kms:Decrypt on its key."})
	ruleCallUndecided = declare(Rule{ID: "EC326", Name: "StorePathDecided", Type: problem.UnresolvedToken, Source: FromCheck, Acknowledgeable: true, Reference: "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html",
		Title: "Every call of the store's own path, and the deploy's use of its keys, can be decided at synth",
		Why:   "A statement over the call depends on a condition key no template can tell (a tag, a VPC endpoint, a source IP, a time, an organisation nobody named): whether the store works, or its key can be created, is then not known before it is deployed.",
		Fix:   "Give the check what decides it (the organisation's id, a boundary's document, the SCPs and RCPs), or acknowledge the finding with the key, the statement and why the call is allowed."})
	ruleHandlerRolePath = declare(Rule{ID: "EC327", Name: "ChannelRolePaths", Type: problem.Missing, Source: FromLockdown, Reference: "docs/landing-zone.md",
		Title: "The handler's role and the lookup role keep the paths the channel admits",
		Why:   "The channel's response queue admits only roles under " + contract.HandlerRolePath + " and the ledger's reader assumes only roles under " + contract.RosterLookupRolePath + ": a role moved by a path convention sends no answer, or is never looked up.",
		Fix:   "Exempt the erasure channel's roles from the Aspect or convention that sets role paths."})
	ruleLookupRoleReads = declare(Rule{ID: "EC328", Name: "LookupRoleMayReadHandlerRole", Type: problem.Missing, Source: FromLockdown, Reference: "docs/ledger-and-evidence.md",
		Title: "The lookup role may iam:GetRole the handler's role",
		Why:   "The channel's ledger learns the store's role id through the lookup role: denied (by a permissions boundary or an SCP), it never authenticates the store's answers.",
		Fix:   "Let the lookup role's permissions boundary and the organisation's SCPs allow iam:GetRole on the handler's role."})
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
