package erasurecheck

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
)

// TestPolicyIndexAgreesWithAScan: the resource policies policyTarget finds
// for each queue, topic and bucket through the policy index are the ones a
// scan of every policy of its template with Names finds, in the same order,
// over every rule fixture, the landing-zone store, the other testdata
// templates and hand-rolled stores in one template (references, Fn::Sub,
// literal URLs and ARNs, inline policies).
func TestPolicyIndexAgreesWithAScan(t *testing.T) {
	base := cleanStore(t)
	var paths []string
	write := func(body string) {
		p := filepath.Join(t.TempDir(), "store.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, fx := range ruleFixtures {
		start := base
		if fx.bitmap {
			start = applyEdits(t, base, bitmapStore)
		}
		write(applyEdits(t, start, fx.fail))
		write(applyEdits(t, start, fx.pass))
	}
	// A queue policy naming its queue by a literal URL and by Fn::Sub.
	write(applyEdits(t, base, []edit{{"      Queues: [!Ref Requests]\n", "      Queues: [!Sub \"${Requests}\", \"https://sqs.eu-west-1.amazonaws.com/111111111111/other\"]\n"}}))
	for _, name := range []string{"store-any-region.yaml", "store-broken.yaml"} {
		paths = append(paths, filepath.Join("testdata", name))
	}
	paths = append(paths, filepath.Join("testdata", "landing-zone"))
	rolled := t.TempDir()
	writeHandRolledAssembly(t, rolled, 30, 30)
	paths = append(paths, rolled)
	kinds := map[string][3]string{
		"AWS::SQS::Queue": {"AWS::SQS::QueuePolicy", "Queues", "AWS::SQS::QueueInlinePolicy"},
		"AWS::SNS::Topic": {"AWS::SNS::TopicPolicy", "Topics", "AWS::SNS::TopicInlinePolicy"},
		"AWS::S3::Bucket": {"AWS::S3::BucketPolicy", "Bucket", ""},
	}
	compared := 0
	for _, p := range paths {
		files, err := cfnmodel.TemplateFiles([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		a, err := readAssembly(files)
		if err != nil {
			continue
		}
		for _, tpl := range a.Templates {
			for typ, k := range kinds {
				types := []string{k[0]}
				inlineProp := ""
				if k[2] != "" {
					types = append(types, k[2])
					inlineProp = map[string]string{"AWS::SQS::QueueInlinePolicy": "Queue", "AWS::SNS::TopicInlinePolicy": "TopicArn"}[k[2]]
				}
				for _, id := range tpl.IDsOf(typ) {
					names := func(pid string) bool {
						r := tpl.Resources[pid]
						if r.Type == types[0] {
							return a.Names(tpl, r.Properties[k[1]], tpl, id)
						}
						return a.Names(tpl, r.Properties[inlineProp], tpl, id)
					}
					want := slices.DeleteFunc(slices.Clone(tpl.IDsOf(types...)), func(pid string) bool { return !names(pid) })
					got := slices.DeleteFunc(slices.Clone(a.policiesNaming(tpl, id, types, k[1], inlineProp)), func(pid string) bool { return !names(pid) })
					if !slices.Equal(got, want) {
						t.Errorf("%s %s %s: the index finds %v, the scan %v", p, typ, id, got, want)
					}
					compared++
				}
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d resources compared", compared)
	}
}
