package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/linn-cloud/erasure-channel/constructs/erasure"
	"github.com/linn-cloud/erasure-channel/constructs/erasurecheck"
	"github.com/linn-cloud/erasure-channel/constructs/erasuretest"
)

// cellKey names one cell of the access matrix.
type cellKey struct{ principal, action, resource string }

func (k cellKey) String() string { return k.principal + " " + k.action + " " + k.resource }

// requiredCells are the cells the issue names, for the example app's
// channel, same-account store (space), store in another account (ledger)
// and bitmap store: the matrix must contain each, with this decision.
var requiredCells = map[cellKey]erasurecheck.Decision{
	{"account-service", "sns:Publish", "topic"}:                                   erasurecheck.Allowed,
	{"account-service", "kms:GenerateDataKey", "topic-key"}:                       erasurecheck.Allowed,
	{"account-service", "sqs:ReceiveMessage", "response-queue"}:                   erasurecheck.Allowed,
	{"account-service", "kms:Decrypt", "response-key"}:                            erasurecheck.Allowed,
	{"sns/erasure-topic", "sqs:SendMessage", "queue/space"}:                       erasurecheck.Allowed,
	{"sns/erasure-topic", "kms:GenerateDataKey", "queue-key/ledger"}:              erasurecheck.Allowed,
	{"handler/ledger", "sqs:ReceiveMessage", "queue/ledger"}:                      erasurecheck.Allowed,
	{"handler/ledger", "kms:Decrypt", "queue-key/ledger"}:                         erasurecheck.Allowed,
	{"handler/ledger", "sqs:SendMessage", "response-queue"}:                       erasurecheck.Allowed,
	{"handler/ledger", "kms:GenerateDataKey", "response-key"}:                     erasurecheck.Allowed,
	{"handler/space", "sqs:SendMessage", "queue/space"}:                           erasurecheck.Allowed,
	{"handler/bitmaps", "s3:PutObject", "bucket-objects/bitmaps"}:                 erasurecheck.Allowed,
	{"handler/bitmaps", "kms:GenerateDataKey", "bucket-key/bitmaps"}:              erasurecheck.Allowed,
	{"other/111111111111", "sqs:SendMessage", "response-queue"}:                   erasurecheck.Denied,
	{"other/222222222222", "sqs:SendMessage", "response-queue"}:                   erasurecheck.Denied,
	{"other/111111111111", "sqs:ReceiveMessage", "queue/space"}:                   erasurecheck.Denied,
	{"other/222222222222", "sqs:ReceiveMessage", "queue/ledger"}:                  erasurecheck.Denied,
	{"handler/space", "sqs:ReceiveMessage", "queue/bitmaps"}:                      erasurecheck.Denied,
	{"handler/space", "kms:Decrypt", "queue-key/ledger"}:                          erasurecheck.Denied,
	{"handler/space", "s3:GetObject", "bucket-objects/bitmaps"}:                   erasurecheck.Denied,
	{"handler/ledger", "kms:Decrypt", "bucket-key/bitmaps"}:                       erasurecheck.Denied,
	{"sns/another-topic/111111111111", "sqs:SendMessage", "queue/space"}:          erasurecheck.Denied,
	{"sns/another-topic/222222222222", "kms:GenerateDataKey", "queue-key/ledger"}: erasurecheck.Denied,
}

func cellsByKey(m *erasurecheck.AccessMatrix) map[cellKey]erasurecheck.Cell {
	out := map[cellKey]erasurecheck.Cell{}
	for _, c := range m.Cells {
		out[cellKey{c.Principal, c.Action, c.Resource}] = c
	}
	return out
}

