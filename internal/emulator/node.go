package emulator

import (
	"os"
	"syscall"
)

// ExecWithPinnedNode makes jsii use the pinned Node 22 of tools/ when the
// caller has not chosen one with JSII_NODE. jsii reads JSII_NODE while Go
// packages initialise, before main, so the process re-executes itself once
// with it set. It returns (doing nothing) when JSII_NODE is set, when tools/
// is not installed, or when the re-exec fails: jsii then uses the machine's node.
func ExecWithPinnedNode() {
	if os.Getenv("JSII_NODE") != "" {
		return
	}
	_, node, err := PinnedNode("")
	if err != nil {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	env := append(os.Environ(), "JSII_NODE="+node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1")
	_ = syscall.Exec(self, os.Args, env)
}
