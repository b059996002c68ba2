package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/internal/storeteam"
	"github.com/linn-cloud/erasure-channel/stacks/pinnednode"
)

// The release artifacts, tried as a store team outside this repository tries
// them: for each CDK language this machine runs, an empty folder gets the
// app (test/testdata/outside/<language>), the dist/ artifact and the
// registry's aws-cdk-lib and constructs, and nothing else of the repository;
// the pinned CDK CLI synthesizes it.

// outsideTopicArn is the channel the outside apps import.
const outsideTopicArn = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"

// outsideContext is the outside apps' cdk.json context.
var outsideContext = map[string]any{"@aws-cdk/aws-sns-subscriptions:restrictSqsDescryption": true}

// registryVersions are the aws-cdk-lib each language's registry serves here:
// the newest npm and the Go module proxy serve is 2.276.0, PyPI's 2.275.0,
// Maven Central's 2.263.0 (the package's peer range starts there).
const (
	npmCDK      = "aws-cdk-lib@2.276.0"
	npmCLI      = "aws-cdk@2.1148.1"
	npmConstrcs = "constructs@10.8.1"
)

// outsideLanguage is one language's way from an empty folder to a synth.
type outsideLanguage struct {
	name    string
	install func(t *testing.T, o *outside)
	// app is the folder of test/testdata/outside the app is copied from
	// (name when empty); node24 runs it on Node 24, CDK's other supported
	// line, instead of the pinned Node 22.
	app    string
	node24 bool
}

// outside is one language's app in its own folder.
type outside struct {
	root, node, dir, cli, asset string
	env                         []string
}

// forgetMavenRelease removes the package from the local Maven repository:
// Maven never fetches a release version again once it holds it, so a
// rebuilt artifact of an unchanged version would be read from the cache.
func forgetMavenRelease(t *testing.T) {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, artifact := range []string{"erasure-channel-constructs", "erasure-handler-kit"} {
		if err := os.RemoveAll(filepath.Join(home, ".m2", "repository", "com", "linn-cloud", artifact)); err != nil {
			t.Fatal(err)
		}
	}
}

// dist is the release artifacts' folder; make dist builds it.
func dist(t *testing.T, root string) string {
	t.Helper()
	d := filepath.Join(root, "dist")
	if _, err := os.Stat(filepath.Join(d, ".built")); err != nil {
		t.Fatal("the release artifacts are not built: make dist")
	}
	return d
}

// one is the single file matching pattern.
func one(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("want one file %s, found %v", pattern, m)
	}
	return m[0]
}

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-R", src+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v\n%s", src, err, out)
	}
}

// installTypeScript installs the npm artifact and the registry's CDK.
func installTypeScript(t *testing.T, o *outside) {
	tgz := one(t, filepath.Join(dist(t, o.root), "js", "*.jsii.tgz"))
	runIn(t, o.dir, "npm install", o.env, "npm", "install", "--save-exact", "--no-audit", "--no-fund", "--loglevel=error", tgz, npmCDK, npmConstrcs, npmCLI)
	o.cli = filepath.Join(o.dir, "node_modules", ".bin", "cdk")
}

var outsideLanguages = []outsideLanguage{
	{name: "typescript", install: installTypeScript},
	{name: "typescript-node24", install: installTypeScript, app: "typescript", node24: true},
	{name: "python", install: func(t *testing.T, o *outside) {
		whl := one(t, filepath.Join(dist(t, o.root), "python", "erasure_channel_constructs-*.whl"))
		runIn(t, o.dir, "python3 -m venv", o.env, "python3", "-m", "venv", ".venv")
		runIn(t, o.dir, "pip install", o.env, filepath.Join(".venv", "bin", "pip"), "install", "-q", "-r", "requirements.txt", whl)
	}},
	{name: "java", install: func(t *testing.T, o *outside) {
		repo := filepath.Join(o.dir, "release", "maven")
		if err := os.MkdirAll(repo, 0o755); err != nil {
			t.Fatal(err)
		}
		copyTree(t, filepath.Join(dist(t, o.root), "java"), repo)
		forgetMavenRelease(t)
		runIn(t, o.dir, "mvn compile", o.env, "mvn", "-q", "-B", "compile")
	}},
	{name: "go", install: func(t *testing.T, o *outside) {
		mod := filepath.Join(o.dir, "release", "erasurechannelconstructs")
		if err := os.MkdirAll(mod, 0o755); err != nil {
			t.Fatal(err)
		}
		copyTree(t, filepath.Join(dist(t, o.root), "go", "erasurechannelconstructs"), mod)
		runIn(t, o.dir, "go mod tidy", o.env, "go", "mod", "tidy")
		runIn(t, o.dir, "go build", o.env, "go", "build", "-o", os.DevNull, ".")
	}},
}

