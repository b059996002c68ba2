package erasure

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"
)

// TestApplierTarballIsStable: the tarball is the same bytes every time (its
// digest keys jsii's package cache), holds the package's four files, and
// its package.json and assembly name what applier.go loads and calls.
func TestApplierTarballIsStable(t *testing.T) {
	tarball := applierTarball()
	if !bytes.Equal(tarball, applierTarball()) {
		t.Fatal("two builds of the applier tarball differ")
	}
	gz, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name] = body
	}
	if len(files) != len(applierFiles) {
		t.Errorf("the tarball holds %d files, want %d", len(files), len(applierFiles))
	}
	var pkg struct{ Name, Version, Main string }
	var asm struct {
		Name, Version string
		Types         map[string]struct {
			Methods []struct {
				Name   string
				Static bool
			}
		}
	}
	if err := json.Unmarshal(files["package/package.json"], &pkg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(files["package/.jsii"], &asm); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != applierPackage || pkg.Version != applierVersion || pkg.Main != "index.js" {
		t.Errorf("package.json is %s@%s (main %s), applier.go loads %s@%s", pkg.Name, pkg.Version, pkg.Main, applierPackage, applierVersion)
	}
	if asm.Name != applierPackage || asm.Version != applierVersion {
		t.Errorf("the assembly is %s@%s", asm.Name, asm.Version)
	}
	if m := asm.Types[applierFQN].Methods; len(m) != 1 || m[0].Name != "apply" || !m[0].Static {
		t.Errorf("the assembly's %s has methods %+v; applier.go calls the static apply", applierFQN, m)
	}
}

// node is the Node the tests run tools with: the build's pinned one
// (JSII_NODE, which make exports) or the PATH's. Without one, or without
// the TypeScript package's pinned devDependencies, the test fails under CI
// and is skipped elsewhere.
func node(t *testing.T) (nodeBin, modules string) {
	t.Helper()
	modules, _ = filepath.Abs(filepath.Join("..", "typescript", "node_modules"))
	nodeBin = os.Getenv("JSII_NODE")
	if nodeBin == "" {
		nodeBin, _ = exec.LookPath("node")
	}
	_, err := os.Stat(filepath.Join(modules, "jsii"))
	if nodeBin == "" || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no Node or no constructs/typescript/node_modules: make tools installs them")
		}
		t.Skip("no Node or no constructs/typescript/node_modules")
	}
	return nodeBin, modules
}

// TestApplierIsTheJsiiCompilersOutput: the committed .jsii and index.js
// are what the jsii compiler makes of index.ts now (make applier).
func TestApplierIsTheJsiiCompilersOutput(t *testing.T) {
	nodeBin, _ := node(t)
	out := t.TempDir()
	cmd := exec.Command(nodeBin, filepath.Join("applier", "build-assembly.mjs"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jsii: %v\n%s", err, b)
	}
	for _, f := range []string{".jsii", "index.js"} {
		want, _ := os.ReadFile(filepath.Join(out, f))
		got, _ := os.ReadFile(filepath.Join("applier", f))
		if !bytes.Equal(got, want) {
			t.Errorf("applier/%s is not the jsii compiler's output of index.ts: run make applier", f)
		}
	}
}

// TestApplierTypeChecks: tsc --checkJs --strict accepts the applier against
// aws-cdk-lib's types and the design's, and refuses it once a CDK prop is
// misspelt or the design's Go types rename a field it reads: the check
// bites.
func TestApplierTypeChecks(t *testing.T) {
	nodeBin, modules := node(t)
	tsc := func(dir string) (string, error) {
		b, err := exec.Command(nodeBin, filepath.Join(modules, "typescript", "bin", "tsc"), "-p", dir).CombinedOutput()
		return string(b), err
	}
	if out, err := tsc("applier"); err != nil {
		t.Fatalf("tsc refuses the applier:\n%s", out)
	}
	apply, _ := os.ReadFile(filepath.Join("applier", "apply.js"))
	designTS, _ := os.ReadFile(filepath.Join("applier", "design.ts"))
	config, _ := os.ReadFile(filepath.Join("applier", "tsconfig.json"))
	config = bytes.ReplaceAll(config, []byte("../../typescript/node_modules"), []byte(modules))
	for _, tc := range []struct{ name, file, from, to, want string }{
		{"a misspelt CDK prop", "apply.js", "enableKeyRotation: true", "enableKeyRotaton: true", "enableKeyRotaton"},
		{"a renamed design field", "design.ts", "readonly batchSize: number;", "readonly recordsPerBatch: number;", "batchSize"},
		{"a design of another version", "design.ts", "export type DesignVersion = 1;", "export type DesignVersion = 2;", "not assignable to type '2'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string][]byte{"apply.js": apply, "design.ts": designTS, "tsconfig.json": config}
			if !bytes.Contains(files[tc.file], []byte(tc.from)) {
				t.Fatalf("%s holds no %q", tc.file, tc.from)
			}
			files[tc.file] = bytes.Replace(files[tc.file], []byte(tc.from), []byte(tc.to), 1)
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := tsc(dir)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Errorf("tsc passed or said nothing of %s:\n%s", tc.want, out)
			}
		})
	}
}

