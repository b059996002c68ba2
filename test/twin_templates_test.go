package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheTypeScriptTwinBuildsTheSameTemplates: tools/bench-synth times the
// Go app against its TypeScript twin (tools/bench/synth-app.ts), which is a
// fair race only while both build the same templates. With two more stores
// (the bench's context: nag and the example stores off) tools/bench/compare.mjs
// finds every resource, property, statement and output the same; a twin
// that drifts from the constructs fails here, not in a bench run. The
// compare itself is shown to fail on a template with one statement changed.
func TestTheTypeScriptTwinBuildsTheSameTemplates(t *testing.T) {
	t.Parallel()
	root, node, bin := benchApp(t)
	if _, err := os.Stat(filepath.Join(root, "tools", "bench", "node_modules", "aws-cdk-lib")); err != nil {
		t.Fatal("the twin's aws-cdk-lib is not installed: make tools installs it")
	}
	ctx := benchContext(t, root, 2, map[string]any{"erasure:examples": false})
	goOut, tsOut := t.TempDir(), t.TempDir()
	run := func(name string, env []string, args ...string) { runIn(t, root, name, env, args...) }
	run("the Go app", []string{"CDK_OUTDIR=" + goOut, "CDK_CONTEXT_JSON=" + ctx, "JSII_NODE=" + node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1"}, bin)
	asset := filepath.Join(os.TempDir(), "erasure-channel-handlers", "example-store")
	run("the TypeScript twin", []string{"CDK_OUTDIR=" + tsOut, "CDK_CONTEXT_JSON=" + ctx, "STORES=2", "HANDLER_ASSET=" + asset},
		node, "--experimental-strip-types", "--no-warnings", filepath.Join("tools", "bench", "synth-app.ts"))
	compare := func(a, b string) (string, error) {
		out, err := exec.Command(node, filepath.Join(root, "tools", "bench", "compare.mjs"), a, b).CombinedOutput()
		return string(out), err
	}
	out, err := compare(goOut, tsOut)
	if err != nil {
		t.Fatalf("the twin's templates are not the Go app's:\n%s", out)
	}
	t.Log(strings.TrimSpace(out))

	// One statement's Sid changed in the twin's store template: refused.
	f := filepath.Join(tsOut, "Store001.template.json")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strings.Replace(string(b), `"OnlyTheHandlerConsumes"`, `"OnlyTheHandlerConsume"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := compare(goOut, tsOut); err == nil || !strings.Contains(out, "Store001.template.json.Resources") {
		t.Errorf("the compare passed a changed statement (err %v):\n%s", err, out)
	}
}