// synth runs the pinned CDK CLI in the app's folder with env added, writing
// to out; it returns the output and whether the synth passed.
func (o *outside) synth(t *testing.T, out string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(o.cli, "synth", "--quiet", "--no-version-reporting", "--output", out)
	cmd.Dir = o.dir
	cmd.Env = append(append(os.Environ(), o.env...), env...)
	b, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("cdk synth: %v", err)
	}
	return ansi.ReplaceAllString(string(b), ""), err == nil
}

// fatalLine is a failing violation of the check as CDK's report prints it
// (FATAL, or ERROR for a rule that may be acknowledged): the rule's id, then
// the check's line.
var fatalLine = regexp.MustCompile(`(?m)^(?:FATAL|ERROR) (EC\d{3} ErasureSubscriber\[[^\n]*) \(erasure-channel\)$`)

// hatchLines are the lines the escape hatches, the Aspects and the landing
// zone must get, by mode: each store's broken setting, named by its rule,
// property and type.
var hatchLines = map[string][]string{
	"hatches": {
		"EC202 ErasureSubscriber[store-001].visibilityTimeout: NotDerived",
		"EC114 ErasureSubscriber[store-002].deadLetterQueue.retentionPeriod: NotDerived",
		"EC206 ErasureSubscriber[store-003].batchSize: AboveCap",
		"EC305 ErasureSubscriber[store-004].eventSource: BreaksErasure",
		"EC203 ErasureSubscriber[store-005].maxReceiveCount: AboveCap",
	},
	"aspects": {
		"EC114 ErasureSubscriber[store-001].deadLetterQueue.retentionPeriod: NotDerived",
		"EC201 ErasureSubscriber[store-001].handlerTimeout: AboveCap",
		"EC202 ErasureSubscriber[store-001].visibilityTimeout: NotDerived",
		"EC208 ErasureSubscriber[store-001].retentionPeriod: NotDerived",
	},
	"landing-zone": {
		"EC323 ErasureSubscriber[store-001].responseQueue: UnresolvedToken",
		"EC323 ErasureSubscriber[store-001].lookupRole: UnresolvedToken",
	},
}