// refusal is what applying d with objects panics with, "" for none.
func refusal(d design.Design, objects map[design.Name]any) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	applyDesign(d, objects)
	return ""
}

// TestApplierRefusesWhatItCannotBuild: through the jsii kernel, a design
// of another version, a name nothing holds, an object of the wrong kind, a
// lock statement for a named principal, a metadata entry of two values and
// a short suppression reason each fail the call with an error naming the
// fault, and nothing is applied silently.
func TestApplierRefusesWhatItCannotBuild(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), nil)
	queue := awssqs.NewQueue(stack, jsii.String("Q"), nil)
	topic := awssns.NewTopic(stack, jsii.String("T"), nil)
	held := map[design.Name]any{"stack": stack, "queue": queue, "topic": topic}
	text := "text"
	flag := true
	withEdit := func(edit func(*design.Design)) design.Design {
		d := design.NewDesign()
		edit(&d)
		return d
	}
	for _, tc := range []struct {
		name string
		d    design.Design
		want string
	}{
		{"another version", withEdit(func(d *design.Design) { d.Version = design.DesignVersion + 1 }), "this applier reads version"},
		{"a name nothing holds", withEdit(func(d *design.Design) { d.Keys = []design.Key{{Scope: "nowhere", ID: "K", As: "k"}} }), `"nowhere" is not a construct`},
		{"a topic where a queue goes", withEdit(func(d *design.Design) { d.Reads = &design.Reads{Queues: []design.Name{"topic"}} }), `"topic" is not a queue`},
		{"a named principal in a lock", withEdit(func(d *design.Design) {
			d.Locks = []design.Lock{{Resource: "queue", Statements: []design.Statement{{Effect: design.Deny, Principal: &design.Principal{AWS: design.One("arn:aws:iam::1:root")}, Action: design.One("sqs:*").Ref()}}}}
		}), `for every principal ("*")`},
		{"a metadata entry of two values", withEdit(func(d *design.Design) {
			d.Locks = []design.Lock{{Resource: "queue", Metadata: []design.MetadataEntry{{Key: "k", Text: &text, Flag: &flag}}}}
		}), "holds 2 values, not one"},
		{"a short reason", withEdit(func(d *design.Design) {
			d.Suppressions = []design.Suppression{design.NewSuppression(map[string]string{"AwsSolutions-SQS3": "no"}, "queue")}
		}), "needs a reason of 10 characters or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := refusal(tc.d, held); !strings.Contains(msg, tc.want) {
				t.Errorf("applying the design: %q, want an error containing %q", firstLine(msg), tc.want)
			}
		})
	}
}

