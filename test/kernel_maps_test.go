package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestKernelDeclarationsLeadToTheSource: the TypeScript package compiles
// lib/ against kernel/'s declarations of the applier and the design's types
// (jsii's rootDir keeps applier/ out of its program); each declaration's
// map names the one source, so that an editor's "go to definition" from
// lib/ opens constructs/erasure/applier/apply.js or design.ts, never a copy.
func TestKernelDeclarationsLeadToTheSource(t *testing.T) {
	kernel := filepath.Join("..", "constructs", "typescript", "kernel")
	for decl, source := range map[string]string{"apply.d.ts": "apply.js", "design.d.ts": "design.ts"} {
		body, err := os.ReadFile(filepath.Join(kernel, decl+".map"))
		if err != nil {
			t.Fatalf("%s has no declaration map (make packages builds kernel/): %v", decl, err)
		}
		var m struct {
			File    string   `json:"file"`
			Sources []string `json:"sources"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%s.map: %v", decl, err)
		}
		want, _ := filepath.Abs(filepath.Join("..", "constructs", "erasure", "applier", source))
		if m.File != decl || len(m.Sources) != 1 {
			t.Fatalf("%s.map maps %q from %v", decl, m.File, m.Sources)
		}
		got, _ := filepath.Abs(filepath.Join(kernel, m.Sources[0]))
		if got != want {
			t.Errorf("%s leads to %s, not the source %s", decl, got, want)
		}
		if _, err := os.Stat(got); err != nil {
			t.Errorf("%s leads to %s: %v", decl, got, err)
		}
	}
}
