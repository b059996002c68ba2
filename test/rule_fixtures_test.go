package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
)

// TestChannelRuleFixtures: the fixtures of the rules that need the channel
// itself in the app (constructs/erasurecheck's appFixtureRules): the example
// app passes each; an edit of its synthesized assembly fails each.
func TestChannelRuleFixtures(t *testing.T) {
	defaultApp(t)
	cases := []struct {
		rule string
		edit func(t *testing.T, dir string, tpls map[string]template)
	}{
		{"EC319", func(t *testing.T, dir string, tpls map[string]template) {
			// The handler's role moved off the roster's path: the response
			// queue's policy denies its answers.
			id, props := tpls["SpaceStore"].handlerRole(t)
			props["Path"] = "/elsewhere/"
			tpls["SpaceStore"]["Resources"].(map[string]any)[id].(map[string]any)["Properties"] = props
		}},
		{"EC320", func(t *testing.T, dir string, tpls map[string]template) {
			// The store's name gone from the roster the assembly records.
			editAssemblyMetadata(t, dir, erasurecheck.RosterMetadataKey, func(data any) any {
				names, _ := data.([]any)
				return slices.DeleteFunc(slices.Clone(names), func(n any) bool { return n == "space" })
			})
		}},
		{"EC611", func(t *testing.T, dir string, tpls map[string]template) { dropAnswerGrant(t, tpls) }},
		{"EC612", func(t *testing.T, dir string, tpls map[string]template) { openRoster(t, tpls) }},
		{"EC613", func(t *testing.T, dir string, tpls map[string]template) { addUnjudgeableDeny(t, tpls) }},
		{"EC614", func(t *testing.T, dir string, tpls map[string]template) {
			for _, r := range tpls["ErasureChannel"].resources("AWS::SNS::Topic") {
				if md, ok := r["Metadata"].(map[string]any); ok {
					delete(md, channelpolicy.PublishersMetadataKey)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			cfg := erasurecheck.Config{Access: c.rule == "EC611" || c.rule == "EC612" || c.rule == "EC613"}
			if got := findingsOf(t, defaultDir, cfg, c.rule); len(got) != 0 {
				t.Errorf("the example app has a finding of %s: %s", c.rule, got[0].String())
			}
			dir := copyAssembly(t, defaultDir)
			tpls := readTemplates(t, dir)
			c.edit(t, dir, tpls)
			writeTemplates(t, dir, tpls)
			if got := findingsOf(t, dir, cfg, c.rule); len(got) == 0 {
				t.Errorf("the edited app has no finding of %s", c.rule)
			}
		})
	}
}

// findingsOf checks the assembly in dir and returns the findings of rule id.
func findingsOf(t *testing.T, dir string, cfg erasurecheck.Config, id string) erasurecheck.Findings {
	t.Helper()
	res, err := erasurecheck.CheckPaths([]string{dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out erasurecheck.Findings
	for _, f := range res.Findings {
		if f.Rule != nil && f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// editAssemblyMetadata rewrites the data of every construct metadata entry
// of type typ in the cloud assembly's JSON files.
func editAssemblyMetadata(t *testing.T, dir, typ string, edit func(any) any) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == typ {
				x["data"] = edit(x["data"])
				found = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue
		}
		before := found
		found = false
		walk(v)
		if found {
			out, _ := json.Marshal(v)
			if err := os.WriteFile(f, out, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		found = found || before
	}
	if !found {
		t.Fatalf("no %s metadata in the assembly", typ)
	}
}
