package erasurecheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// TestEventSourceIndexAgreesWithAScan: over every fixture template (each
// rule's failing and passing one, and the store for any region, whose names
// are patterns), the index finds for every queue exactly the event sources,
// in the same order, that a scan of every resource of the app asking
// iameval.ARNsMeet of each finds: the order the check took them in before
// the index.
func TestEventSourceIndexAgreesWithAScan(t *testing.T) {
	base := cleanStore(t)
	bodies := []string{base}
	for _, name := range []string{"store-any-region.yaml", "store-broken.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	for _, fx := range ruleFixtures {
		start := base
		if fx.bitmap {
			start = applyEdits(t, base, bitmapStore)
		}
		bodies = append(bodies, applyEdits(t, start, fx.fail), applyEdits(t, start, fx.pass))
	}
	// A cloud assembly whose queue has an exact name (its stack's account
	// and region known), read by event sources naming it exactly, by a
	// pattern, and from another stack that comes first in the assembly (the
	// queue's own stack's must still come first).
	asm := t.TempDir()
	esm := func(source any) map[string]any {
		return map[string]any{"Type": "AWS::Lambda::EventSourceMapping", "Properties": map[string]any{"FunctionName": "f", "EventSourceArn": source}}
	}
	writeJSON := func(name string, v any) {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(asm, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeJSON("A.template.json", map[string]any{"Resources": map[string]any{
		"Exact": esm("arn:aws:sqs:eu-west-1:111111111111:requests"), "Pattern": esm("arn:aws:sqs:*:111111111111:req*"), "Other": esm("arn:aws:sqs:eu-west-1:111111111111:other")}})
	writeJSON("B.template.json", map[string]any{"Resources": map[string]any{
		"Requests": map[string]any{"Type": "AWS::SQS::Queue", "Properties": map[string]any{"QueueName": "requests"}},
		"ZLocal":   esm("arn:aws:sqs:eu-west-1:*:requests"), "ByRef": esm(map[string]any{"Fn::GetAtt": []any{"Requests", "Arn"}})}})
	stack := func(file string) map[string]any {
		return map[string]any{"type": "aws:cloudformation:stack", "environment": "aws://111111111111/eu-west-1", "properties": map[string]any{"templateFile": file}}
	}
	writeJSON("manifest.json", map[string]any{"version": "55.0.0", "artifacts": map[string]any{"A": stack("A.template.json"), "B": stack("B.template.json")}})
	queues := 0
	for i, body := range append(bodies, "") {
		p := filepath.Join(t.TempDir(), "store.yaml")
		if body == "" {
			p = asm
		} else if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		files, err := cfnmodel.TemplateFiles([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		a, err := readAssembly(files)
		if err != nil {
			continue // a fixture the model refuses whole (EC601's transform is read; none is refused today)
		}
		for _, qt := range a.Templates {
			for _, qid := range qt.IDsOf("AWS::SQS::Queue") {
				queues++
				names := cfnmodel.Aliases(qt, qid)
				var want []string
				for _, et := range append([]*template{qt}, slices.DeleteFunc(slices.Clone(a.Templates), func(x *template) bool { return x == qt })...) {
					for _, id := range et.IDs() {
						r := et.Resources[id]
						src := a.Pattern(et, r.Properties["EventSourceArn"])
						if r.Type == "AWS::Lambda::EventSourceMapping" && src != "" && slices.ContainsFunc(names, func(n string) bool { return iameval.ARNsMeet(src, n) }) {
							want = append(want, et.Stack+"/"+id)
						}
					}
				}
				var got []string
				for _, e := range a.eventSourcesOf().readingFrom(names, qt) {
					got = append(got, e.t.Stack+"/"+e.id)
				}
				if !slices.Equal(got, want) {
					t.Errorf("template %d, queue %s: the index finds %v, the scan %v", i, qid, got, want)
				}
			}
		}
	}
	if queues < 100 {
		t.Errorf("only %d queues compared", queues)
	}
}
