package test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// quickstartBlock is one fenced block of a quickstart page: its language,
// the file it is (the info string's file=PATH), the file a team adds it to
// for an example that fails (append=PATH: not part of the page's run), the
// output it quotes (quote=refusal: the refusal of a prop past its cap;
// quote=finding: the check's finding after the append= block), and its text.
type quickstartBlock struct {
	lang, file, appendTo, quote, body string
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
				if v, ok := strings.CutPrefix(f, "append="); ok {
					cur.appendTo = v
				}
				if v, ok := strings.CutPrefix(f, "quote="); ok {
					cur.quote = v
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
		stage(t, one(t, filepath.Join(d, "js", "linn-cloud-erasure-check-linux-x64-*.tgz")), dir)
		stage(t, one(t, filepath.Join(d, "js", "linn-cloud-erasure-handler-kit-*.tgz")), dir)
	},
	"python.md": func(t *testing.T, d, dir string) {
		stage(t, one(t, filepath.Join(d, "python", "erasure_channel_constructs-*.whl")), dir)
		stage(t, one(t, filepath.Join(d, "python", "erasure_channel_check-*-manylinux2014_x86_64*.whl")), dir)
		stage(t, one(t, filepath.Join(d, "python", "erasure_channel_handler-*.whl")), dir)
	},
	"java.md": func(t *testing.T, d, dir string) {
		stageTree(t, filepath.Join(d, "java"), filepath.Join(dir, "release", "maven"))
		forgetMavenRelease(t)
	},
	"go.md": func(t *testing.T, d, dir string) {
		stageTree(t, filepath.Join(d, "go", "erasurechannelconstructs"), filepath.Join(dir, "release", "erasurechannelconstructs"))
		stage(t, one(t, filepath.Join(d, "js", "*.jsii.tgz")), dir)
		stage(t, one(t, filepath.Join(d, "js", "linn-cloud-erasure-check-linux-x64-*.tgz")), dir)
		stage(t, one(t, filepath.Join(d, "js", "linn-cloud-erasure-handler-kit-*.tgz")), dir)
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
	refusals := &refusalOutputs{lines: map[string]int{}}
	t.Cleanup(func() { refusals.compare(t) })
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
				if line.name == "node22" {
					refusal := quickstartRefusal(t, dir, env, blocks)
					refusals.record(t, name, refusal)
					quoted := map[string]string{"refusal": refusal}
					if finding, ok := quickstartFinding(t, dir, env, blocks); ok {
						quoted["finding"] = finding
					}
					checkQuotes(t, name, blocks, quoted)
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

// brokenTimeout is the handler timeout each quickstart app sets, in its
// language: the refusal run sets it past its cap.
var brokenTimeout = regexp.MustCompile(`(?i)(seconds\((?:jsii\.Number\()?)30\)`)

// quickstartRefusal runs a page's synth step again on its app with the
// handler's timeout past its cap (120 s), in dir where the page already
// ran, and returns what the team sees: the synth's whole output.
func quickstartRefusal(t *testing.T, dir string, env []string, blocks []quickstartBlock) string {
	t.Helper()
	broken := false
	for _, b := range blocks {
		if b.file != "" && brokenTimeout.MatchString(b.body) {
			path := filepath.Join(dir, filepath.FromSlash(b.file))
			if err := os.WriteFile(path, []byte(brokenTimeout.ReplaceAllString(b.body, "${1}120)")), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, []byte(b.body), 0o644) // the next run starts from the page's app
			broken = true
		}
	}
	if !broken {
		t.Fatal("no file block of the page sets a handler timeout of 30 s")
	}
	return runSynthStep(t, dir, env, blocks, "the handler's timeout past its cap")
}

// runSynthStep runs the page's synth command in dir, which must fail
// (because of what), and returns its output without colours.
func runSynthStep(t *testing.T, dir string, env []string, blocks []quickstartBlock, because string) string {
	t.Helper()
	var synth string
	for _, b := range blocks {
		for _, l := range strings.Split(b.body, "\n") {
			if b.lang == "sh" && strings.Contains(l, " synth ") {
				synth = l
			}
		}
	}
	if synth == "" {
		t.Fatal("the page has no synth step")
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", synth)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the synth passed with %s:\n%s", because, tail(out))
	}
	return strings.TrimRight(ansi.ReplaceAllString(string(out), ""), "\n")
}

// refusalOutputs are the quickstarts' refusal outputs, by page.
type refusalOutputs struct {
	mu    sync.Mutex
	lines map[string]int
	text  map[string]string
}

// theRefusal is the refusal every quickstart's broken app must print: the
// rule, the store's setting, the value and the cap, then its fix.
var theRefusal = regexp.MustCompile(`\[OrdersStore/ErasureSubscriber\] EC201 ErasureSubscriber\[orders\]\.handlerTimeout: AboveCap: 120 is above the cap of 60[^\n]*\n\s*Fix: Set handlerTimeout to at most 60 s`)

// record checks one page's refusal: the block printed exactly once, naming
// the construct's path, the rule, the line and the fix; and keeps its
// length.
func (r *refusalOutputs) record(t *testing.T, page, out string) {
	t.Helper()
	if n := len(theRefusal.FindAllString(out, -1)); n != 1 {
		t.Errorf("%s: the refusal is printed %d times, want once:\n%s", page, n, out)
	}
	if n := strings.Count(out, "EC201 ErasureSubscriber[orders]"); n != 1 {
		t.Errorf("%s: the refusal's line appears %d times, want once:\n%s", page, n, out)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.text == nil {
		r.text = map[string]string{}
	}
	r.lines[page], r.text[page] = strings.Count(out, "\n")+1, out
}

// maxRefusalExtra is how many lines more than the TypeScript page's (CDK's
// own rendering of the error, which every other language is measured
// against) a quickstart's refusal may take in another language.
const maxRefusalExtra = 3

// compare holds every language's refusal to the TypeScript page's length
// (CDK's own rendering of the error) plus maxRefusalExtra, and logs each.
func (r *refusalOutputs) compare(t *testing.T) {
	ts, ok := r.lines["typescript.md"]
	if !ok {
		return
	}
	for page, n := range r.lines {
		t.Logf("%s: the refusal takes %d lines (TypeScript %d)", page, n, ts)
		if n > ts+maxRefusalExtra {
			t.Errorf("%s: the refusal takes %d lines, TypeScript's %d: a trace is in the way:\n%s", page, n, ts, r.text[page])
		}
	}
}

// quickstartFinding runs a page's synth step on its app with the page's
// append= block added to its file (the example of a store the check
// refuses), in dir where the page already ran; ok is false when the page has
// none.
func quickstartFinding(t *testing.T, dir string, env []string, blocks []quickstartBlock) (string, bool) {
	t.Helper()
	for _, add := range blocks {
		if add.appendTo == "" {
			continue
		}
		for _, b := range blocks {
			if b.file == add.appendTo {
				path := filepath.Join(dir, filepath.FromSlash(b.file))
				if err := os.WriteFile(path, []byte(b.body+add.body), 0o644); err != nil {
					t.Fatal(err)
				}
				return runSynthStep(t, dir, env, blocks, "the page's failing example"), true
			}
		}
		t.Fatalf("append=%s names no file block of the page", add.appendTo)
	}
	return "", false
}

// checkQuotes holds every quote= block of a page to the output it quotes:
// its lines, trimmed, are consecutive lines of that output.
func checkQuotes(t *testing.T, page string, blocks []quickstartBlock, outputs map[string]string) {
	t.Helper()
	for _, b := range blocks {
		if b.quote == "" {
			continue
		}
		out, ok := outputs[b.quote]
		if !ok {
			t.Errorf("%s quotes %q, which no run of the test prints", page, b.quote)
			continue
		}
		if !containsLines(out, b.body) {
			t.Errorf("%s quotes its %s as\n%s\nbut the synth printed\n%s", page, b.quote, b.body, out)
		}
	}
}

// containsLines says whether quote's non-empty lines, trimmed, are
// consecutive trimmed lines of out.
func containsLines(out, quote string) bool {
	var want []string
	for _, l := range strings.Split(quote, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			want = append(want, l)
		}
	}
	got := strings.Split(out, "\n")
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	for i := 0; i+len(want) <= len(got); i++ {
		if slices.Equal(got[i:i+len(want)], want) {
			return len(want) > 0
		}
	}
	return false
}
