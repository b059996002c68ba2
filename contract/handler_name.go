package contract

import (
	"crypto/sha256"
	"encoding/hex"
)

// handlerNameMax is IAM's and Lambda's limit on a role's and a function's name.
const handlerNameMax = 64

// HandlerName is the name of a store's handler role and function
// (ErasureSubscriber gives it): deterministic, so that the channel's roster
// can name a store's handler before it exists, in any account, and the
// response reader can recognise its answers (SQS's SenderId is
// "<role unique id>:<function name>"). A name too long for IAM keeps a prefix
// and a digest of the whole.
func HandlerName(subscriber string) string {
	const prefix = "erasure-handler-"
	if len(prefix)+len(subscriber) <= handlerNameMax {
		return prefix + subscriber
	}
	sum := sha256.Sum256([]byte(subscriber))
	digest := hex.EncodeToString(sum[:4])
	return prefix + subscriber[:handlerNameMax-len(prefix)-1-len(digest)] + "-" + digest
}