// TestOutsideInEveryLanguage: for TypeScript, Python, Java and Go (the
// generated binding), a store team's app in an empty folder on the release
// artifact alone, through the pinned CDK CLI:
//   - 1, 2 and 100 stores synthesize the templates of the same app built
//     with the Go construct (compare.mjs: every resource, property,
//     statement and output), and ErasureCheck passes them;
//   - the refusal spec's stores fail the synth with the Go construct's lines,
//     all at once;
//   - stores broken after construction (an override of the queue's
//     visibility timeout and of its redrive count, an escape hatch on the
//     DLQ's retention, the event source's batch size and a disabled event
//     source) and organisation-wide Aspects (14-day retention on every
//     queue, 900 s on every function) fail the synth through ErasureCheck,
//     each with its line.
//
// TypeScript runs twice: on the pinned Node 22 and on Node 24
// (typescript-node24), CDK's two supported lines.
//
// C# cannot run here (no .NET SDK, no NuGet): make dist generates its sources.
func TestOutsideInEveryLanguage(t *testing.T) {
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	dist(t, root)
	asset := t.TempDir()
	if err := os.WriteFile(filepath.Join(asset, "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sizes := []int{1, 2, 100}
	goOut := map[int]string{}
	for _, n := range sizes {
		goOut[n] = t.TempDir()
		if err := goStoreTeamApp(n, asset, goOut[n]); err != nil {
			t.Fatalf("the Go construct's app of %d stores: %v", n, err)
		}
	}
	specFile := filepath.Join(root, "test", "testdata", "subscriber-refusals.json")
	goErr := goSubscribers(t, readSubscriberSpec(t, specFile), t.TempDir())
	if goErr == nil {
		t.Fatal("the Go app's synth passed with every cap broken")
	}
	goLines := refusalLine.FindAllString(goErr.Error(), -1)
	slices.Sort(goLines)

	for _, lang := range outsideLanguages {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			langNode := node
			if lang.node24 {
				langNode = pinnednode.Node24Path(root)
			}
			o := &outside{root: root, node: langNode, dir: t.TempDir(), asset: asset,
				cli: filepath.Join(root, "tools", "node_modules", ".bin", "cdk")}
			o.env = []string{"PATH=" + filepath.Dir(langNode) + string(os.PathListSeparator) + os.Getenv("PATH"), "JSII_NODE=" + langNode,
				"HANDLER_ASSET=" + asset, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1",
				"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured"}
			app := lang.name
			if lang.app != "" {
				app = lang.app
			}
			copyTree(t, filepath.Join(root, "test", "testdata", "outside", app), o.dir)
			if lang.node24 {
				if v := runIn(t, o.dir, "node --version", o.env, "bash", "-c", "node --version"); !strings.HasPrefix(v, "v24.") {
					t.Fatalf("the app's node is %s, not Node 24", strings.TrimSpace(v))
				}
			}
			lang.install(t, o)

			for _, n := range sizes {
				out := filepath.Join(o.dir, fmt.Sprintf("out-%d", n))
				if text, ok := o.synth(t, out, fmt.Sprintf("STORES=%d", n)); !ok {
					t.Fatalf("%d stores: the synth failed:\n%s", n, tail([]byte(text)))
				}
				if b, err := exec.Command(node, filepath.Join(root, "tools", "bench", "compare.mjs"), goOut[n], out).CombinedOutput(); err != nil {
					t.Fatalf("%d stores: not the Go construct's templates:\n%s", n, b)
				} else {
					t.Logf("%d stores: %s", n, strings.TrimSpace(string(b)))
				}
			}

			text, ok := o.synth(t, filepath.Join(o.dir, "out-spec"), "SPEC="+specFile, "CONSTANTS="+filepath.Join(root, "schema", "erasure-channel-constants.json"))
			lines := refusalLine.FindAllString(text, -1)
			slices.Sort(lines)
			lines = slices.Compact(lines)
			if ok || !slices.Equal(lines, goLines) {
				t.Errorf("the refusal spec: passed %v; lines not the Go construct's:\n%s\n go:\n%s", ok, strings.Join(lines, "\n"), strings.Join(goLines, "\n"))
			}

			o.landingZone(t)
			if lang.name == "typescript" || lang.name == "python" {
				o.landingZoneCorpus(t)
			}
			for _, mode := range []string{"hatches", "aspects", "landing-zone"} {
				text, ok := o.synth(t, filepath.Join(o.dir, "out-"+mode), "BREAK="+mode)
				var got []string
				for _, m := range fatalLine.FindAllStringSubmatch(text, -1) {
					got = append(got, m[1])
				}
				if ok {
					t.Errorf("%s: the synth passed", mode)
				}
				for _, w := range hatchLines[mode] {
					if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, w+": ") }) {
						t.Errorf("%s: no line %q in:\n%s", mode, w, strings.Join(got, "\n"))
					}
				}
				if len(got) != len(hatchLines[mode]) {
					t.Errorf("%s: %d lines, want %d:\n%s", mode, len(got), len(hatchLines[mode]), strings.Join(got, "\n"))
				}
			}
		})
	}
}

