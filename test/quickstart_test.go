package test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// quickstartBlock is one fenced block of a quickstart page: its language,
// the file it is (the info string's file=PATH), and its text.
type quickstartBlock struct {
	lang, file, body string
}

// readQuickstart is the fenced blocks of a markdown page, in order.
func readQuickstart(t *testing.T, path string) []quickstartBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []quickstartBlock
	var cur *quickstartBlock
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			fields := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &quickstartBlock{}
			if len(fields) > 0 {
				cur.lang = fields[0]
			}
			for _, f := range fields[1:] {
				if v, ok := strings.CutPrefix(f, "file="); ok {
					cur.file = v
				}
			}
			body.Reset()
		case cur != nil && line == "```":
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s: a fenced block is not closed", filepath.Base(path))
	}
	return blocks
}

// quickstartArtifacts puts in dir what each page says the team has: the
// release's artifact for its language, under the name the page uses.
var quickstartArtifacts = map[string]func(t *testing.T, d, dir string){
	"typescript.md": func(t *testing.T, d, dir string) {
		stage(t, one(t, filepath.Join(d, "js", "*.jsii.tgz")), dir)
		stage(t, one(t, filepath.Join(d, "js", "erasure-channel-check-linux-x64-*.tgz")), dir)
	},
	"python.md": func(t *testing.T, d, dir string) {
		stage(t, one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.whl")), dir)
		stage(t, one(t, filepath.Join(d, "python", "erasure_channel_check-*-manylinux2014_x86_64*.whl")), dir)
	},
	"java.md": func(t *testing.T, d, dir string) {
		stageTree(t, filepath.Join(d, "java"), filepath.Join(dir, "release", "maven"))
		forgetMavenRelease(t)
	},
	"go.md": func(t *testing.T, d, dir string) {
		stageTree(t, filepath.Join(d, "go", "erasurechannelconstructs"), filepath.Join(dir, "release", "erasurechannelconstructs"))
		stage(t, one(t, filepath.Join(d, "js", "*.jsii.tgz")), dir)
		stage(t, one(t, filepath.Join(d, "js", "erasure-channel-check-linux-x64-*.tgz")), dir)
	},
}

// quickstartUntested are the pages no machine here can run, each saying so.
var quickstartUntested = map[string]bool{"csharp.md": true}

func stage(t *testing.T, file, dir string) {
	t.Helper()
	if out, err := exec.Command("cp", file, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v\n%s", file, err, out)
	}
}

func stageTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, src, dst)
}

// TestQuickstartsRunVerbatim: every quickstart page under docs/quickstart,
// run as a store team reads it, in an empty folder holding only the
// release's artifact: each file block written where its file= says, each sh
// block run in order with bash (set -euo pipefail), each of which must pass;
// the last one prints the check's verdict over the app's one store. A page
// that is neither run here nor marked untested fails.
// quotedSummary is the check's summary line as a quickstart page quotes it.
var quotedSummary = regexp.MustCompile("`1 stores subscribed to the erasure topic[^`]*`")

func TestQuickstartsRunVerbatim(t *testing.T) {
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	d := dist(t, root)
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "quickstart", "*.md"))
	for _, page := range pages {
		name := filepath.Base(page)
		if name == "README.md" || name == "handler.md" {
			continue
		}
		blocks := readQuickstart(t, page)
		if quickstartUntested[name] {
			b, _ := os.ReadFile(page)
			if !strings.Contains(string(b), "**This page is not tested.**") {
				t.Errorf("%s is not run here and does not say so", name)
			}
			continue
		}
		artifacts, ok := quickstartArtifacts[name]
		if !ok {
			t.Errorf("%s: no test stages its artifacts: add it to quickstartArtifacts", name)
			continue
		}
		for _, line := range nodeLines(t, root, node) {
			t.Run(strings.TrimSuffix(name, ".md")+"/"+line.name, func(t *testing.T) {
				// The Java page's two runs share ~/.m2, whose copy of the
				// release each forgets first: one runs alone, before the rest.
				if name != "java.md" || line.name != "node24" {
					t.Parallel()
				}
				dir := t.TempDir()
				artifacts(t, d, dir)
				// The Node the page asks for, first on the PATH and jsii's; no
				// setting that hides jsii's banners, which must not appear.
				env := append(withoutEnv(os.Environ(), "JSII_NODE", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION"),
					"PATH="+filepath.Dir(line.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
					"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured")
				var last string
				steps := 0
				for _, b := range blocks {
					switch {
					case b.file != "":
						path := filepath.Join(dir, filepath.FromSlash(b.file))
						if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
							t.Fatal(err)
						}
					case b.lang == "sh":
						cmd := exec.Command("bash", "-euo", "pipefail", "-c", b.body)
						cmd.Dir, cmd.Env = dir, env
						out, err := cmd.CombinedOutput()
						if err != nil {
							t.Fatalf("%s: the step\n%s failed: %v\n%s", name, b.body, err, tail(out))
						}
						last = string(out)
						steps++
						if banner := nodeBanner.FindString(last); banner != "" {
							t.Errorf("%s on %s: a step printed a Node banner (%q):\n%s", name, line.name, banner, tail(out))
						}
					}
				}
				if steps == 0 {
					t.Fatalf("%s has no sh step", name)
				}
				if !strings.Contains(last, "1 stores subscribed to the erasure topic, 0 problems") {
					t.Errorf("%s: the last step did not print the check's pass:\n%s", name, tail([]byte(last)))
				}
				// The page quotes the check's summary line: it is the one printed.
				text, _ := os.ReadFile(page)
				if quoted := quotedSummary.FindString(string(text)); quoted == "" || !strings.Contains(last, strings.Trim(quoted, "`")) {
					t.Errorf("%s quotes the summary %q; the check printed:\n%s", name, quoted, tail([]byte(last)))
				}
				if _, err := os.Stat(filepath.Join(dir, "cdk.out", "OrdersStore.template.json")); err != nil {
					t.Errorf("%s: the synth wrote no OrdersStore template", name)
				}
			})
		}
	}
}

// nodeLine is one supported Node line a quickstart runs on.
type nodeLine struct{ name, node string }

// nodeLines are CDK's supported Node lines the quickstarts run on: the
// pinned Node 22 of tools/ and Node 24 of tools/node24 (make tools).
func nodeLines(t *testing.T, root, node22 string) []nodeLine {
	t.Helper()
	node24 := pinnednode.Node24Path(root)
	if _, err := os.Stat(node24); err != nil {
		t.Fatal("Node 24 is not installed in tools/node24: make tools")
	}
	return []nodeLine{{"node22", node22}, {"node24", node24}}
}

// nodeBanner is any of the banners jsii and the CDK CLI print on a Node
// line they do not support.
var nodeBanner = regexp.MustCompile(`(?i)end-of-life|not been tested with|unsupported node|no longer be supported|bad option`)

// withoutEnv is env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var kept []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			kept = append(kept, kv)
		}
	}
	return kept
}
