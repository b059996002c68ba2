package sqssns

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFauxqsPinIsTools holds the standalone emulator's fauxqs to the one
// tools/ pins, so erasure-conform outside the repository runs the same.
func TestFauxqsPinIsTools(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tools", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies, DevDependencies map[string]string
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	pinned := pkg.Dependencies["fauxqs"] + pkg.DevDependencies["fauxqs"]
	if pinned != FauxqsVersion {
		t.Fatalf("tools/package.json pins fauxqs %q, FauxqsVersion is %q", pinned, FauxqsVersion)
	}
}
