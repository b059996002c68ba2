package test

import (
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
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/internal/storeteam"
	"github.com/linn-cloud/erasure-channel/schema"
	"github.com/linn-cloud/erasure-channel/stacks"
)

// The TypeScript construct library (constructs/typescript) runs the Go
// construct's decisions as WebAssembly. These tests hold it to the Go
// construct through what a user sees: the templates a synth writes and the
// lines a refused synth prints.

// TestTypeScriptSubscriberBuildsTheGoTemplates: a TypeScript app whose 1, 2
// and 100 stores are the package's ErasureSubscriber (tools/bench/synth-app.ts
// with SUBSCRIBER=package, the package installed from its packed tarball)
// builds the Go app's templates, every resource, property, statement and
// output (tools/bench/compare.mjs).
func TestTypeScriptSubscriberBuildsTheGoTemplates(t *testing.T) {
	t.Parallel()
	root, node, bin := benchApp(t)
	if _, err := os.Stat(filepath.Join(root, "tools", "bench", "node_modules", "erasure-channel-constructs", "kernel", "plan.wasm")); err != nil {
		t.Fatal("the package is not installed beside the twin: make tools packs and installs it")
	}
	asset := filepath.Join(os.TempDir(), "erasure-channel-handlers", "example-store")
	for _, n := range []int{1, 2, 100} {
		ctx := benchContext(t, root, n, map[string]any{"erasure:examples": false, "erasure:check": false})
		goOut, tsOut := t.TempDir(), t.TempDir()
		runIn(t, root, "the Go app", []string{"CDK_OUTDIR=" + goOut, "CDK_CONTEXT_JSON=" + ctx, "JSII_NODE=" + node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1"}, bin)
		runIn(t, root, "the TypeScript app", []string{"CDK_OUTDIR=" + tsOut, "CDK_CONTEXT_JSON=" + ctx, fmt.Sprintf("STORES=%d", n), "HANDLER_ASSET=" + asset, "SUBSCRIBER=package"},
			node, "--experimental-strip-types", "--no-warnings", filepath.Join("tools", "bench", "synth-app.ts"))
		out, err := exec.Command(node, filepath.Join(root, "tools", "bench", "compare.mjs"), goOut, tsOut).CombinedOutput()
		if err != nil {
			t.Fatalf("%d stores: the TypeScript subscribers' templates are not the Go app's:\n%s", n, out)
		}
		t.Logf("%d stores: %s", n, strings.TrimSpace(string(out)))
	}
}

// subscriberSpec is test/testdata/subscriber-refusals.json or
// subscriber-shapes.json: stores built alike in Go and in TypeScript.
type subscriberSpec struct {
	Context map[string]any `json:"context"`
	Cases   []struct {
		Name  string         `json:"name"`
		Props map[string]any `json:"props"`
		Want  []string       `json:"want"`
	} `json:"cases"`
}

// refusalLine is one line of a refused synth about a subscriber.
var refusalLine = regexp.MustCompile(`\[[^\]\n]+\] EC\d{3} ErasureSubscriber\[[^\n]*`)

// refusalRule is a refusal line's rule id, after its construct path.
var refusalRule = regexp.MustCompile(`^(\[[^\]\n]+\] )(EC\d{3}) `)

// TestTypeScriptSubscriberRefusesAsGoDoes: the subscribers of
// subscriber-refusals.json (every type of the README's refusal table, and
// stores that pass) fail a Go app's synth and a TypeScript app's
// (constructs/typescript/example/subscribers.ts) with the same lines, all at
// once; each case has exactly the lines it wants, and the valid ones none.
func TestTypeScriptSubscriberRefusesAsGoDoes(t *testing.T) {
	t.Parallel()
	root, node, example := tsExample(t)
	specFile := filepath.Join(root, "test", "testdata", "subscriber-refusals.json")
	spec := readSubscriberSpec(t, specFile)
	goErr := goSubscribers(t, spec, t.TempDir())
	if goErr == nil {
		t.Fatal("the Go app's synth passed with every cap broken")
	}
	goLines := refusalLine.FindAllString(goErr.Error(), -1)
	out := runIn(t, example, "subscribers.ts", nil, node, "--experimental-strip-types", "--no-warnings", "subscribers.ts", specFile, t.TempDir())
	tsLines := refusalLine.FindAllString(out, -1)
	slices.Sort(goLines)
	slices.Sort(tsLines)
	if !slices.Equal(goLines, tsLines) {
		t.Errorf("the TypeScript app's refusal lines are not the Go app's:\n go:\n%s\n ts:\n%s", strings.Join(goLines, "\n"), strings.Join(tsLines, "\n"))
	}
	types := map[string]bool{}
	for i, c := range spec.Cases {
		var got []string
		prefix := fmt.Sprintf("[Case%02d/ErasureSubscriber] ErasureSubscriber[%s].", i, c.Name)
		for _, l := range tsLines {
			if id := refusalRule.FindStringSubmatch(l); id != nil && strings.HasPrefix(refusalRule.ReplaceAllString(l, "$1"), prefix) {
				if erasurecheck.RuleByID(id[2]) == nil {
					t.Errorf("%s: %q names no rule of the catalogue", c.Name, l)
				}
				got = append(got, refusalRule.ReplaceAllString(l, "$1"))
			}
		}
		if len(got) != len(c.Want) {
			t.Errorf("%s: %d lines, want %d:\n%s", c.Name, len(got), len(c.Want), strings.Join(got, "\n"))
		}
		for _, w := range c.Want {
			if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, prefix+w) }) {
				t.Errorf("%s: no line %q", c.Name, prefix+w)
			}
			types[strings.SplitN(w, ": ", 2)[1]] = true
		}
	}
	for _, row := range []string{"AboveCap", "BelowMinimum", "NotDerived", "BreaksTiming", "UnresolvedToken", "FIFO", "Invalid", "Missing"} {
		if !types[row] {
			t.Errorf("no case of the refusal table's %s row", row)
		}
	}
}

