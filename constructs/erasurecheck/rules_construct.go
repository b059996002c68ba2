package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/constructrule"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// FromConstruct: what ErasureSubscriber refuses in its own props, which no
// template shows. The check never reports these rules; the catalogue lists
// them so that a construct's refusal and the rules page name one rule.
const FromConstruct Source = "construct"

// The construct family: ErasureSubscriber's props, refused at synth under
// these ids (constructrule.RuleSubscriberName and the rest; the timing rules the
// construct applies too are the timing family's). None may be acknowledged.
var (
	ruleSubscriberName = declare(Rule{ID: constructrule.RuleSubscriberName, Name: "SubscriberName", Type: problem.Invalid, Source: FromConstruct, Reference: "contract.IsSubscriberName",
		Title: "The subscriber's name is 1 to 64 of a-z, 0-9 and -, starting with a letter",
		Why:   "The name is the store's identity on the roster, in every answer and in its resources' names: another shape cannot be answered for.",
		Fix:   constructrule.FixSubscriberName})
	ruleErasureTopicGiven = declare(Rule{ID: constructrule.RuleErasureTopicGiven, Name: "ErasureTopicGiven", Type: problem.FIFO, Source: FromConstruct, Reference: "ErasureSubscriberProps.topic",
		Title: "The subscriber is given the channel's erasure topic, a standard topic",
		Why:   "A FIFO topic cannot deliver to the store's standard queue, and pass two needs per-message delay.",
		Fix:   constructrule.FixErasureTopicGiven})
	ruleResponseQueueOK = declare(Rule{ID: constructrule.RuleResponseQueueOK, Name: "ResponseQueueWithKey", Type: problem.Missing, Source: FromConstruct, Reference: "ErasureSubscriberProps.responseQueue",
		Title: "The subscriber is given the channel's response queue, a standard queue, with its key",
		Why:   "Every answer is encrypted with the response queue's key: a handler not granted it cannot answer.",
		Fix:   constructrule.FixResponseQueueOK})
	ruleOneHandler = declare(Rule{ID: constructrule.RuleOneHandler, Name: "OneHandler", Type: problem.Invalid, Source: FromConstruct, Reference: "ErasureSubscriberProps.handler and handlerProps",
		Title: "The subscriber has exactly one handler, whose timeout is handlerTimeout",
		Why:   "The queue's visibility timeout and the channel's worst case are derived from the handler's timeout: a second source of it breaks the derivation.",
		Fix:   constructrule.FixOneHandler + " Set the timeout as handlerTimeout."})
	ruleHandlerRoleBuilt = declare(Rule{ID: constructrule.RuleHandlerRoleBuilt, Name: "HandlerRoleBuiltInApp", Type: problem.Missing, Source: FromConstruct, Reference: "the pass-two marker's SenderId",
		Title: "The handler's role is built in the app, so its unique id is known",
		Why:   "The handler trusts a pass-two marker only when SQS's SenderId is its own role's unique id, which an imported role does not give at synth.",
		Fix:   constructrule.FixHandlerRoleBuilt})
)

// The channel's and the ledger's props, refused at synth by ErasureChannel
// and ErasureLedger under these ids (constructrule). None may be
// acknowledged.
var (
	ruleChannelRoster = declare(Rule{ID: constructrule.RuleChannelRoster, Name: "ChannelRoster", Type: problem.Invalid, Source: FromConstruct, Reference: "ErasureChannelProps.stores and storeAccounts",
		Title: "The channel's roster names each store once, by a subscriber name and an account id",
		Why:   "The roster is who may answer: a store listed twice, a malformed account, or an account listed without its stores would let principals answer that the ledger cannot tell apart.",
		Fix:   constructrule.FixChannelRoster})
	ruleChannelOrganisation = declare(Rule{ID: constructrule.RuleChannelOrganisation, Name: "ChannelOrganisation", Type: problem.Invalid, Source: FromConstruct, Reference: "ErasureChannelProps.organizationId",
		Title: "The channel's organisation is an AWS Organizations id, given with the roster",
		Why:   "The shared policies admit the organisation's handler paths by aws:PrincipalOrgID: a malformed id admits nobody, and an organisation without a roster admits handlers the ledger does not expect.",
		Fix:   constructrule.FixChannelOrganisation})
	ruleChannelPrincipals = declare(Rule{ID: constructrule.RuleChannelPrincipals, Name: "ChannelPrincipals", Type: problem.Invalid, Source: FromConstruct, Reference: "ErasureChannelProps.publishers, responseReaders and administrators",
		Title: "The channel's publishers, readers and administrators are IAM principal ARNs",
		Why:   "The lockdown denies everyone but these principals: an entry that is no principal ARN locks out the account service or the ledger.",
		Fix:   constructrule.FixChannelPrincipals})
	ruleLedgerGiven = declare(Rule{ID: constructrule.RuleLedgerGiven, Name: "LedgerGiven", Type: problem.Missing, Source: FromConstruct, Reference: "ErasureLedgerProps.channel and code",
		Title: "The ledger is given its channel and its handler's code",
		Why:   "The ledger reads the channel's answers and re-broadcasts on its topic: without either it records nothing.",
		Fix:   constructrule.FixLedgerGiven})
	ruleLedgerRolesDeclared = declare(Rule{ID: constructrule.RuleLedgerRolesDeclared, Name: "LedgerRolesDeclared", Type: problem.Missing, Source: FromConstruct, Reference: "erasure.LedgerPrincipals",
		Title: "The channel names the ledger's sweeper among its publishers and its reader among its response readers",
		Why:   "The channel's lockdown denies every principal it does not name: the reader could not read answers, nor the sweeper re-broadcast.",
		Fix:   constructrule.FixLedgerRolesDeclared})
	ruleLedgerRosterOnly = declare(Rule{ID: constructrule.RuleLedgerRosterOnly, Name: "LedgerRosterOnly", Type: problem.Missing, Source: FromConstruct, Reference: "ErasureLedgerProps.roleIds and lingeringDays",
		Title: "The ledger's role ids and lingering bounds name stores on the channel's roster",
		Why:   "A store off the roster never answers through the channel: a role id or bound given for it is a typo of a roster name, and the store it meant goes unauthenticated.",
		Fix:   constructrule.FixLedgerRosterOnly})
)
