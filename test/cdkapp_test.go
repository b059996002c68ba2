package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/linn-cloud/erasure-channel/contract"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/stacks"
)

// cdkContext is cdk.json's context: tests synthesize with the flags the app
// deploys with (nag findings fail synth through the validation report).
func cdkContext(t testing.TB) map[string]interface{} {
	t.Helper()
	b, err := os.ReadFile("../cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Context map[string]interface{} `json:"context"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Context
}

// newApp is a fresh App writing to its own directory.
func newApp(t testing.TB) (awscdk.App, string) {
	t.Helper()
	ctx := cdkContext(t)
	dir := t.TempDir()
	return awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(dir)}), dir
}

// template is one synthesized stack's template.
type template map[string]interface{}

func readTemplates(t testing.TB, dir string) map[string]template {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.template.json"))
	out := map[string]template{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tpl template
		if err := json.Unmarshal(b, &tpl); err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f[:len(f)-len(".template.json")])] = tpl
	}
	return out
}

// resources returns the logical ids and bodies of one type's resources.
func (tpl template) resources(typ string) map[string]map[string]interface{} {
	out := map[string]map[string]interface{}{}
	for id, r := range tpl["Resources"].(map[string]interface{}) {
		res := r.(map[string]interface{})
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// all returns every resource by logical id.
func (tpl template) all() map[string]map[string]interface{} {
	out := map[string]map[string]interface{}{}
	for id, r := range tpl["Resources"].(map[string]interface{}) {
		out[id] = r.(map[string]interface{})
	}
	return out
}

// one returns the single resource of a type, failing otherwise.
func (tpl template) one(t testing.TB, typ string) (string, map[string]interface{}) {
	t.Helper()
	rs := tpl.resources(typ)
	if len(rs) != 1 {
		t.Fatalf("%d resources of type %s, want 1", len(rs), typ)
	}
	for id, r := range rs {
		return id, r["Properties"].(map[string]interface{})
	}
	return "", nil
}

// handlerRole is the store's handler role: its one IAM role but the lookup
// role (contract.RosterLookupRolePath) a store outside the channel's
// account makes for the ledger's reader.
func (tpl template) handlerRole(t testing.TB) (string, map[string]interface{}) {
	t.Helper()
	var id string
	var props map[string]interface{}
	for rid, r := range tpl.resources("AWS::IAM::Role") {
		p := r["Properties"].(map[string]interface{})
		if p["Path"] == contract.RosterLookupRolePath {
			continue
		}
		if id != "" {
			t.Fatalf("two handler roles: %s and %s", id, rid)
		}
		id, props = rid, p
	}
	if id == "" {
		t.Fatal("no handler role")
	}
	return id, props
}

var (
	defaultOnce sync.Once
	defaultTpls map[string]template
	defaultDir  string
	defaultErr  error
)

// defaultApp synthesizes the app cdk.json runs, once per test binary, through
// the same entry point the app and erasurectl use.
func defaultApp(t testing.TB) map[string]template {
	t.Helper()
	defaultOnce.Do(func() {
		dir, err := os.MkdirTemp("", "erasure-default-app")
		if err != nil {
			defaultErr = err
			return
		}
		props, err := stacks.LocalAppProps("../cdk.json", dir)
		if err != nil {
			defaultErr = err
			return
		}
		if _, defaultErr = stacks.Synthesize(props); defaultErr == nil {
			defaultTpls, defaultDir = readTemplates(t, dir), dir
		}
	})
	if defaultErr != nil {
		t.Fatal(defaultErr)
	}
	return defaultTpls
}

// synth runs app.Synth, turning CDK's validation panic into an error.
func synth(app awscdk.App) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	app.Synth(nil)
	return nil
}

// TestSynthIsDeterministic: two synths of the default app write byte-identical
// templates. A template that changes between synths (a map iterated into it)
// makes every deploy a change set, and the offline engine replaced a
// deletion-protected table over it.
func TestSynthIsDeterministic(t *testing.T) {
	defaultApp(t)
	dir := t.TempDir()
	props, err := stacks.LocalAppProps("../cdk.json", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stacks.Synthesize(props); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(defaultDir, "*.template.json"))
	if len(names) == 0 {
		t.Fatal("no template")
	}
	for _, a := range names {
		want, _ := os.ReadFile(a)
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(a)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs between two synths of one app", filepath.Base(a))
		}
	}
}
