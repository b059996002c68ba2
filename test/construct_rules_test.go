package test

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/constructrule"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// anyRefusalLine is a refusal line of CDK's validation error, whether or
// not it names a rule.
var anyRefusalLine = regexp.MustCompile(`\[[^\]\n]+\] (?:EC\d{3} )?ErasureSubscriber\[[^\n]*`)

// TestConstructRefusalsNameTheirRules: every line with which the Go
// construct refuses the refusal spec's stores starts with a rule of the
// check's catalogue and is followed by its fix, and every rule that only
// the construct applies (FromConstruct: its props, which no template shows)
// is among them: the construct's refusal and the rules page name one rule.
func TestConstructRefusalsNameTheirRules(t *testing.T) {
	root, _, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	goErr := goSubscribers(t, readSubscriberSpec(t, filepath.Join(root, "test", "testdata", "subscriber-refusals.json")), t.TempDir())
	if goErr == nil {
		t.Fatal("the Go app's synth passed with every cap broken")
	}
	text := goErr.Error()
	// Every refusal line, with or without a rule id: each must have one.
	for _, l := range anyRefusalLine.FindAllString(text, -1) {
		if !refusalLine.MatchString(l) {
			t.Errorf("a refusal without its rule: %q", l)
		}
	}
	lines := refusalLine.FindAllString(text, -1)
	if len(lines) < 20 {
		t.Fatalf("only %d refusal lines:\n%s", len(lines), text)
	}
	named := map[string]int{}
	for _, l := range lines {
		id := refusalRule.FindStringSubmatch(l)[2]
		if erasurecheck.RuleByID(id) == nil {
			t.Errorf("%q names no rule of the catalogue", l)
		}
		named[id]++
	}
	if n, fixes := len(lines), strings.Count(text, "\n  Fix: "); fixes < n {
		t.Errorf("%d refusal lines, %d fixes: every refusal says what to change:\n%s", n, fixes, text)
	}
	for _, r := range erasurecheck.Rules() {
		// ErasureChannel's and ErasureLedger's rules are held by
		// constructs/erasure's TestChannelAndLedgerRefusalsNameTheirRules.
		if r.Source == erasurecheck.FromConstruct && !slices.Contains(constructrule.ChannelRules, r.ID) && named[r.ID] == 0 {
			t.Errorf("no store of the refusal spec is refused under %s (%s)", r.ID, r.Name)
		}
	}
}