// landingZone: a landing zone's Aspect puts a permissions boundary defined
// outside the app on every role. Without its document the synth fails with
// EC323 (hatchLines); acknowledged on the store with a reason it passes,
// and the check over its cloud assembly reports the finding as acknowledged
// with the reason; given the boundary's document (one that allows
// everything) it passes with no finding; an acknowledgement of a cap
// (EC202) is refused at once.
func (o *outside) landingZone(t *testing.T) {
	t.Helper()
	out := filepath.Join(o.dir, "out-acknowledged")
	if text, ok := o.synth(t, out, "BREAK=landing-zone", "ACK=EC323"); !ok {
		t.Errorf("landing zone, acknowledged: the synth failed:\n%s", tail([]byte(text)))
	} else {
		r := runCheckCommand(t, erasurectlBinary(t), "check", "--topic-arn", "arn:aws:sns:eu-west-1:111111111111:erasure-topic", out)
		if r.code != 0 || !strings.Contains(r.stdout, "acknowledged: ErasureSubscriber[store-001].responseQueue: UnresolvedToken") ||
			!strings.Contains(r.stdout, `reason: "the landing zone's boundary allows every action the handler needs"`) {
			t.Errorf("landing zone, acknowledged: erasurectl check exit %d, want 0 and the acknowledged line:\n%s", r.code, r.stdout)
		}
	}
	doc := filepath.Join(o.dir, "landing-zone-boundary.json")
	if err := os.WriteFile(doc, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if text, ok := o.synth(t, filepath.Join(o.dir, "out-boundary"), "BREAK=landing-zone", "BOUNDARY_FILE="+doc); !ok {
		t.Errorf("landing zone with the boundary's document: the synth failed:\n%s", tail([]byte(text)))
	}
	if text, ok := o.synth(t, filepath.Join(o.dir, "out-ack-cap"), "BREAK=landing-zone", "ACK=EC202"); ok || !strings.Contains(text, "the rule may not be acknowledged") {
		t.Errorf("an acknowledgement of a cap: want the synth refused, saying the rule may not be acknowledged; passed %v:\n%s", ok, tail([]byte(text)))
	}
}

// ruleLine is any violation of the check as CDK's report prints it, by its
// rule id: FATAL or ERROR for a failing one.
var ruleLine = regexp.MustCompile(`(?m)^(?:FATAL|ERROR) (EC\d{3}) [^\n]*\(erasure-channel\)$`)

// landingZoneCorpus synthesizes one store under each shape of the
// landing-zone corpus (testdata/landing-zone.json, the expectations decided
// from IAM's evaluation logic): a shape that breaks the store fails the
// synth with exactly its rules; one that only hardens it passes; one whose
// answer depends on what no template tells fails on EC326 alone, which the
// team may acknowledge.
func (o *outside) landingZoneCorpus(t *testing.T) {
	t.Helper()
	spec := filepath.Join(o.root, "test", "testdata", "landing-zone.json")
	var corpus struct {
		Cases []struct {
			Name      string          `json:"name"`
			Boundary  json.RawMessage `json:"boundary"`
			OrgID     string          `json:"organizationId"`
			Fail      []string        `json:"fail"`
			Undecided bool            `json:"undecided"`
		} `json:"cases"`
	}
	b, err := os.ReadFile(spec)
	if err != nil || json.Unmarshal(b, &corpus) != nil {
		t.Fatalf("the landing-zone corpus: %v", err)
	}
	for _, c := range corpus.Cases {
		env := []string{"LZ_SPEC=" + spec, "LZ_CASE=" + c.Name}
		if len(c.Boundary) > 0 {
			doc := filepath.Join(o.dir, "lz-"+c.Name+".json")
			if err := os.WriteFile(doc, c.Boundary, 0o600); err != nil {
				t.Fatal(err)
			}
			env = append(env, "BOUNDARY_FILE="+doc)
		}
		if c.OrgID != "" {
			env = append(env, "ORGANIZATION_ID="+c.OrgID)
		}
		text, ok := o.synth(t, filepath.Join(o.dir, "out-lz-"+c.Name), env...)
		var got []string
		for _, m := range ruleLine.FindAllStringSubmatch(text, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		got = slices.Compact(got)
		want := slices.Clone(c.Fail)
		if c.Undecided {
			want = append(want, "EC326")
		}
		slices.Sort(want)
		if ok != (len(want) == 0) || !slices.Equal(got, want) {
			t.Errorf("landing zone %s: passed %v with rules %v, want %v:\n%s", c.Name, ok, got, want, tail([]byte(text)))
		}
	}
}

// goStoreTeamApp synthesizes into outdir the outside apps' STORES=n app
// with the Go construct: n stacks of one store each, the channel imported
// by ARN.
func goStoreTeamApp(n int, asset, outdir string) error {
	inProcessJsii.Lock()
	defer inProcessJsii.Unlock()
	ctx := outsideContext
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(outdir), AnalyticsReporting: jsii.Bool(false)})
	env := &awscdk.Environment{Account: jsii.String("222222222222"), Region: jsii.String("eu-west-1")}
	for i := 1; i <= n; i++ {
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Store%03d", i)), &awscdk.StackProps{Env: env})
		erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
			Name:  fmt.Sprintf("store-%03d", i),
			Topic: awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(outsideTopicArn)),
			ResponseQueue: awssqs.Queue_FromQueueAttributes(stack, jsii.String("ErasureResponses"), &awssqs.QueueAttributes{
				QueueArn: jsii.String("arn:aws:sqs:eu-west-1:111111111111:erasure-responses"),
				KeyArn:   jsii.String("arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000")}),
			HandlerProps: &awslambda.FunctionProps{Runtime: awslambda.Runtime_PROVIDED_AL2023(), Architecture: awslambda.Architecture_ARM_64(),
				Handler: jsii.String("bootstrap"), Code: awslambda.Code_FromAsset(jsii.String(asset), nil)},
		})
	}
	return synth(app)
}

