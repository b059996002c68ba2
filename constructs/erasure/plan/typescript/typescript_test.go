package typescript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDesignTypesAreGenerated: applier/design.ts is what the design's and the
// plan's Go types declare now: a renamed or retyped Go field fails here, and then in
// tsc's check of the applier and of the TypeScript construct.
func TestDesignTypesAreGenerated(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", "applier", "design.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if want := Declarations(); !bytes.Equal(got, want) {
		t.Error("applier/design.ts is not the design's and the plan's types: run go run ./constructs/erasure/plan/typescript/gen")
	}
}
