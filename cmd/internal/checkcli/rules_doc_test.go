package checkcli

import (
	"os"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

// TestRulesPageMatchesRegistry: docs/check-rules.md is the registry as
// `erasurectl check --list-rules --format markdown` prints it; a rule added,
// reworded or removed without regenerating the page (make rules-doc) fails.
func TestRulesPageMatchesRegistry(t *testing.T) {
	b, err := os.ReadFile("../../../docs/check-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := RulesMarkdown(erasurecheck.Rules()); string(b) != want {
		t.Errorf("docs/check-rules.md differs from the registry: run make rules-doc")
	}
}
