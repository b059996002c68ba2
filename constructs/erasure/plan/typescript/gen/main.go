// Command gen writes applier/design.ts: go run ./constructs/erasure/plan/typescript/gen.
package main

import (
	"os"
	"path/filepath"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan/typescript"
)

func main() {
	if err := os.WriteFile(filepath.Join("constructs", "erasure", "applier", "design.ts"), typescript.Declarations(), 0o644); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
