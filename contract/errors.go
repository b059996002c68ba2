package contract

// ErrorCode classifies why a body was refused. Callers branch on the code,
// never on message text.
type ErrorCode string

// The codes a parser returns. NOT_JSON, INVALID_MESSAGE and NOT_A_REQUEST are
// the seed's; NOT_A_RESPONSE is their mirror for readers of the response queue.
const (
	// CodeNotJSON: the body is not one RFC 8259 JSON text in UTF-8 (syntax
	// error, invalid UTF-8, a byte order mark, trailing data, empty body).
	CodeNotJSON ErrorCode = "NOT_JSON"
	// CodeInvalidMessage: well-formed JSON that breaks the strict wire
	// profile or the schema.
	CodeInvalidMessage ErrorCode = "INVALID_MESSAGE"
	// CodeNotARequest: a valid contract message that is a response, given
	// to the request parser.
	CodeNotARequest ErrorCode = "NOT_A_REQUEST"
	// CodeNotAResponse: a valid contract message that is a request, given
	// to the response parser.
	CodeNotAResponse ErrorCode = "NOT_A_RESPONSE"
)

// ContractError is the error of every parse and validation in this package.
// Error() is the code alone: no part of the input ever reaches it. Field
// names the schema field at fault when it is one of the contract's own
// field names; it is never copied from the input.
type ContractError struct {
	Code   ErrorCode
	Field  string // a contract field name such as "key", or "" when none applies
	Reason string // a fixed word such as "pattern" or "duplicate-member"; never input
}

// Error returns the code alone.
func (e *ContractError) Error() string { return string(e.Code) }

// Is reports whether target is a *ContractError with the same code, so that
// errors.Is(err, contract.ErrNotJSON) works.
func (e *ContractError) Is(target error) bool {
	t, ok := target.(*ContractError)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrNotJSON        = &ContractError{Code: CodeNotJSON}
	ErrInvalidMessage = &ContractError{Code: CodeInvalidMessage}
	ErrNotARequest    = &ContractError{Code: CodeNotARequest}
	ErrNotAResponse   = &ContractError{Code: CodeNotAResponse}
)

func invalid(field, reason string) *ContractError {
	return &ContractError{Code: CodeInvalidMessage, Field: field, Reason: reason}
}
