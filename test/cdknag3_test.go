package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// npmNag3 is cdk-nag's third major, which reads acknowledgements through
// CDK's validation API instead of cdk-nag 2's template metadata.
const npmNag3 = "cdk-nag@3.0.2"

// TestCdkNag3AcceptsTheConstruct: a store team's TypeScript app on the npm
// artifact runs cdk-nag 3's AwsSolutions, Serverless, NIST 800-53 rev 5,
// HIPAA Security and PCI DSS 3.2.1 packs as policy validation plugins over
// ErasureSubscriber: the synth passes, each justified finding reported as
// acknowledged with the construct's reason. With the construct's
// suppressions turned off (erasure:nag false) the same synth fails on those
// findings, so it is the acknowledgements that pass it.
func TestCdkNag3AcceptsTheConstruct(t *testing.T) {
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	tgz := one(t, filepath.Join(dist(t, root), "js", "*.jsii.tgz"))
	dir := t.TempDir()
	env := []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH")}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"nag3","version":"1.0.0","private":true,"type":"module"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(root, "test", "testdata", "cdknag3"), dir)
	runIn(t, dir, "npm install", env, "npm", "install", "--save-exact", "--no-audit", "--no-fund", "--loglevel=error", tgz, npmCDK, npmConstrcs, npmNag3)
	asset := t.TempDir()
	if err := os.WriteFile(filepath.Join(asset, "index.js"), []byte("exports.handler = async () => ({ batchItemFailures: [] });\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	synth := func(extra ...string) (string, bool) {
		cmd := exec.Command(node, "app.mjs")
		cmd.Dir = dir
		cmd.Env = append(append(append(os.Environ(), env...), "HANDLER_ASSET="+asset, "OUT="+t.TempDir()), extra...)
		b, err := cmd.CombinedOutput()
		return string(b), err == nil
	}
	if out, ok := synth(); !ok || !strings.Contains(out, "synth passed") {
		t.Fatalf("cdk-nag 3 refuses the construct's resources:\n%s", out)
	}
	out, ok := synth("NAG=off")
	if ok {
		t.Fatalf("without the construct's acknowledgements the synth passed:\n%s", out)
	}
	packs := regexp.MustCompile(`(?m)^(?:ERROR|FATAL) .*\((AwsSolutions|Serverless|NIST\.800\.53\.R5|HIPAA\.Security|PCI\.DSS\.321)\)$`)
	var seen []string
	for _, m := range packs.FindAllStringSubmatch(out, -1) {
		seen = append(seen, m[1])
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	for _, p := range []string{"HIPAA.Security", "NIST.800.53.R5", "PCI.DSS.321"} {
		if !slices.Contains(seen, p) {
			t.Errorf("without the acknowledgements, no error of %s (so the test cannot tell they pass it): %v", p, seen)
		}
	}
}
