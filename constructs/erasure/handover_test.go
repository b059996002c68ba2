package erasure

import (
	"github.com/linn-cloud/erasure-channel/constructs/erasure/plan"

	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// TestAsDataKeepsDataAndMovesEveryJsiiValue: plain data stays in the JSON
// text, and every other value (an enum member, a pointer, a struct, the
// object a plan's {"$name": n} names) is handed over as a jsii value and
// named by its index.
func TestAsDataKeepsDataAndMovesEveryJsiiValue(t *testing.T) {
	n := 3.0
	type opaque struct{ X int }
	for _, tc := range []struct {
		name     string
		in       any
		wantText string
		wantRefs []any
	}{
		{"scalars", map[string]any{"s": "a", "i": 2, "f": 1.5, "b": true, "nil": nil}, `{"b":true,"f":1.5,"i":2,"nil":null,"s":"a"}`, nil},
		{"nested", map[string]any{"l": []any{"x", map[string]any{"y": 1}}}, `{"l":["x",{"y":1}]}`, nil},
		{"an enum member", map[string]any{"e": awssqs.QueueEncryption_KMS}, `{"e":{"$ref":0}}`, []any{awssqs.QueueEncryption_KMS}},
		{"a pointer and a struct, in order", []any{&n, opaque{1}}, `[{"$ref":0},{"$ref":1}]`, []any{&n, opaque{1}}},
		{"a typed list is a jsii value", map[string]any{"l": []string{"a"}}, `{"l":{"$ref":0}}`, []any{[]string{"a"}}},
		{"a name is the object it names", map[string]any{"q": map[string]any{"$name": "queue"}, "m": map[string]any{"$name": "queue", "x": 1}},
			`{"m":{"$name":"queue","x":1},"q":{"$ref":0}}`, []any{"the queue"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var refs []any
			text, err := json.Marshal(asData(tc.in, &refs, map[string]any{"queue": "the queue"}))
			if err != nil {
				t.Fatal(err)
			}
			if string(text) != tc.wantText {
				t.Errorf("text %s, want %s", text, tc.wantText)
			}
			if fmt.Sprint(refs) != fmt.Sprint(tc.wantRefs) || len(refs) != len(tc.wantRefs) {
				t.Errorf("refs %v, want %v", refs, tc.wantRefs)
			}
		})
	}
}

// TestHandoverAssemblyMatchesItsGoSide: the hand-written .jsii declares the
// package, version, class and method handover.go calls, and the tarball is
// the same bytes every time (its digest keys jsii's package cache).
func TestHandoverAssemblyMatchesItsGoSide(t *testing.T) {
	tarball := handoverTarball()
	if !bytes.Equal(tarball, handoverTarball()) {
		t.Fatal("two builds of the handover tarball differ")
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
	for _, name := range []string{"package/package.json", "package/index.js", "package/.jsii"} {
		if _, ok := files[name]; !ok {
			t.Fatalf("the tarball holds no %s", name)
		}
	}
	var pkg struct{ Name, Version, Main string }
	var asm struct {
		Schema, Name, Version string
		Types                 map[string]struct {
			Kind    string
			Methods []struct {
				Name       string
				Static     bool
				Parameters []struct{ Name string }
				Returns    *struct{}
			}
		}
	}
	if err := json.Unmarshal(files["package/package.json"], &pkg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(files["package/.jsii"], &asm); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != handoverPackage || pkg.Version != handoverVersion || pkg.Main != "index.js" {
		t.Errorf("package.json is %s@%s (main %s), handover.go loads %s@%s", pkg.Name, pkg.Version, pkg.Main, handoverPackage, handoverVersion)
	}
	if asm.Schema != "jsii/0.10.0" || asm.Name != handoverPackage || asm.Version != handoverVersion {
		t.Errorf("the assembly is %s %s@%s", asm.Schema, asm.Name, asm.Version)
	}
	class, ok := asm.Types[handoverFQN]
	if !ok || class.Kind != "class" || len(class.Methods) != 1 {
		t.Fatalf("the assembly declares no class %s with one method: %+v", handoverFQN, asm.Types)
	}
	m := class.Methods[0]
	if m.Name != "apply" || !m.Static || len(m.Parameters) != 2 || m.Returns == nil {
		t.Errorf("the assembly's method is %+v, handover.go calls the static apply(text, refs) and reads its results", m)
	}
}

// TestHandoverRefusesWhatItDoesNotKnow: through the jsii kernel, an
// operation, a statement field or a suppression the kernel side does not
// know fails the call with an error naming it, and nothing is applied
// silently.
func TestHandoverRefusesWhatItDoesNotKnow(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), nil)
	queue := awssqs.NewQueue(stack, jsii.String("Q"), nil)
	lock := func(statement map[string]any) map[string]any {
		return map[string]any{"op": "lock", "resource": queue, "key": false, "metadata": []any{}, "statements": []any{statement}}
	}
	for _, tc := range []struct {
		name string
		ops  []map[string]any
		want string
	}{
		{"an operation", []map[string]any{{"op": "dropEverything"}}, "an operation it does not know: dropEverything"},
		{"a statement field", []map[string]any{lock(map[string]any{"Sid": "S", "Effect": "Deny", "Principal": "*", "Resource": []any{"*"}, "Action": []any{"sqs:*"}, "NotResource": []any{"x"}})}, "a statement field it does not know: NotResource"},
		{"a principal", []map[string]any{lock(map[string]any{"Sid": "S", "Effect": "Deny", "Principal": map[string]any{"AWS": "x"}, "Resource": []any{"*"}, "Action": []any{"sqs:*"}})}, `principal must be "*"`},
		{"an effect", []map[string]any{lock(map[string]any{"Sid": "S", "Effect": "Maybe", "Principal": "*", "Resource": []any{"*"}, "Action": []any{"sqs:*"}})}, "effect must be Allow or Deny"},
		{"a short reason", []map[string]any{plan.Suppression(map[string]string{"AwsSolutions-SQS3": "no"}, queue)}, "needs a reason of 10 characters or more"},
		{"a result not yet made", []map[string]any{{"op": "grant", "resource": map[string]any{"$op": 1}, "grantee": queue, "actions": []any{"sqs:SendMessage"}}}, "operation 1 has not run"},
		{"a class", []map[string]any{{"op": "new", "module": "aws-sqs", "class": "Quuee", "scope": stack, "id": "X", "props": map[string]any{}}}, "aws-cdk-lib/aws-sqs has no class Quuee"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg = fmt.Sprint(r)
					}
				}()
				handOver(tc.ops...)
				return ""
			}()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("handOver: %q, want an error containing %q", firstLine(msg), tc.want)
			}
		})
	}
}

