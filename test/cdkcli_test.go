package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

// TestCDKCLISynth runs the real pinned CDK CLI over cdk.json, as a user's
// `make synth` does: the Go app must synthesize every stack, nag-clean, with
// no AWS credentials.
func TestCDKCLISynth(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node := emulator.NodePath(root)
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "tools", "node_modules", ".bin", "cdk"), "synth", "--quiet", "--output", out)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JSII_NODE="+node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1",
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cdk synth: %v\n%s", err, b)
	}
	tpls := readTemplates(t, out)
	for _, s := range []string{"ErasureChannel", "SpaceStore", "LedgerStore"} {
		if _, ok := tpls[s]; !ok {
			t.Errorf("cdk synth wrote no %s template", s)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error("no cloud assembly manifest")
	}
	lintTemplates(t, out)
}

// cfnLintVersion is the cfn-lint this project's templates are linted with:
// the one the machine image ships.
const cfnLintVersion = "cfn-lint 1.51.0"

// explainedLintWarnings are the cfn-lint findings the example app keeps, each
// explained in the README ("A second validator"): W3005, an explicit
// DependsOn on the handler role that aws-lambda's Function adds although a
// GetAtt already implies it.
var explainedLintWarnings = []string{"W3005"}

// lintTemplates runs the image's cfn-lint over every template of an assembly
// the pinned CLI synthesized: no error and no unexplained warning. Where
// cfn-lint is missing the lint is skipped, except in CI, which needs it.
func lintTemplates(t *testing.T, assembly string) {
	t.Helper()
	path, err := exec.LookPath("cfn-lint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("cfn-lint is not installed, and CI lints every template: pip install cfn-lint==1.51.0")
		}
		t.Skip("cfn-lint not installed: templates not linted (pip install cfn-lint==1.51.0)")
	}
	if v, err := exec.Command(path, "--version").Output(); err != nil || strings.TrimSpace(string(v)) != cfnLintVersion {
		t.Logf("cfn-lint is %q, the project lints with %s", strings.TrimSpace(string(v)), cfnLintVersion)
	}
	tpls, _ := filepath.Glob(filepath.Join(assembly, "*.template.json"))
	if len(tpls) == 0 {
		t.Fatal("no template to lint")
	}
	args := append([]string{"--ignore-checks", strings.Join(explainedLintWarnings, ","), "--"}, tpls...)
	if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
		t.Errorf("cfn-lint found errors or unexplained warnings in the example app's templates: %v\n%s", err, out)
	}
}
