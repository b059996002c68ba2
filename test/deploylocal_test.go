package test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/internal/emulator"
)

var deployLocal = flag.Bool("deploylocal", false, "run the offline deploy's failure cases (make deploy-local runs them; they need moto)")

// TestDeployLocalFails runs the deploy target, tools/deploy-local, on two
// broken versions of the example app's assembly, as synthesized by the pinned
// CLI: a template the engine rejects must fail the target with the engine's
// reason, and a deployed store that cannot answer (its ERASURE_QUEUE_URL names
// its dead-letter queue, so pass two never returns) must fail the smoke run,
// named.
func TestDeployLocalFails(t *testing.T) {
	if !*deployLocal {
		t.Skip("the offline deploy's failure cases run with -deploylocal (make deploy-local)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node := emulator.NodePath(root)
	env := append(os.Environ(),
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+filepath.Join(root, "tools", "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JSII_NODE="+node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1")
	base := filepath.Join(t.TempDir(), "cdk.out")
	synth := exec.Command("cdk", "synth", "--quiet", "--output", base)
	synth.Dir, synth.Env = root, env
	if b, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("cdk synth: %v\n%s", err, b)
	}

	cases := []struct {
		name   string
		break_ func(t *testing.T, assembly string)
		want   []string
	}{{
		name: "engine rejects a template",
		break_: func(t *testing.T, dir string) {
			editTemplate(t, filepath.Join(dir, "LedgerStore.template.json"), func(tpl map[string]any) {
				tpl["Resources"].(map[string]any)["NotAType"] = map[string]any{"Type": "AWS::Nope::Thing", "Properties": map[string]any{}}
			})
		},
		want: []string{"LedgerStore failed", "Unrecognized resource types: [AWS::Nope::Thing]", "cdk deploy (create) failed"},
	}, {
		name: "store that does not answer",
		break_: func(t *testing.T, dir string) {
			editTemplate(t, filepath.Join(dir, "SpaceStore.template.json"), func(tpl map[string]any) {
				res := tpl["Resources"].(map[string]any)
				var dlq string
				for id, r := range res {
					if r.(map[string]any)["Type"] == "AWS::SQS::Queue" && strings.Contains(id, "DeadLetter") {
						dlq = id
					}
				}
				for _, r := range res {
					r := r.(map[string]any)
					if r["Type"] != "AWS::Lambda::Function" {
						continue
					}
					vars := r["Properties"].(map[string]any)["Environment"].(map[string]any)["Variables"].(map[string]any)
					vars["ERASURE_QUEUE_URL"] = map[string]any{"Ref": dlq}
				}
				if dlq == "" {
					t.Fatal("no dead-letter queue in SpaceStore")
				}
			})
		},
		want: []string{"space: ERASURE_QUEUE_URL: not the queue its event source mapping reads", "no answer", "smoke (create): not every store answered"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cdk.out")
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			c.break_(t, dir)
			cmd := exec.Command(filepath.Join(root, "tools", "deploy-local"))
			cmd.Dir = root
			cmd.Env = append(env, "DEPLOY_LOCAL_APP="+dir, "SMOKE_TIMEOUT=20s", "DEPLOY_LOCAL_WORK="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("deploy-local passed a broken app:\n%s", out)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("deploy-local: %v (want exit 1: the deploy failed, not the environment)\n%s", err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("deploy-local's output does not say %q:\n%s", w, out)
				}
			}
		})
	}
}

func editTemplate(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tpl map[string]any
	if err := json.Unmarshal(b, &tpl); err != nil {
		t.Fatal(err)
	}
	edit(tpl)
	if b, err = json.Marshal(tpl); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