// erasureCheckJS is the erasure-check command of the npm artifact, as
// installed in the example app.
func erasureCheckJS(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(root, "constructs", "typescript", "example", "node_modules", "erasure-channel-constructs", "bin", "erasure-check.js")
	if _, err := os.Stat(bin); err != nil {
		t.Fatal("the npm artifact is not installed in constructs/typescript/example: make packages")
	}
	return bin
}

// checkRun is what one check command printed and how it exited.
type checkRun struct {
	stdout string
	code   int
}

func runCheckCommand(t *testing.T, args ...string) checkRun {
	t.Helper()
	return runCheckCommandEnv(t, nil, args...)
}

// runCheckCommandEnv is runCheckCommand with env added to the test's.
func runCheckCommandEnv(t *testing.T, env []string, args ...string) checkRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", filepath.Base(args[0]), err)
	}
	return checkRun{stdout.String(), code}
}

// storeTeamAssembly is the store-team app's cases (hand-rolled stores and
// bitmap buckets, internal/storeteam) synthesized without the check.
var storeTeamAssembly = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "storeteam-assembly")
	if err != nil {
		return "", err
	}
	inProcessJsii.Lock()
	defer inProcessJsii.Unlock()
	ctx := map[string]any{}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(dir)})
	storeteam.Build(app, storeteam.Cases())
	return dir, synth(app)
})

// TestPackageCheckEqualsErasurectl: the erasure-check command of the npm
// artifact (its native build for this platform, and the check compiled to
// WebAssembly, which runs where it has none) and erasurectl check print
// the same bytes and exit with the same code over the guard corpora: the
// hand-rolled stores and bitmap buckets of the store-team app, the YAML
// templates, in text, JSON and SARIF, and its usage errors.
func TestPackageCheckEqualsErasurectl(t *testing.T) {
	root, node, err := pinnednode.Find("..")
	if err != nil {
		t.Skip("the pinned Node is not installed: ", err)
	}
	js := erasureCheckJS(t, root)
	assembly, err := storeTeamAssembly()
	if err != nil {
		t.Fatal(err)
	}
	topics := []string{"--topic-arn", storeteam.TopicArn, "--topic-key-arn", storeteam.TopicKeyArn}
	yaml := func(name string) string { return filepath.Join(root, "constructs", "erasurecheck", "testdata", name) }
	cases := [][]string{
		append(slices.Clone(topics), assembly),
		append(slices.Clone(topics), "--format", "json", assembly),
		append(slices.Clone(topics), "--format", "sarif", assembly),
		append(slices.Clone(topics), "--access", assembly),
		append(slices.Clone(topics), "--quotas", assembly),
		{"--topic-arn", outsideTopicArn, yaml("store-clean.yaml")},
		{"--topic-arn", outsideTopicArn, yaml("store-broken.yaml")},
		{"--topic-arn", outsideTopicArn, "--format", "sarif", yaml("store-broken.yaml"), yaml("store-any-region.yaml")},
		{yaml("store-broken.yaml")},
		{"--allow-no-stores", yaml("store-broken.yaml")},
		{filepath.Join(t.TempDir(), "missing.yaml")},
	}
	broken := 0
	for _, args := range cases {
		want := runCheckCommand(t, append([]string{erasurectlBinary(t), "check"}, args...)...)
		// The package's native build for this platform, and its WebAssembly
		// module, which runs everywhere else.
		for _, engine := range []string{"native", "wasm"} {
			got := runCheckCommandEnv(t, []string{"ERASURE_CHECK_ENGINE=" + engine}, append([]string{node, js}, args...)...)
			if got != want {
				t.Errorf("%v: erasure-check (%s) exit %d, erasurectl check exit %d; outputs equal: %v\n--- erasure-check\n%s\n--- erasurectl\n%s",
					args, engine, got.code, want.code, got.stdout == want.stdout, tail([]byte(got.stdout)), tail([]byte(want.stdout)))
			}
		}
		if want.code == 1 {
			broken++
		}
	}
	if broken < 4 {
		t.Errorf("only %d cases found a problem: the corpora no longer exercise the check", broken)
	}
}
