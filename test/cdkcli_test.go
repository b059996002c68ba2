package test

import (
	"os"
	"os/exec"
	"path/filepath"
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
}
