package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// TestAPICompatGateRefusesABreakingChange: the API gate (make api-compat,
// scripts/api-compat.mjs) over copies of the package's assembly: the
// package as built keeps the last release's API; with a prop of
// ErasureSubscriberProps removed, a release of the baseline's compatibility
// number (0.3.1 after 0.3.0) fails, naming the prop; the same removal passes
// once the number moves (0.x: the minor).
func TestAPICompatGateRefusesABreakingChange(t *testing.T) {
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	pkg := filepath.Join(root, "constructs", "typescript")
	b, err := os.ReadFile(filepath.Join(pkg, ".jsii"))
	if err != nil {
		t.Fatal("the package's assembly is not built: make dist")
	}
	gate := func(mutate func(a map[string]any)) (string, error) {
		var a map[string]any
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		mutate(a)
		dir := t.TempDir()
		out, _ := json.Marshal(a)
		if err := os.WriteFile(filepath.Join(dir, ".jsii"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		pj, _ := json.Marshal(map[string]any{"name": a["name"], "version": a["version"], "peerDependencies": a["dependencies"], "jsii": map[string]any{"outdir": "dist"}})
		if err := os.WriteFile(filepath.Join(dir, "package.json"), pj, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(pkg, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		res, err := exec.Command(node, filepath.Join(pkg, "scripts", "api-compat.mjs"), dir).CombinedOutput()
		return string(res), err
	}
	removeBatchSize := func(a map[string]any) {
		props := a["types"].(map[string]any)["erasure-channel-constructs.ErasureSubscriberProps"].(map[string]any)
		var kept []any
		for _, p := range props["properties"].([]any) {
			if p.(map[string]any)["name"] != "batchSize" {
				kept = append(kept, p)
			}
		}
		props["properties"] = kept
	}
	if out, err := gate(func(map[string]any) {}); err != nil {
		t.Fatalf("the package as built: %v\n%s", err, out)
	}
	// A release of the same compatibility number as the baseline's (0.3.0).
	out, err := gate(func(a map[string]any) { removeBatchSize(a); a["version"] = "0.3.1" })
	if err == nil || !strings.Contains(out, "ErasureSubscriberProps.batchSize") {
		t.Errorf("a removed prop passed the gate (%v):\n%s", err, out)
	}
	out, err = gate(func(a map[string]any) { removeBatchSize(a); a["version"] = "0.99.0" })
	if err != nil || !strings.Contains(out, "as a move from") {
		t.Errorf("a removed prop with the minor moved: %v\n%s", err, out)
	}
}
