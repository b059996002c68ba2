//go:build wasip1

package main

import (
	"fmt"
	"io"
)

// runConform is not in the WebAssembly build: the conformance command
// starts processes and listens on ports, which WASI preview 1 cannot.
func runConform(_ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "erasure-conform: not in the WebAssembly build; install the package's native build for this platform")
	return 3
}