// TestTypeScriptSubscriberWiresEveryShapeAsGoDoes: every way a store may be
// wired (subscriber-shapes.json: the construct's own role and log group, a
// given role, a given log group with a role CDK makes, a given function,
// given administrators, a batching window, a topic and response queue
// imported from another account, another default region, an opt-in region,
// set function props, the NOT_APPLICABLE alarm), under the app's
// restrictSqsDescryption flag on and off, synthesizes the same templates in
// Go and in TypeScript, resource by resource and statement by statement.
func TestTypeScriptSubscriberWiresEveryShapeAsGoDoes(t *testing.T) {
	t.Parallel()
	root, node, example := tsExample(t)
	base := readSubscriberSpec(t, filepath.Join(root, "test", "testdata", "subscriber-shapes.json"))
	for _, restrict := range []bool{true, false} {
		spec := base
		spec.Context = map[string]any{"@aws-cdk/aws-sns-subscriptions:restrictSqsDescryption": restrict}
		specFile := filepath.Join(t.TempDir(), "spec.json")
		b, _ := json.Marshal(spec)
		if err := os.WriteFile(specFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		goOut, tsOut := t.TempDir(), t.TempDir()
		if err := goSubscribers(t, spec, goOut); err != nil {
			t.Fatalf("restrictSqsDescryption %v: the Go app's synth: %v", restrict, err)
		}
		if out := runIn(t, example, "subscribers.ts", nil, node, "--experimental-strip-types", "--no-warnings", "subscribers.ts", specFile, tsOut); strings.TrimSpace(out) != "" {
			t.Fatalf("restrictSqsDescryption %v: the TypeScript app's synth: %s", restrict, out)
		}
		out, err := exec.Command(node, filepath.Join(root, "tools", "bench", "compare.mjs"), goOut, tsOut).CombinedOutput()
		if err != nil {
			t.Fatalf("restrictSqsDescryption %v: the TypeScript subscribers' templates are not the Go ones:\n%s", restrict, out)
		}
		t.Logf("restrictSqsDescryption %v: %s", restrict, strings.TrimSpace(string(out)))
	}
}

// readSubscriberSpec reads a subscriber spec.
func readSubscriberSpec(t *testing.T, file string) subscriberSpec {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var spec subscriberSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// goSubscribers builds spec's subscribers with the Go construct into outdir,
// as subscribers.ts builds them with the TypeScript one, and returns the
// synth's error.
func goSubscribers(t *testing.T, spec subscriberSpec, outdir string) error {
	t.Helper()
	// The jsii runtime loads its assemblies unguarded on first use: one
	// parallel test at a time builds an app in this process.
	inProcessJsii.Lock()
	defer inProcessJsii.Unlock()
	var file struct {
		Constants map[string]struct {
			Value float64 `json:"value"`
		} `json:"constants"`
		AWSLimits map[string]struct {
			Value float64 `json:"value"`
		} `json:"awsLimits"`
	}
	if err := json.Unmarshal(schema.ChannelConstantsJSON, &file); err != nil {
		t.Fatal(err)
	}
	constant := func(name string) float64 {
		if c, ok := file.Constants[name]; ok {
			return c.Value
		}
		c, ok := file.AWSLimits[name]
		if !ok {
			t.Fatalf("no constant %s", name)
		}
		return c.Value
	}
	ctx := cdkContext(t)
	for k, v := range spec.Context {
		ctx[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(outdir)})
	channel := awscdk.NewStack(app, jsii.String("Channel"), nil)
	key := awskms.NewKey(channel, jsii.String("ResponseKey"), &awskms.KeyProps{EnableKeyRotation: jsii.Bool(true)})
	topic := awssns.NewTopic(channel, jsii.String("Topic"), nil)
	responses := awssqs.NewQueue(channel, jsii.String("ResponseQueue"), &awssqs.QueueProps{Encryption: awssqs.QueueEncryption_KMS, EncryptionMasterKey: key})
	for i, c := range spec.Cases {
		p := c.Props
		var stackProps *awscdk.StackProps
		if env, ok := p["env"].(map[string]any); ok {
			stackProps = &awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String(env["account"].(string)), Region: jsii.String(env["region"].(string))}}
		}
		stack := awscdk.NewStack(app, jsii.String(fmt.Sprintf("Case%02d", i)), stackProps)
		var token *float64
		tok := func() *float64 {
			if token == nil {
				token = awscdk.NewCfnParameter(stack, jsii.String("Tok"), &awscdk.CfnParameterProps{Type: jsii.String("Number")}).ValueAsNumber()
			}
			return token
		}
		duration := func(v any) awscdk.Duration {
			if v == "token" {
				return awscdk.Duration_Seconds(tok())
			}
			d := v.(map[string]any)
			if ms, ok := d["millis"].(float64); ok {
				return awscdk.Duration_Millis(jsii.Number(ms))
			}
			if of, ok := d["of"].(string); ok {
				times, plus := 1.0, 0.0
				if f, ok := d["times"].(float64); ok {
					times = f
				}
				if f, ok := d["plus"].(float64); ok {
					plus = f
				}
				return awscdk.Duration_Seconds(jsii.Number(constant(of)*times + plus))
			}
			return awscdk.Duration_Seconds(jsii.Number(d["seconds"].(float64)))
		}
		number := func(v any) *float64 {
			if v == "token" {
				return tok()
			}
			n := v.(map[string]any)
			if of, ok := n["of"].(string); ok {
				plus, _ := n["plus"].(float64)
				return jsii.Number(constant(of) + plus)
			}
			return jsii.Number(n["value"].(float64))
		}
		role := func(r any) awsiam.IRole {
			if r == "imported" {
				return awsiam.Role_FromRoleArn(stack, jsii.String("Imported"), jsii.String("arn:aws:iam::222222222222:role/their-handler"), nil)
			}
			return awsiam.NewRole(stack, jsii.String("Given"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil)})
		}
		props := erasure.ErasureSubscriberProps{Name: c.Name, Topic: topic, ResponseQueue: responses, HandlerProps: storeteam.HandlerProps()}
		switch tp := p["topic"].(type) {
		case string: // "fifo"
			props.Topic = awssns.NewTopic(stack, jsii.String("Fifo"), &awssns.TopicProps{Fifo: jsii.Bool(true), TopicName: jsii.String("erasure.fifo")})
		case map[string]any:
			props.Topic = awssns.Topic_FromTopicArn(stack, jsii.String("ErasureTopic"), jsii.String(tp["arn"].(string)))
		}
		switch rq := p["responseQueue"].(type) {
		case string:
			if rq == "fifo" {
				props.ResponseQueue = awssqs.NewQueue(stack, jsii.String("Fifo"), &awssqs.QueueProps{Fifo: jsii.Bool(true)})
			} else { // "withoutKey"
				props.ResponseQueue = awssqs.Queue_FromQueueArn(stack, jsii.String("Responses"), jsii.String("arn:aws:sqs:eu-west-1:111111111111:erasure-responses"))
			}
		case map[string]any:
			props.ResponseQueue = awssqs.Queue_FromQueueAttributes(stack, jsii.String("Responses"), &awssqs.QueueAttributes{
				QueueArn: jsii.String(rq["arn"].(string)), KeyArn: jsii.String(rq["keyArn"].(string))})
		}
		switch h := p["handler"].(type) {
		case string: // "none"
			props.HandlerProps = nil
		case map[string]any:
			hp := storeteam.HandlerProps()
			hp.Timeout = duration(h["timeout"])
			if r, ok := h["role"]; ok {
				hp.Role = role(r)
			}
			props.Handler = awslambda.NewFunction(stack, jsii.String("Own"), hp)
			if p["handlerPropsToo"] != true {
				props.HandlerProps = nil
			}
		}
		if v, ok := p["handlerPropsTimeout"]; ok {
			props.HandlerProps.Timeout = duration(v)
		}
		if hp, ok := p["handlerProps"].(map[string]any); ok {
			fp := storeteam.HandlerProps()
			if r, ok := hp["role"]; ok {
				fp.Role = role(r)
			}
			if hp["logGroup"] == true {
				fp.LogGroup = awslogs.NewLogGroup(stack, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: awslogs.RetentionDays_ONE_WEEK})
			}
			if n, ok := hp["functionName"].(string); ok {
				fp.FunctionName = jsii.String(n)
			}
			if m, ok := hp["memorySize"].(float64); ok {
				fp.MemorySize = jsii.Number(m)
			}
			if env, ok := hp["environment"].(map[string]any); ok {
				e := map[string]*string{}
				for k, v := range env {
					e[k] = jsii.String(v.(string))
				}
				fp.Environment = &e
			}
			props.HandlerProps = fp
		}
		if admins, ok := p["administrators"].([]any); ok {
			for _, a := range admins {
				props.Administrators = append(props.Administrators, a.(string))
			}
		}
		for name, dst := range map[string]*awscdk.Duration{"handlerTimeout": &props.HandlerTimeout, "visibilityTimeout": &props.VisibilityTimeout,
			"passTwoDelay": &props.PassTwoDelay, "batchTimeout": &props.BatchTimeout, "maxBatchingWindow": &props.MaxBatchingWindow, "retentionPeriod": &props.RetentionPeriod} {
			if v, ok := p[name]; ok {
				*dst = duration(v)
			}
		}
		for name, dst := range map[string]**float64{"maxReceiveCount": &props.MaxReceiveCount, "batchSize": &props.BatchSize} {
			if v, ok := p[name]; ok {
				*dst = number(v)
			}
		}
		sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &props)
		if n, ok := p["notApplicableAlarm"].(float64); ok {
			sub.AddNotApplicableAlarm("NotApplicableAlarm", n)
		}
	}
	return synth(app)
}

