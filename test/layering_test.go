package test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestNoArrowRunsBackUp: dependencies point one way. The contract, the
// template model, the evaluator, the channel's policy declarations, the
// constructs and the CDK app import nothing of internal/ (code only the
// commands and tests share), the contract nothing of the constructs or
// the stacks, and the constructs nothing of their own checker (erasurecheck):
// read from `go list -deps`, not from a list of files.
func TestNoArrowRunsBackUp(t *testing.T) {
	const mod = "github.com/linn-cloud/erasure-channel/"
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Deps", "./contract/...", "./constructs/...", "./stacks/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, mod)
		if !ok || strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "test") {
			continue
		}
		seen++
		for _, d := range p.Deps {
			drel, ok := strings.CutPrefix(d, mod)
			switch {
			case !ok:
			case strings.HasPrefix(drel, "internal/"):
				t.Errorf("%s imports %s: internal/ is for the commands and tests", rel, drel)
			case strings.HasPrefix(rel, "contract") && (strings.HasPrefix(drel, "constructs/") || strings.HasPrefix(drel, "stacks")):
				t.Errorf("%s imports %s: the contract is below the constructs and the stacks", rel, drel)
			case strings.HasPrefix(rel, "constructs/erasure") && !strings.HasPrefix(rel, "constructs/erasurecheck") && !strings.HasPrefix(rel, "constructs/erasuretest") &&
				strings.HasPrefix(drel, "constructs/erasurecheck"):
				t.Errorf("%s imports %s: the constructs write what the check reads through channelmeta and bucketrule, not by importing their checker", rel, drel)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("only %d packages read", seen)
	}
}