// TestApplierReturnsWhatItMade: what a design makes comes back by name as
// its typed proxy, made under the scope the design names, and the answer
// holds the tokens its reads asked for.
func TestApplierReturnsWhatItMade(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("eu-west-1")}})
	d := design.NewDesign()
	d.Scope = &design.Scope{Under: design.NameScope, ID: "Store", As: design.NameThis}
	d.Keys = []design.Key{{Scope: design.NameThis, ID: "Key", Description: "k", As: design.NameKey}}
	d.QueuePairs = []design.QueuePair{{Scope: design.NameThis, Key: design.NameKey, RetentionSeconds: 60, MaxReceiveCount: 3,
		QueueAs: design.NameQueue, DeadLetterAs: design.NameDeadLetterQueue}}
	d.Reads = &design.Reads{Stack: design.NameThis, Queues: []design.Name{design.NameQueue}}
	made, answer := applyDesign(d, map[design.Name]any{design.NameScope: stack})
	scope, ok := made[design.NameThis].(constructs.Construct)
	if !ok {
		t.Fatalf("the scope came back as %T", made[design.NameThis])
	}
	if got := *scope.Node().Path(); got != "S/Store" {
		t.Errorf("the scope's path is %q, want S/Store", got)
	}
	if answer.Account != "111111111111" || answer.Region != "eu-west-1" {
		t.Errorf("the stack's account and region: %q %q", answer.Account, answer.Region)
	}
	queue, ok := made[design.NameQueue].(awssqs.Queue)
	if !ok {
		t.Fatalf("the queue came back as %T", made[design.NameQueue])
	}
	if _, ok := made[design.NameDeadLetterQueue].(awssqs.Queue); !ok {
		t.Fatalf("the dead-letter queue came back as %T", made[design.NameDeadLetterQueue])
	}
	if got := answer.Queues[design.NameQueue].Arn; !isToken(&got) || got != *queue.QueueArn() {
		t.Errorf("read queueArn %q, the queue's own %q", got, *queue.QueueArn())
	}
	if got := *queue.Node().Path(); got != "S/Store/Queue" {
		t.Errorf("the queue's path is %q, want S/Store/Queue: made under the scope", got)
	}
	if dlq := queue.DeadLetterQueue(); dlq == nil || *dlq.MaxReceiveCount != 3 {
		t.Errorf("the queue's dead-letter queue is %v", dlq)
	}
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// cdkNagMetadata is the cdk_nag metadata of each resource of stack S of app.
func cdkNagMetadata(t *testing.T, app awscdk.App) map[string]any {
	t.Helper()
	tpl, _ := app.Synth(nil).GetStackByName(jsii.String("S")).Template().(map[string]interface{})
	resources, _ := tpl["Resources"].(map[string]interface{})
	out := map[string]any{}
	for id, r := range resources {
		meta, _ := r.(map[string]interface{})["Metadata"].(map[string]interface{})
		if m, ok := meta["cdk_nag"]; ok {
			out[id] = m
		}
	}
	return out
}

// TestSuppressionsOnlyWhereCdkNagMayRun synthesizes a queue suppressed by
// each of the two writers (the applier of a design, for the subscriber;
// cdk-nag's own NagSuppressions, for the constructs built once per app), in
// apps whose context says cdk-nag runs, does not, or says nothing
// (NagContextKey), and reads the template: suppressions are written unless
// the context turns cdk-nag off.
func TestSuppressionsOnlyWhereCdkNagMayRun(t *testing.T) {
	for _, tc := range []struct {
		context any // nil: the key is absent
		want    bool
	}{
		{nil, true}, {true, true}, {"true", true}, {"yes", true},
		{false, false}, {"false", false}, {"FALSE", false}, {"0", false}, {0, false},
	} {
		props := &awscdk.AppProps{Outdir: jsii.String(t.TempDir())}
		if tc.context != nil {
			props.Context = &map[string]interface{}{NagContextKey: tc.context}
		}
		app := awscdk.NewApp(props)
		stack := awscdk.NewStack(app, jsii.String("S"), nil)
		reasons := map[string]string{"Serverless-SQSRedrivePolicy": design.ReasonDLQRedrive}
		suppress(reasons, awssqs.NewQueue(stack, jsii.String("Direct"), nil))
		d := design.NewDesign()
		d.Suppressions = []design.Suppression{design.NewSuppression(reasons, "q")}
		applyDesign(d, map[design.Name]any{"q": awssqs.NewQueue(stack, jsii.String("Designed"), nil)})
		meta := cdkNagMetadata(t, app)
		for _, writer := range []string{"Direct", "Designed"} {
			written := false
			for id := range meta {
				written = written || strings.HasPrefix(id, writer)
			}
			if written != tc.want {
				t.Errorf("%s = %#v: %s suppressions written: %v, want %v", NagContextKey, tc.context, writer, written, tc.want)
			}
		}
	}
}

