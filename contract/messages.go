package contract

import "time"

// MessageType is the type discriminator every message carries in its body.
type MessageType string

// The seven message types of the contract.
const (
	TypeErase     MessageType = "erasure/ERASE"
	TypeRefile    MessageType = "erasure/REFILE"
	TypeClassify  MessageType = "erasure/CLASSIFY"
	TypeCheck     MessageType = "erasure/CHECK"
	TypeAck       MessageType = "erasure/ACK"
	TypeRefileAck MessageType = "erasure/REFILE_ACK"
	TypeHoldings  MessageType = "erasure/HOLDINGS"
)

// RequestTypes are the types the account service sends.
var RequestTypes = []MessageType{TypeErase, TypeRefile, TypeClassify, TypeCheck}

// ResponseTypes are the types stores send.
var ResponseTypes = []MessageType{TypeAck, TypeRefileAck, TypeHoldings}

// IsRequest reports whether t is sent by the account service.
func (t MessageType) IsRequest() bool {
	return t == TypeErase || t == TypeRefile || t == TypeClassify || t == TypeCheck
}

// IsResponse reports whether t is sent by a store.
func (t MessageType) IsResponse() bool {
	return t == TypeAck || t == TypeRefileAck || t == TypeHoldings
}

// IsDestructive reports whether a request of type t changes a store's data
// (and so runs a second pass).
func (t MessageType) IsDestructive() bool { return t == TypeErase || t == TypeRefile }

// HasSendNo reports whether messages of type t carry a sendNo.
func (t MessageType) HasSendNo() bool {
	return t == TypeErase || t == TypeRefile || t == TypeAck || t == TypeRefileAck
}

// ResponseType is the type a store answers a request of type t with, or ""
// when t is not a request.
func (t MessageType) ResponseType() MessageType {
	switch t {
	case TypeErase:
		return TypeAck
	case TypeRefile:
		return TypeRefileAck
	case TypeClassify, TypeCheck:
		return TypeHoldings
	}
	return ""
}

// KeyKind says what a key is.
type KeyKind string

// The key kinds.
const (
	// KeyAccount: the key is an account id.
	KeyAccount KeyKind = "ACCOUNT"
	// KeyAddress: the key is an email address, already passed through AddressKey.
	KeyAddress KeyKind = "ADDRESS"
)

// Outcome is a store's answer to ERASE (ACK) or REFILE (REFILE_ACK).
type Outcome string

// The outcomes. DONE answers ERASE only; MOVED, NONE_OWNED and NOT_MOVED
// answer REFILE only; NOT_APPLICABLE answers either.
const (
	OutcomeDone          Outcome = "DONE"
	OutcomeMoved         Outcome = "MOVED"
	OutcomeNoneOwned     Outcome = "NONE_OWNED"
	OutcomeNotMoved      Outcome = "NOT_MOVED"
	OutcomeNotApplicable Outcome = "NOT_APPLICABLE"
)

// Answer is a store's answer to CHECK or CLASSIFY (HOLDINGS).
type Answer string

// The answers.
const (
	AnswerHoldsData     Answer = "HOLDS_DATA"
	AnswerHoldsNone     Answer = "HOLDS_NONE"
	AnswerCannotAnswer  Answer = "CANNOT_ANSWER"
	AnswerNotApplicable Answer = "NOT_APPLICABLE"
)

// Pair is a (type, key kind) pair a store may implement.
type Pair struct {
	Type    MessageType
	KeyKind KeyKind
}

// Request is a message the account service sends: ERASE, REFILE, CLASSIFY or
// CHECK. Fields a type does not carry are zero (SendNo for CLASSIFY and CHECK;
// Key for REFILE; From, To and AccountID for all but REFILE).
type Request struct {
	Type      MessageType
	RequestID string
	SendNo    int
	ExpiresAt time.Time
	KeyKind   KeyKind
	Key       string
	From      string
	To        string
	AccountID string
}

// Pair returns the request's (type, key kind) pair, the unit a store implements.
func (r Request) Pair() Pair { return Pair{Type: r.Type, KeyKind: r.KeyKind} }

// Expired reports whether the request has expired by now, the store's own
// clock. A request expires at ExpiresAt: from that instant on it is consumed
// with no answer. Parsing never judges expiry; this call does.
func (r Request) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// The SQS message attributes that mark a pass-two message on a store's own
// queue (docs/quickstart/handler.md). They are never part of the contract
// body: a handler sets them on the re-send it makes itself, and trusts them
// only on a message whose SenderId is its own.
const (
	AttrPass           = "erasure-pass"
	AttrPassOneOutcome = "erasure-pass-one-outcome"
)

// Response is a message a store sends: ACK, REFILE_ACK or HOLDINGS. Fields a
// type does not carry are zero (SendNo and Outcome for HOLDINGS; KeyKind, Key
// and Answer for ACK and REFILE_ACK).
type Response struct {
	Type       MessageType
	RequestID  string
	SendNo     int
	Subscriber string
	Outcome    Outcome
	KeyKind    KeyKind
	Key        string
	Answer     Answer
}

// NotApplicable reports whether the response says the store holds nothing
// of the request's kind.
func (r Response) NotApplicable() bool {
	return r.Outcome == OutcomeNotApplicable || r.Answer == AnswerNotApplicable
}

// AnswerFor builds the response a store named subscriber gives to req.
// outcome is the Outcome (ACK, REFILE_ACK) or Answer (HOLDINGS) as a string;
// the result is not validated until it is encoded.
func AnswerFor(req Request, subscriber string, outcome string) Response {
	resp := Response{Type: req.Type.ResponseType(), RequestID: req.RequestID, Subscriber: subscriber}
	switch resp.Type {
	case TypeHoldings:
		resp.KeyKind, resp.Key, resp.Answer = req.KeyKind, req.Key, Answer(outcome)
	default:
		resp.SendNo, resp.Outcome = req.SendNo, Outcome(outcome)
	}
	return resp
}

// NotApplicableFor builds the NOT_APPLICABLE answer to req.
func NotApplicableFor(req Request, subscriber string) Response {
	return AnswerFor(req, subscriber, string(OutcomeNotApplicable))
}
