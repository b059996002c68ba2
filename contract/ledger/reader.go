package ledger

import (
	"context"
	"errors"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/publisher"
)

// Reader turns response-queue messages into ledger records. It authenticates
// each answer by the roster (the SQS SenderId of the store's handler), so a
// forged answer is never counted; the ledger then refuses answers to rounds it
// does not know or of the wrong type.
type Reader struct {
	Ledger *Ledger
	Roster publisher.Roster
	// Lookup, when set, authenticates the stores the roster names without a
	// role id, in their account (Accounts; none: the ledger's own).
	Lookup   *RoleLookup
	Accounts map[string]string
}

// ErrKeep means the message must stay on the queue (an invalid or
// unauthenticated answer goes on to the dead-letter queue, body intact for
// investigation; a failed write is retried).
var ErrKeep = errors.New("ledger: message kept on the queue")

// Handle records one message: nil means delete it (recorded, a duplicate, a
// conflict, or refused and recorded as such); ErrKeep or another error means
// keep it.
func (r *Reader) Handle(ctx context.Context, body []byte, senderID, messageID string) (Recording, error) {
	resp, err := contract.ParseResponse(body)
	if err != nil {
		var ce *contract.ContractError
		code := "INVALID_ANSWER"
		if errors.As(err, &ce) {
			code = string(ce.Code)
		}
		return Recording{Result: Refused, Code: code}, errors.Join(ErrKeep, r.Ledger.recordRefusal(ctx, Answer{MessageID: messageID, Sender: senderID}, code))
	}
	ok, err := r.authenticates(ctx, resp.Subscriber, senderID)
	if err != nil {
		// The store's role could not be looked up just now: kept, not refused.
		return Recording{}, errors.Join(ErrKeep, err)
	}
	if !ok {
		a := Answer{Response: contract.Response{Type: resp.Type, Subscriber: resp.Subscriber}, Sender: senderID, MessageID: messageID}
		return Recording{Result: Refused, Code: contract.CodeSenderNotOnRoster}, errors.Join(ErrKeep, r.Ledger.recordRefusal(ctx, a, contract.CodeSenderNotOnRoster))
	}
	return r.Ledger.RecordAnswer(ctx, Answer{Response: resp, Sender: senderID, MessageID: messageID})
}