// TestSuppressionsAreCdkNags: the applier writes, for every kind of
// suppression the constructs make (plain, with appliesTo, a reason beyond
// Latin-1, a second suppression over a first on the same resource, on a
// construct and its children), the bytes cdk-nag's own
// NagSuppressions.addResourceSuppressions writes for the same rules on a
// twin of the same construct.
func TestSuppressionsAreCdkNags(t *testing.T) {
	first := []design.NagRule{{ID: "AwsSolutions-SQS3", Reason: design.ReasonDLQRedrive}, {ID: "Serverless-SQSRedrivePolicy", Reason: "Ein Grund, der über Latin-1 hinausgeht: 🔒 ✓"}}
	second := []design.NagRule{{ID: "AwsSolutions-IAM5", Reason: "Only the objects under the prefix, as named at run time.", AppliesTo: []string{"Resource::<B.Arn>/p*", "Action::s3:*"}},
		{ID: "AwsSolutions-SQS3", Reason: design.ReasonDLQRedrive}}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), nil)
	ours := constructs.NewConstruct(stack, jsii.String("Ours"))
	theirs := constructs.NewConstruct(stack, jsii.String("Theirs"))
	for _, scope := range []constructs.Construct{ours, theirs} {
		dlq := awssqs.NewQueue(scope, jsii.String("Dlq"), nil)
		awssqs.NewQueue(scope, jsii.String("Queue"), &awssqs.QueueProps{DeadLetterQueue: &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(3)}})
	}
	for _, rules := range [][]design.NagRule{first, second} {
		d := design.NewDesign()
		d.Suppressions = []design.Suppression{{Scopes: []design.Name{"ours"}, Rules: rules, UnlessContextOff: design.NagContextKey}}
		applyDesign(d, map[design.Name]any{"ours": ours})
		var theirRules []*cdknag.NagPackSuppression
		for _, r := range rules {
			s := &cdknag.NagPackSuppression{Id: jsii.String(r.ID), Reason: jsii.String(r.Reason)}
			if r.AppliesTo != nil {
				var applies []interface{}
				for _, a := range r.AppliesTo {
					applies = append(applies, a)
				}
				s.AppliesTo = &applies
			}
			theirRules = append(theirRules, s)
		}
		cdknag.NagSuppressions_AddResourceSuppressions(theirs, &theirRules, jsii.Bool(true))
	}
	meta := cdkNagMetadata(t, app)
	byName := map[string]any{} // a logical id without its hash of the path
	for id, m := range meta {
		byName[id[:len(id)-8]] = m
	}
	compared := 0
	for id, m := range byName {
		twin, ok := strings.CutPrefix(id, "Ours")
		if !ok {
			continue
		}
		want, ok := byName["Theirs"+twin]
		if !ok {
			t.Errorf("%s: cdk-nag wrote nothing on its twin", id)
			continue
		}
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the applier wrote\n%s\ncdk-nag writes\n%s", id, a, b)
		}
		compared++
	}
	if compared < 2 {
		t.Errorf("compared %d resources, want both queues", compared)
	}
}
