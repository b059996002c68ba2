// Package checkcli is the app-wide check as a command: the flags, the exit
// codes and the text, JSON and SARIF output that `erasurectl check` and
// `erasure-check` (the command the construct package installs, the same Go
// compiled to WebAssembly) share, so that the two cannot drift.
package checkcli

import "fmt"

// Exit codes scripts can rely on.
const (
	ExitOK          = 0
	ExitCheckFailed = 1
	ExitUsage       = 2
	ExitEnvironment = 3
)

// ExitError carries an exit code and a message that names no message value.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Fail is an ExitError with a formatted message.
func Fail(code int, format string, args ...any) error {
	return &ExitError{Code: code, Msg: fmt.Sprintf(format, args...)}
}