// tsExample is the repository root, the pinned Node and the example
// store-team app, with the package installed in it.
func tsExample(t *testing.T) (root, node, example string) {
	t.Helper()
	root, node, _ = benchApp(t)
	example = filepath.Join(root, "constructs", "typescript", "example")
	if _, err := os.Stat(filepath.Join(example, "node_modules", "erasure-channel-constructs")); err != nil {
		t.Fatal("the package is not installed in constructs/typescript/example: make tools packs and installs it")
	}
	return root, node, example
}

// inProcessJsii serializes the parallel tests that call the jsii kernel in
// this process.
var inProcessJsii sync.Mutex

// runIn runs args in dir with env added and returns its output; it fails
// the test when the command does.
func runIn(t *testing.T, dir, name string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, tail(out))
	}
	return string(out)
}

// TestTypeScriptStoreTeamPath: the README's store-team path in TypeScript.
// The example app (constructs/typescript/example: the package installed from
// its tarball, the channel imported by ARN) synthesizes with the pinned CDK
// CLI, its store is named and locked as the Go construct names and locks
// one, and erasurectl check over its cdk.out passes it.
func TestTypeScriptStoreTeamPath(t *testing.T) {
	t.Parallel()
	root, node, example := tsExample(t)
	asset, err := stacks.BuildHandler(stacks.ExampleHandlerPackage)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runIn(t, example, "cdk synth", []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH"), "HANDLER_ASSET=" + asset,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_PROFILE=none-configured"},
		filepath.Join(root, "tools", "node_modules", ".bin", "cdk"), "synth", "--quiet", "--output", out)
	tpl := readTemplates(t, out)["OrdersStore"]
	var queue map[string]interface{}
	for _, q := range tpl.resources("AWS::SQS::Queue") {
		if p := q["Properties"].(map[string]interface{}); p["QueueName"] == contract.QueueName("orders") {
			queue = p
		}
	}
	if queue == nil {
		t.Fatalf("no queue named %s", contract.QueueName("orders"))
	}
	if num(queue["VisibilityTimeout"]) != contract.Channel().VisibilityTimeoutMultiplier*30 {
		t.Errorf("the queue's visibility timeout is %v, want the multiplier × the 30 s handler timeout", queue["VisibilityTimeout"])
	}
	_, fn := tpl.one(t, "AWS::Lambda::Function")
	if fn["FunctionName"] != contract.HandlerName("orders") {
		t.Errorf("the handler is named %v", fn["FunctionName"])
	}
	if len(tpl.resources("AWS::SQS::QueuePolicy")) != 2 {
		t.Errorf("the queues are not locked: %d queue policies", len(tpl.resources("AWS::SQS::QueuePolicy")))
	}
	res, err := exec.Command(erasurectlBinary(t), "check", "--topic-arn", "arn:aws:sns:eu-west-1:111111111111:erasure-topic", out).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "1 stores subscribed to the erasure topic, 0 problems") {
		t.Errorf("erasurectl check of the TypeScript store: %v\n%s", err, res)
	}
}

