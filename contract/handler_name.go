package contract

import (
	"crypto/sha256"
	"encoding/hex"
)

// handlerNameMax is IAM's and Lambda's limit on a role's and a function's name.
const handlerNameMax = 64

// queueNameMax is SQS's limit on a queue's name.
const queueNameMax = 80

// HandlerName is the name of a store's handler role and function
// (ErasureSubscriber gives it): deterministic, so that the channel's roster
// can name a store's handler before it exists, in any account, and the
// response reader can recognise its answers (SQS's SenderId is
// "<role unique id>:<function name>"). A name too long for IAM keeps a prefix
// and a digest of the whole.
func HandlerName(subscriber string) string {
	return boundedName(HandlerNamePrefix, subscriber, handlerNameMax)
}

// HandlerNamePrefix begins every store's handler role and function name.
const HandlerNamePrefix = "erasure-handler-"

// HandlerRolePath is the IAM path every store's handler role is created
// under (ErasureSubscriber gives it). The channel's shared policies admit the
// path once, with the roster's accounts, instead of one ARN per store, so that
// they do not grow with the roster; the response reader still authenticates
// each answer by its store's exact role id and function name.
const HandlerRolePath = "/erasure-channel/"

// HandlerRolePattern is the IAM ARN pattern of every handler role in
// account ("*": any account) of partition: HandlerRolePath, HandlerNamePrefix.
func HandlerRolePattern(partition, account string) string {
	return "arn:" + partition + ":iam::" + account + ":role" + HandlerRolePath + HandlerNamePrefix + "*"
}

// HandlerRoleARN is the ARN of store's handler role in account.
func HandlerRoleARN(partition, account, store string) string {
	return "arn:" + partition + ":iam::" + account + ":role" + HandlerRolePath + HandlerName(store)
}

// QueueNamePrefix begins every store's erasure queue name (QueueName).
const QueueNamePrefix = "erasure-requests-"

// QueueName is the name of a store's erasure queue (ErasureSubscriber gives
// it): deterministic, so that the channel's topic can admit a subscription
// for exactly the roster's queues, named before they exist. A name too long
// for SQS keeps a prefix and a digest of the whole.
func QueueName(subscriber string) string {
	return boundedName(QueueNamePrefix, subscriber, queueNameMax)
}

// boundedName is prefix+subscriber, or, past max, a cut of it with a digest
// of the whole subscriber name so that distinct names stay distinct.
func boundedName(prefix, subscriber string, max int) string {
	if len(prefix)+len(subscriber) <= max {
		return prefix + subscriber
	}
	digest := NameDigest(subscriber)
	return prefix + subscriber[:max-len(prefix)-1-len(digest)] + "-" + digest
}

// RoleIDOutputPrefix begins the name of the stack output ErasureSubscriber
// writes for each store: its value is "<store>=<handler role's unique id>",
// the form erasurectl watch --role-id takes, so that the account service
// learns every store's role id from the deployed stacks' outputs.
const RoleIDOutputPrefix = "ErasureHandlerRoleId"

// NameDigest is 8 hex digits of a digest of a subscriber name: a suffix that
// keeps names distinct where only letters and digits may stand.
func NameDigest(subscriber string) string {
	sum := sha256.Sum256([]byte(subscriber))
	return hex.EncodeToString(sum[:4])
}
