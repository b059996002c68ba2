package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// jsiiCallsPerStore is what one more store costs the Go app in round trips
// to the jsii kernel (issue 33: each costs a fraction of a millisecond, the
// gap to a TypeScript app). A store is its stack, its code asset and the
// subscriber's two steps (constructs/erasure/applier.go), the first of
// which makes the subscriber's construct itself.
// Lower it when a change saves calls; a change that raises it fails
// TestJsiiCallsPerStore.
const jsiiCallsPerStore = 4

// TestJsiiCallsPerStore counts the requests the Go app sends the jsii kernel
// (JSII_DEBUG's "> " lines on the kernel's stderr) for the example app with
// one and with two more stores (erasure:extraStores, nag and check off) and
// fails when the second store costs more than jsiiCallsPerStore.
func TestJsiiCallsPerStore(t *testing.T) {
	t.Parallel()
	root, node, bin := benchApp(t)
	calls := func(stores int) int {
		ctx := benchContext(t, root, stores, map[string]any{"erasure:check": false})
		cmd := exec.Command(bin)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CDK_OUTDIR="+t.TempDir(), "CDK_CONTEXT_JSON="+string(ctx), "JSII_NODE="+node,
			"JSII_DEBUG=1", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("synth with %d more stores: %v\n%s", stores, err, tail(stderr.Bytes()))
		}
		n := 0
		for _, line := range bytes.Split(stderr.Bytes(), []byte("\n")) {
			if bytes.HasPrefix(line, []byte("> ")) {
				n++
			}
		}
		return n
	}
	one, two := calls(1), calls(2)
	perStore := two - one
	t.Logf("jsii requests: %d with one more store, %d with two: %d a store (budget %d)", one, two, perStore, jsiiCallsPerStore)
	if perStore > jsiiCallsPerStore {
		t.Errorf("a store costs %d jsii round trips, more than the %d budget: build what is pure data in Go and hand it over in one call", perStore, jsiiCallsPerStore)
	}
	if perStore < jsiiCallsPerStore*9/10 {
		t.Logf("a store now costs %d: lower jsiiCallsPerStore to guard the saving", perStore)
	}
}

// benchBuild is the Go CDK app built once for the tests that synthesize it
// outside cdk (TestJsiiCallsPerStore, TestTheTypeScriptTwinBuildsTheSameTemplates).
var benchBuild = sync.OnceValues(func() (string, error) {
	root, _, err := pinnednode.Find("..")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "erasure-bench-app")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "cdkapp")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "stacks", "app")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// benchApp is the repository root, the pinned Node and the built app; it
// skips when the pinned Node is not installed.
func benchApp(t *testing.T) (root, node, bin string) {
	t.Helper()
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	if bin, err = benchBuild(); err != nil {
		t.Fatal(err)
	}
	return root, node, bin
}

// benchContext is cdk.json's context with nag off and stores more stores,
// with extra over it (tools/bench-synth's also turns the example stores off).
func benchContext(t *testing.T, root string, stores int, extra map[string]any) string {
	t.Helper()
	c := cdkJSONContext(t, filepath.Join(root, "cdk.json"))
	c["erasure:nag"], c["erasure:extraStores"] = false, stores
	for k, v := range extra {
		c[k] = v
	}
	ctx, _ := json.Marshal(c)
	return string(ctx)
}

// tail is the last 2 KB of b.
func tail(b []byte) []byte {
	if len(b) > 2048 {
		return b[len(b)-2048:]
	}
	return b
}