// TestAccessMatrixOfTheExampleApp: over the example app's synthesized
// policies every cell holds (the CLI exits 0), and every cell the channel's
// threat model names is there.
func TestAccessMatrixOfTheExampleApp(t *testing.T) {
	defaultApp(t)
	m, err := erasurecheck.Access([]string{defaultDir}, erasurecheck.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Failing() {
		t.Errorf("cell does not hold: %s %s %s: want %s, the policies say %s (%s)", c.Principal, c.Action, c.Resource, c.Want, c.Got, c.Because)
	}
	got := cellsByKey(m)
	for k, want := range requiredCells {
		if c, ok := got[k]; !ok {
			t.Errorf("the matrix has no cell %s", k)
		} else if c.Want != want {
			t.Errorf("cell %s: the matrix wants %s, the threat model %s", k, c.Want, want)
		}
	}
	out, err := exec.Command(erasurectlBinary(t), "access", defaultDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("access matrix: %d cells, 0 do not hold", len(m.Cells))) {
		t.Errorf("erasurectl access over the example app: want exit 0 and every cell holding, got %v\n%s", err, out)
	}
}

// TestAccessMatrixFailsWhenAPolicyIsWidened: each edit below widens (or
// narrows) one policy of the example app's synthesized templates the way a
// hurried change would; the matrix must name the cell it breaks, and the CLI
// must exit 1.
func TestAccessMatrixFailsWhenAPolicyIsWidened(t *testing.T) {
	defaultApp(t)
	cases := []struct {
		name  string
		edit  func(t *testing.T, tpls map[string]template)
		broke cellKey
	}{
		{"a handler role allowed sqs:* on *", func(t *testing.T, tpls map[string]template) {
			addStatement(t, policyDoc(t, tpls["SpaceStore"], "AWS::IAM::Policy", ""), map[string]any{"Effect": "Allow", "Action": "sqs:*", "Resource": "*"})
		}, cellKey{"handler/space", "sqs:SendMessage", "queue/bitmaps"}},
		{"the response queue's deny removed", func(t *testing.T, tpls map[string]template) {
			removeStatement(t, policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer"), "OnlyRosterHandlersAnswer")
		}, cellKey{"other/111111111111", "sqs:SendMessage", "response-queue"}},
		{"the roster's allow loses its condition", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "RosterSendResponses")
			for _, s := range doc["Statement"].([]any) {
				if sm := s.(map[string]any); sm["Sid"] == "RosterSendResponses" || sm["Sid"] == "OnlyRosterHandlersAnswer" {
					delete(sm, "Condition")
					sm["Effect"] = "Allow"
				}
			}
		}, cellKey{"other/222222222222", "sqs:SendMessage", "response-queue"}},
		{"SNS may use a store key for any topic", func(t *testing.T, tpls map[string]template) {
			for _, r := range tpls["LedgerStore"].resources("AWS::KMS::Key") {
				for _, s := range r["Properties"].(map[string]any)["KeyPolicy"].(map[string]any)["Statement"].([]any) {
					delete(s.(map[string]any), "Condition")
				}
			}
		}, cellKey{"sns/another-topic/222222222222", "kms:GenerateDataKey", "queue-key/ledger"}},
		{"SNS may send to a store queue for any topic", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["SpaceStore"], "AWS::SQS::QueuePolicy", "OnlyTheHandlerConsumes")
			for _, s := range doc["Statement"].([]any) {
				if sm := s.(map[string]any); sm["Effect"] == "Allow" {
					delete(sm, "Condition")
				}
			}
		}, cellKey{"sns/another-topic/111111111111", "sqs:SendMessage", "queue/space"}},
		{"a store queue's consumer deny removed", func(t *testing.T, tpls map[string]template) {
			removeStatement(t, policyDoc(t, tpls["LedgerStore"], "AWS::SQS::QueuePolicy", "OnlyTheHandlerConsumes"), "OnlyTheHandlerConsumes")
		}, cellKey{"other/222222222222", "sqs:ReceiveMessage", "queue/ledger"}},
		{"the bitmap bucket open to every principal", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["BitmapStore"], "AWS::S3::BucketPolicy", "")
			deny := doc["Statement"].([]any)[0].(map[string]any)
			addStatement(t, doc, map[string]any{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": deny["Resource"]})
		}, cellKey{"handler/space", "s3:GetObject", "bucket-objects/bitmaps"}},
		{"a store key delegates to another account", func(t *testing.T, tpls map[string]template) {
			for _, r := range tpls["BitmapStore"].resources("AWS::KMS::Key") {
				doc := r["Properties"].(map[string]any)["KeyPolicy"].(map[string]any)
				addStatement(t, doc, map[string]any{"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::222222222222:root"}, "Action": "kms:*", "Resource": "*"})
			}
			addStatement(t, policyDoc(t, tpls["LedgerStore"], "AWS::IAM::Policy", ""), map[string]any{"Effect": "Allow", "Action": "kms:Decrypt", "Resource": "*"})
		}, cellKey{"handler/ledger", "kms:Decrypt", "bucket-key/bitmaps"}},
		{"a handler loses its answer grant (narrowed)", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["SpaceStore"], "AWS::IAM::Policy", "")
			var keep []any
			for _, s := range doc["Statement"].([]any) {
				if s.(map[string]any)["Action"] != "sqs:SendMessage" {
					keep = append(keep, s)
				}
			}
			doc["Statement"] = keep
		}, cellKey{"handler/space", "sqs:SendMessage", "response-queue"}},
		{"a deny the evaluator cannot judge", func(t *testing.T, tpls map[string]template) {
			doc := policyDoc(t, tpls["ErasureChannel"], "AWS::SQS::QueuePolicy", "OnlyRosterHandlersAnswer")
			addStatement(t, doc, map[string]any{"Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": "*",
				"Condition": map[string]any{"DateGreaterThan": map[string]any{"aws:CurrentTime": "2027-01-01T00:00:00Z"}}})
		}, cellKey{"account-service", "sqs:ReceiveMessage", "response-queue"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyAssembly(t, defaultDir)
			tpls := readTemplates(t, dir)
			tc.edit(t, tpls)
			writeTemplates(t, dir, tpls)
			m, err := erasurecheck.Access([]string{dir}, erasurecheck.Config{})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := cellsByKey(m)[tc.broke]
			if !ok || c.Holds() {
				t.Fatalf("after the edit, cell %s still holds (or is gone): %+v", tc.broke, c)
			}
			if i == 0 { // the CLI as CI runs it, once
				out, err := exec.Command(erasurectlBinary(t), "access", "--failing", dir).CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "FAIL  "+tc.broke.principal) {
					t.Errorf("erasurectl access over a widened policy: want exit 1 naming the cell, got %v\n%s", err, out)
				}
			}
		})
	}
}

