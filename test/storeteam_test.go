package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
	"github.com/linn-cloud/erasure-channel/internal/emulator"
	"github.com/linn-cloud/erasure-channel/internal/storeteam"
)

// storeTeamContext is the store-team app's cdk.json context.
func storeTeamContext(t testing.TB) map[string]any {
	t.Helper()
	return cdkJSONContext(t, "../internal/storeteam/cdk.json")
}

// cdkJSONContext is the context of the cdk.json at path.
func cdkJSONContext(t testing.TB, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Context
}

// reportedLine is one violation as a user reads it: its description and the
// construct path CDK names.
type reportedLine struct {
	severity, description, constructPath string
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// parseCLIReport reads the violation blocks `cdk synth` printed: a
// "SEVERITY description (plugin)" line, then the construct path line.
func parseCLIReport(out string) []reportedLine {
	lines := strings.Split(ansi.ReplaceAllString(out, ""), "\n")
	var got []reportedLine
	for i, l := range lines {
		sev, desc, ok := strings.Cut(l, " ")
		if !ok || (sev != "FATAL" && sev != "ERROR") || i+1 >= len(lines) {
			continue
		}
		info := strings.TrimSpace(lines[i+1])
		path, _, _ := strings.Cut(info, " ")
		got = append(got, reportedLine{sev, desc, path})
	}
	return got
}

// assertCases checks that every case's stack got exactly its lines, and that
// no line is about anything else.
func assertCases(t *testing.T, got []reportedLine) {
	t.Helper()
	cases := storeteam.Cases()
	byStack := map[string][]string{}
	for _, g := range got {
		stack, _, _ := strings.Cut(g.constructPath, "/")
		byStack[stack] = append(byStack[stack], g.description)
	}
	for i, c := range cases {
		about := byStack[c.Stack(i)]
		delete(byStack, c.Stack(i))
		t.Run(c.Name, func(t *testing.T) {
			joined := strings.Join(about, "\n")
			for _, w := range c.Want {
				if !strings.Contains(joined, w) {
					t.Errorf("no line with %q:\n%s", w, joined)
				}
			}
			if len(about) != len(c.Want) {
				t.Errorf("%d lines, want %d:\n%s", len(about), len(c.Want), joined)
			}
		})
	}
	for stack, lines := range byStack {
		t.Errorf("lines about %q, which is no case's stack:\n%s", stack, strings.Join(lines, "\n"))
	}
}

// TestStoreTeamAppRefusedByCDKCLI: the README's store-team app, with the
// one-line check, through the pinned CDK CLI: synth exits non-zero and
// prints every refusal line with the construct it is about; clean stores
// (hand-rolled, bitmap, bitmap with a bounded backup) print none.
func TestStoreTeamAppRefusedByCDKCLI(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "storeteam")
	if b, err := exec.Command("go", "build", "-o", bin, "../internal/storeteam/app").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	node := emulator.NodePath(root)
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "tools", "node_modules", ".bin", "cdk"), "synth", "--app", bin, "--quiet", "--output", out)
	cmd.Dir = filepath.Join(root, "internal", "storeteam")
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JSII_NODE="+node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1",
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured")
	printed, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatalf("cdk synth of broken stores: want a non-zero exit, got %v\n%s", err, printed)
	}
	got := parseCLIReport(string(printed))
	if len(got) == 0 {
		t.Fatalf("cdk synth failed without a single violation line:\n%s", printed)
	}
	assertCheckCLIAgrees(t, out, got)
	for _, g := range got {
		if !strings.HasSuffix(g.description, "(erasure-channel)") {
			continue
		}
		// FATAL for a rule that may not be acknowledged (CDK offers no
		// acknowledgement of it), ERROR for one that may.
		id, _, _ := strings.Cut(g.description, " ")
		want := "FATAL"
		if r := erasurecheck.RuleByID(id); r != nil && r.Acknowledgeable && r.Severity != erasurecheck.SeverityWarning {
			want = "ERROR"
		}
		if g.severity != want {
			t.Errorf("%s line, want %s: %s", g.severity, want, g.description)
		}
	}
	assertCases(t, got)
}

// TestStoreTeamAppRefusedInProcess: the same app in a Go test: app.Synth
// fails with every line in its error, and the test kit reports exactly the
// lines CDK reported.
func TestStoreTeamAppRefusedInProcess(t *testing.T) {
	res := erasuretest.Collect(t, erasuretest.Options{TopicArns: []string{storeteam.TopicArn}, TopicKeyArns: []string{storeteam.TopicKeyArn}, Context: storeTeamContext(t)},
		func(app awscdk.App) { storeteam.Build(app, storeteam.Cases()) })
	if res.Err == "" {
		t.Fatal("app.Synth returned normally over broken stores")
	}
	var got []reportedLine
	for _, l := range res.Lines {
		// "[construct path (logical id)] description"
		inner, desc, ok := strings.Cut(strings.TrimPrefix(l, "["), "] ")
		if !ok {
			t.Errorf("a line without a construct: %s", l)
			continue
		}
		path, _, _ := strings.Cut(inner, " ")
		got = append(got, reportedLine{"", desc, path})
		if !strings.Contains(res.Err, desc) {
			t.Errorf("app.Synth's error does not carry the line %q", desc)
		}
	}
	assertCases(t, got)
}

// assertCheckCLIAgrees: erasurectl check over the cloud assembly the CDK CLI
// wrote prints exactly the lines the plugin failed the synth with: one rule
// set, two ways in.
func assertCheckCLIAgrees(t *testing.T, assembly string, reported []reportedLine) {
	t.Helper()
	bin := erasurectlBinary(t)
	cmd := exec.Command(bin, "check", "--format", "json", "--topic-arn", storeteam.TopicArn, "--topic-key-arn", storeteam.TopicKeyArn, assembly)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("erasurectl check over the broken stores: want exit 1, got %v\n%s", err, out)
	}
	var want []string
	for _, r := range reported {
		if d, ok := strings.CutSuffix(r.description, " (erasure-channel)"); ok {
			want = append(want, d)
		}
	}
	// The plugin's description is the rule's id and the check's line.
	var res struct {
		Findings []struct{ Rule, Message string }
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+f.Message)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("erasurectl check and the plugin disagree:\ncheck:\n%s\nplugin:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestABucketUnderAnUnknownTopicKeyIsUnresolved: a bitmap bucket under a
// key of another app, in an app that imports the channel by ARN without its
// key, cannot be told apart from one under the topic's key: the check says
// so (UnresolvedToken), never passes it. Given the key
// (TestStoreTeamAppRefusedInProcess, bucket-under-imported-topic-key), it
// is refused.
func TestABucketUnderAnUnknownTopicKeyIsUnresolved(t *testing.T) {
	res := erasuretest.Collect(t, erasuretest.Options{TopicArns: []string{storeteam.TopicArn}, Context: storeTeamContext(t)},
		func(app awscdk.App) {
			storeteam.Build(app, []storeteam.Case{{Name: "bucket-under-an-unknown-key", Bucket: &storeteam.BucketShape{TopicKey: true}}})
		})
	found := false
	for _, l := range res.Lines {
		found = found || strings.Contains(l, ".bitmapBucket.encryptionKey: UnresolvedToken")
	}
	if !found {
		t.Fatalf("no UnresolvedToken line for the bucket's key:\n%s", strings.Join(res.Lines, "\n"))
	}
}