// TestHandoverReturnsWhatItMade: a construct the kernel side creates comes
// back as its typed proxy, and a later operation of the batch uses it.
func TestHandoverReturnsWhatItMade(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String("111111111111"), Region: jsii.String("eu-west-1")}})
	var b batch
	scopeAt := b.Scope(stack, "Store")
	envAt := b.Add(map[string]any{"op": "stackEnv", "scope": b.Result(scopeAt)})
	q, d := queuePair{Key: nil, RetentionSeconds: 60, MaxReceiveCount: 3}.Add(&b.Batch, b.Result(scopeAt))
	arnAt := b.Read(b.Result(q), "queueArn")
	made := b.run()
	scope, ok := made[scopeAt].(constructs.Construct)
	if !ok {
		t.Fatalf("the scope came back as %T", made[scopeAt])
	}
	if got := *scope.Node().Path(); got != "S/Store" {
		t.Errorf("the scope's path is %q, want S/Store", got)
	}
	if e := made[envAt].(map[string]any); e["account"] != "111111111111" || e["region"] != "eu-west-1" {
		t.Errorf("stackEnv: %v", e)
	}
	queue, ok := made[q].(awssqs.Queue)
	if !ok {
		t.Fatalf("the queue came back as %T", made[q])
	}
	if _, ok := made[d].(awssqs.Queue); !ok {
		t.Fatalf("the dead-letter queue came back as %T", made[d])
	}
	if got := made[arnAt].(map[string]any)["queueArn"].(string); !isToken(&got) || got != *queue.QueueArn() {
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

// TestSuppressionsOnlyWhereCdkNagMayRun synthesizes a queue whose
// suppression goes through a hand-over, in apps whose context says cdk-nag
// runs, does not, or says nothing (NagContextKey), and reads the template:
// suppressions are written unless the context turns cdk-nag off.
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
		var b batch
		q, _ := queuePair{RetentionSeconds: 60, MaxReceiveCount: 3}.Add(&b.Batch, stack)
		b.Add(plan.Suppression(map[string]string{"Serverless-SQSRedrivePolicy": plan.ReasonDLQRedrive}, b.Result(q)))
		b.run()
		tpl, _ := app.Synth(nil).GetStackByName(jsii.String("S")).Template().(map[string]interface{})
		resources, _ := tpl["Resources"].(map[string]interface{})
		suppressed := 0
		for _, r := range resources {
			meta, _ := r.(map[string]interface{})["Metadata"].(map[string]interface{})
			if _, ok := meta["cdk_nag"]; ok {
				suppressed++
			}
		}
		if got := suppressed > 0; got != tc.want {
			t.Errorf("%s = %#v: %d resources carry cdk-nag suppressions, want them: %v", NagContextKey, tc.context, suppressed, tc.want)
		}
	}
}