// policyDoc returns the policy document of the resource of type typ in tpl
// (whose statements have Sid sid, when sid is given).
func policyDoc(t *testing.T, tpl template, typ, sid string) map[string]any {
	t.Helper()
	for _, r := range tpl.resources(typ) {
		doc := r["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
		b, _ := json.Marshal(doc)
		if sid == "" || strings.Contains(string(b), `"Sid":"`+sid+`"`) {
			return doc
		}
	}
	t.Fatalf("no %s with statement %q", typ, sid)
	return nil
}

func addStatement(t *testing.T, doc map[string]any, s map[string]any) {
	t.Helper()
	doc["Statement"] = append(doc["Statement"].([]any), s)
}

func removeStatement(t *testing.T, doc map[string]any, sid string) {
	t.Helper()
	var keep []any
	for _, s := range doc["Statement"].([]any) {
		if s.(map[string]any)["Sid"] != sid {
			keep = append(keep, s)
		}
	}
	if len(keep) == len(doc["Statement"].([]any)) {
		t.Fatalf("no statement %s", sid)
	}
	doc["Statement"] = keep
}

// copyAssembly copies a cloud assembly's manifest and templates.
func copyAssembly(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(src, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeTemplates(t *testing.T, dir string, tpls map[string]template) {
	t.Helper()
	for name, tpl := range tpls {
		b, _ := json.MarshalIndent(tpl, "", " ")
		if err := os.WriteFile(filepath.Join(dir, name+".template.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	erasurectlOnce sync.Once
	erasurectlPath string
	erasurectlErr  error
)

// erasurectlBinary builds erasurectl once per test binary.
func erasurectlBinary(t testing.TB) string {
	t.Helper()
	erasurectlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "erasurectl-bin")
		if err != nil {
			erasurectlErr = err
			return
		}
		erasurectlPath = filepath.Join(dir, "erasurectl")
		if b, err := exec.Command("go", "build", "-o", erasurectlPath, "../cmd/erasurectl").CombinedOutput(); err != nil {
			erasurectlErr = fmt.Errorf("go build erasurectl: %v\n%s", err, b)
		}
	})
	if erasurectlErr != nil {
		t.Fatal(erasurectlErr)
	}
	return erasurectlPath
}

// TestWidenedPolicyFailsTheSynth: with the access rules on (the example app
// has them; a store team's test kit takes Options.Access), a store whose
// handler role is widened to sqs:* on * fails its synth, naming the cell,
// and erasurectl check --access refuses the same; the same app without the
// widening, environment-agnostic stacks included, has no access line.
func TestWidenedPolicyFailsTheSynth(t *testing.T) {
	build := func(widen bool) func(app awscdk.App) {
		return func(app awscdk.App) {
			channel := awscdk.NewStack(app, jsii.String("Channel"), nil)
			ch := erasure.NewErasureChannel(channel, jsii.String("ErasureChannel"), &erasure.ErasureChannelProps{
				Stores: []erasure.RosterStore{{Name: "space"}, {Name: "orders"}}})
			for _, name := range []string{"space", "orders"} {
				stack := awscdk.NewStack(app, jsii.String("Store-"+name), nil)
				sub := erasure.NewErasureSubscriber(stack, jsii.String("ErasureSubscriber"), &erasure.ErasureSubscriberProps{
					Name: name, Topic: ch.Topic, ResponseQueue: ch.ResponseQueue, HandlerProps: nodeHandler()})
				if widen && name == "space" {
					sub.Function.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
						Actions: jsii.Strings("sqs:*"), Resources: jsii.Strings("*")}))
				}
			}
		}
	}
	clean := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t), Access: true}, build(false))
	if lines := linesMentioning(strings.Join(clean.Lines, "\n")+"\n", "Access["); lines != "" {
		t.Errorf("the clean app has access lines:\n%s", lines)
	}
	widened := erasuretest.Collect(t, erasuretest.Options{Context: cdkContext(t), Access: true}, build(true))
	report := strings.Join(widened.Lines, "\n") + "\n"
	const want = "Access[handler/space sqs:SendMessage queue/orders]: BreaksErasure"
	if !strings.Contains(report, want) {
		t.Fatalf("the widened app: no line %q in:\n%s", want, report)
	}
	out, err := exec.Command(erasurectlBinary(t), "check", "--access", widened.Dir).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Errorf("erasurectl check --access over the widened app: want exit 1 and %q, got %v\n%s", want, err, out)
	}
}