// TestTypeScriptSubscriberRefusesUntypedProps: a JavaScript caller, whom
// TypeScript's types do not stop, gets a TypeError that names the construct
// and the property, never the value, for each prop of the wrong type.
func TestTypeScriptSubscriberRefusesUntypedProps(t *testing.T) {
	t.Parallel()
	_, node, example := tsExample(t)
	script := `
import * as cdk from "aws-cdk-lib";
import * as sns from "aws-cdk-lib/aws-sns";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { ErasureSubscriber } from "erasure-channel-constructs";
const app = new cdk.App(); const st = new cdk.Stack(app, "S");
const topic = new sns.Topic(st, "T"); const q = new sqs.Queue(st, "Q", { encryption: sqs.QueueEncryption.KMS });
for (const bad of [{ maxReceiveCount: "secret-5" }, { batchSize: "secret-1" }, { handlerTimeout: 30 }, { name: 7 }, { administrators: "secret-x" }]) {
  try { new ErasureSubscriber(st, "E" + Object.keys(bad)[0], { name: "ok", topic, responseQueue: q, handlerProps: {}, ...bad }); console.log("accepted " + Object.keys(bad)[0]); }
  catch (e) { console.log(e.constructor.name + ": " + e.message); }
}`
	out := runIn(t, example, "the untyped props", nil, node, "--input-type=module", "-e", script)
	for _, want := range []string{
		"TypeError: S/EmaxReceiveCount: ErasureSubscriber.maxReceiveCount must be a number",
		"TypeError: S/EbatchSize: ErasureSubscriber.batchSize must be a number",
		"TypeError: S/EhandlerTimeout: ErasureSubscriber.handlerTimeout must be a Duration",
		"TypeError: S/Ename: ErasureSubscriber.name must be a string",
		"TypeError: S/Eadministrators: ErasureSubscriber.administrators must be a list of strings",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "accepted") {
		t.Errorf("a value was echoed or a bad prop accepted:\n%s", out)
	}
}
