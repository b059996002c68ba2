package cfnmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDecodeYAMLShortForms: every short-form intrinsic becomes its full
// form, GetAtt's dotted string is split, and numbers, booleans and dates
// read as encoding/json reads a JSON Template.
func TestDecodeYAMLShortForms(t *testing.T) {
	doc, err := DecodeTemplate([]byte(`
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      A: !Ref X
      B: !GetAtt Q.Arn
      C: !Sub "arn:${AWS::Partition}:sqs"
      D: !Join [":", [a, !Ref Y]]
      E: !ImportValue Exported
      F: 60
      G: true
      H: 2012-10-17
      I: !If [Cond, 1, 2]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := doc["Resources"].(map[string]any)["Q"].(map[string]any)["Properties"].(map[string]any)
	for key, want := range map[string]string{
		"A": "map[Ref:X]", "B": "map[Fn::GetAtt:[Q Arn]]", "C": "map[Fn::Sub:arn:${AWS::Partition}:sqs]",
		"D": "map[Fn::Join:[: [a map[Ref:Y]]]]", "E": "map[Fn::ImportValue:Exported]", "F": "60", "G": "true",
		"H": "2012-10-17", "I": "map[Fn::If:[Cond 1 2]]",
	} {
		if got := strings.TrimSpace(fmtValue(p[key])); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
}

func fmtValue(v any) string { return fmt.Sprint(v) }

// TestDecodeRejectsWithoutEchoing: a broken Template is refused with a
// typed error naming the file and line, never the Template's content.
func TestDecodeRejectsWithoutEchoing(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     `{"Resources": {"secret-value"`,
		"unknown tag":  "Resources:\n  Q:\n    Type: !Secret secret-value\n",
		"duplicate":    "Resources:\n  Q: {Type: a}\n  Q: {Type: secret-value}\n",
		"no resources": "Outputs: {secret-value: 1}\n",
		"merge key":    "x: &a {k: secret-value}\nResources:\n  <<: *a\n",
	} {
		_, err := DecodeTemplate([]byte(body), "/some/dir/t.yaml")
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "secret-value") || strings.Contains(err.Error(), "/some/dir") {
			t.Errorf("%s: the error echoes the Template or its path: %v", name, err)
		}
	}
}

// TestResourceLines: the line of each Resource's logical id, in JSON and YAML.
func TestResourceLines(t *testing.T) {
	j := "{\n  \"Parameters\": {\"Resources\": {}},\n  \"Resources\": {\n    \"A\": {\"Type\": \"x\", \"Properties\": {\"B\": {\"C\": [1, {\"D\": 2}]}}},\n    \"B\": {\"Type\": \"y\"}\n  }\n}\n"
	if got := resourceLines([]byte(j)); got["A"] != 4 || got["B"] != 5 || len(got) != 2 {
		t.Errorf("JSON: %v, want A:4 B:5", got)
	}
	y, err := os.ReadFile("testdata/store-clean.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := resourceLines(y)
	for id, line := range lines {
		if l := strings.Split(string(y), "\n")[line-1]; strings.TrimSpace(l) != id+":" {
			t.Errorf("%s at line %d, which reads %q", id, line, l)
		}
	}
	if len(lines) != 8 {
		t.Errorf("%d resources, want 8", len(lines))
	}
}

// TestIdentResolvesReferences: imports, nested-stack parameters, pseudo
// parameters, joins and subs render to one comparable identity.
func TestIdentResolvesReferences(t *testing.T) {
	parent := &Template{Path: "p", Account: "111111111111", Region: "eu-west-1", Resources: map[string]Resource{"Topic": {Type: "AWS::SNS::Topic"}}}
	child := &Template{Path: "c", Account: "111111111111", Region: "eu-west-1", Resources: map[string]Resource{},
		Parameters: map[string]any{"TopicParam": map[string]any{}}, parent: parent,
		parentParams: map[string]any{"TopicParam": map[string]any{"Ref": "Topic"}}}
	exporter := &Template{Path: "e", Resources: map[string]Resource{"Q": {Type: "AWS::SQS::Queue"}}}
	a := &Assembly{Templates: []*Template{parent, child, exporter}, exports: map[string]exported{"Ex": {exporter, map[string]any{"Fn::GetAtt": []any{"Q", "Arn"}}}}}
	for _, tc := range []struct {
		t    *Template
		v    any
		want string
	}{
		{child, map[string]any{"Ref": "TopicParam"}, "res:p#Topic"},
		{child, map[string]any{"Fn::ImportValue": "Ex"}, "res:e#Q"},
		{child, map[string]any{"Fn::Join": []any{"", []any{"https://sqs.", map[string]any{"Ref": "AWS::Region"}, ".", map[string]any{"Ref": "AWS::URLSuffix"}, "/1/q"}}}, "https://sqs.eu-west-1.amazonaws.com/1/q"},
		{child, map[string]any{"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:q"}, "arn:aws:sqs:eu-west-1:111111111111:q"},
		{child, map[string]any{"Fn::Sub": []any{"${X}/y", map[string]any{"X": map[string]any{"Fn::ImportValue": "Ex"}}}}, "res:e#Q/y"},
		{child, map[string]any{"Ref": "Nothing"}, ""},
		{child, map[string]any{"Fn::Join": []any{"", []any{"a", map[string]any{"Ref": "Nothing"}}}}, ""},
	} {
		if got := a.Ident(tc.t, tc.v); got != tc.want {
			t.Errorf("ident(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := SQSURLToARN("https://sqs.eu-west-1.amazonaws.com/111111111111/erasure-responses"); got != "arn:aws:sqs:eu-west-1:111111111111:erasure-responses" {
		t.Errorf("sqsURLToARN: %s", got)
	}
}

// FuzzDecodeTemplate: the Template reader never panics, and its errors never
// carry the input.
func FuzzDecodeTemplate(f *testing.F) {
	for _, p := range []string{"testdata/store-clean.yaml", "testdata/store-broken.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"Resources": {"A": {"Type": "AWS::SQS::Queue", "Properties": {"X": {"Fn::GetAtt": ["A", "Arn"]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := DecodeTemplate(b, "fuzz.yaml")
		_ = resourceLines(b)
		if err != nil && len(b) > 12 && strings.Contains(err.Error(), string(b)) {
			t.Fatalf("the error echoes the input")
		}
	})
}

// FuzzReadAssembly feeds the Assembly reader a manifest and a Template of
// its own: it returns (a result or an error naming no input) and never
// panics, loops or leaves the directory.
func FuzzReadAssembly(f *testing.F) {
	f.Add([]byte(`{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"S.Template.json"}}}}`),
		[]byte(`{"Resources":{"N":{"Type":"AWS::CloudFormation::Stack","Metadata":{"aws:asset:path":"S.Template.json"},"Properties":{}}}}`))
	f.Add([]byte(`{"artifacts":{"A":{"type":"cdk:cloud-Assembly","properties":{"directoryName":"."}}}}`), []byte(`{"Resources":{}}`))
	f.Add([]byte(`{"artifacts":{"S":{"type":"aws:cloudformation:stack","properties":{"templateFile":"../x"}}}}`), []byte("Resources:\n  A: !Bad x\n"))
	f.Fuzz(func(t *testing.T, manifest, tpl []byte) {
		dir := t.TempDir()
		if os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o600) != nil || os.WriteFile(filepath.Join(dir, "S.Template.json"), tpl, 0o600) != nil {
			t.Skip()
		}
		_, err := ReadPaths([]string{dir})
		if err != nil && len(tpl) > 16 && strings.Contains(err.Error(), string(tpl)) {
			t.Fatalf("the error echoes the Template")
		}
	})
}

// TestNamesAResourceInEveryForm: a value names a resource however it is
// written (Ref, Fn::GetAtt in both forms, Fn::Sub with ${X} and ${X.Arn},
// through a nested stack's parameter, an import, in a list, a literal ARN or
// URL, its physical name), and a value that names another resource, or
// nothing the model can render, does not; an identity policy in any stack
// attaches to a role it names; a redrive target written with Fn::Sub is the
// queue.
func TestNamesAResourceInEveryForm(t *testing.T) {
	parent := &Template{Path: "p", Account: "111111111111", Region: "eu-west-1", Resources: map[string]Resource{
		"Q":     {Type: "AWS::SQS::Queue", Properties: map[string]any{"QueueName": "store-q"}},
		"DLQ":   {Type: "AWS::SQS::Queue"},
		"Role":  {Type: "AWS::IAM::Role", Properties: map[string]any{"RoleName": "handler-role"}},
		"Other": {Type: "AWS::IAM::Role"},
		"Main": {Type: "AWS::SQS::Queue", Properties: map[string]any{"RedrivePolicy": map[string]any{
			"deadLetterTargetArn": map[string]any{"Fn::Sub": "${DLQ.Arn}"}, "maxReceiveCount": 5.0}}},
	}}
	child := &Template{Path: "c", Account: "111111111111", Region: "eu-west-1", Parameters: map[string]any{"RoleParam": map[string]any{}},
		parent: parent, parentParams: map[string]any{"RoleParam": map[string]any{"Ref": "Role"}}, Resources: map[string]Resource{
			"ByParam": {Type: "AWS::IAM::Policy", Properties: map[string]any{"Roles": []any{map[string]any{"Ref": "RoleParam"}}}},
			"ByName":  {Type: "AWS::IAM::Policy", Properties: map[string]any{"Roles": []any{"handler-role"}}},
			"ByOther": {Type: "AWS::IAM::Policy", Properties: map[string]any{"Roles": []any{"another-role"}}},
		}}
	elsewhere := &Template{Path: "x", Account: "222222222222", Region: "eu-west-1", Resources: map[string]Resource{
		"SameName": {Type: "AWS::IAM::Policy", Properties: map[string]any{"Roles": []any{"handler-role"}}},
	}}
	a := &Assembly{Templates: []*Template{parent, child, elsewhere}, exports: map[string]exported{"QueueURL": {parent, map[string]any{"Ref": "Q"}}}}
	for _, tc := range []struct {
		in   *Template
		v    any
		id   string
		want bool
	}{
		{parent, map[string]any{"Ref": "Q"}, "Q", true},
		{parent, map[string]any{"Fn::GetAtt": []any{"Q", "Arn"}}, "Q", true},
		{parent, map[string]any{"Fn::GetAtt": "Q.Arn"}, "Q", true},
		{parent, map[string]any{"Fn::Sub": "${Q}"}, "Q", true},
		{parent, map[string]any{"Fn::Sub": "${Q.Arn}"}, "Q", true},
		{parent, []any{map[string]any{"Ref": "DLQ"}, map[string]any{"Fn::Sub": "${Q}"}}, "Q", true},
		{parent, "arn:aws:sqs:eu-west-1:111111111111:store-q", "Q", true},
		{parent, "https://sqs.eu-west-1.amazonaws.com/111111111111/store-q", "Q", true},
		{child, map[string]any{"Fn::ImportValue": "QueueURL"}, "Q", true},
		{child, map[string]any{"Ref": "RoleParam"}, "Role", true},
		{parent, "handler-role", "Role", true},
		{parent, map[string]any{"Fn::Sub": "${DLQ}"}, "Q", false},
		{parent, "arn:aws:sqs:eu-west-1:111111111111:other-q", "Q", false},
		{parent, map[string]any{"Ref": "Nothing"}, "Q", false},
	} {
		if got := a.Names(tc.in, tc.v, parent, tc.id); got != tc.want {
			t.Errorf("Names(%v, %s) = %v, want %v", tc.v, tc.id, got, tc.want)
		}
	}
	var attached []string
	for _, at := range a.AttachedTo(parent, "Role") {
		attached = append(attached, at.T.Path+"#"+at.ID)
	}
	sort.Strings(attached)
	if strings.Join(attached, ",") != "c#ByName,c#ByParam" {
		t.Errorf("the policies attached to the role: %v, want the nested stack's by parameter and by name (not another account's of the same name)", attached)
	}
	if len(a.AttachedTo(parent, "Other")) != 0 {
		t.Error("a policy attached to a role it does not name")
	}
	if _, dlq := a.RedriveOf(parent, parent.Resources["Main"].Properties); dlq != "DLQ" {
		t.Errorf("a redrive target written !Sub \"${DLQ.Arn}\" is %q, want DLQ", dlq)
	}
}

// TestFunctionBehindEveryForm: an event source's FunctionName names its
// function however CDK or a plain template writes it: the function, its
// alias or version by Ref, CDK's alias join over Fn::Split of the alias ARN,
// CDK's version join of Ref Function and GetAtt Version.Version, Fn::Sub,
// the function's name or ARN, qualified or not; another app's does not.
func TestFunctionBehindEveryForm(t *testing.T) {
	tpl := &Template{Path: "s", Account: "111111111111", Region: "eu-west-1", Resources: map[string]Resource{
		"Fn":      {Type: "AWS::Lambda::Function", Properties: map[string]any{"FunctionName": "store-handler"}},
		"Version": {Type: "AWS::Lambda::Version", Properties: map[string]any{"FunctionName": map[string]any{"Ref": "Fn"}}},
		"Live": {Type: "AWS::Lambda::Alias", Properties: map[string]any{"FunctionName": map[string]any{"Ref": "Fn"}, "Name": "live",
			"FunctionVersion": map[string]any{"Fn::GetAtt": []any{"Version", "Version"}}}},
	}}
	a := &Assembly{Templates: []*Template{tpl}}
	ref := func(id string) any { return map[string]any{"Ref": id} }
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"Ref function", ref("Fn"), true},
		{"GetAtt function Arn", map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}}, true},
		{"Ref alias", ref("Live"), true},
		{"Ref version", ref("Version"), true},
		{"CDK's alias", map[string]any{"Fn::Join": []any{"", []any{
			map[string]any{"Fn::Select": []any{6.0, map[string]any{"Fn::Split": []any{":", ref("Live")}}}}, ":live"}}}, true},
		{"CDK's version", map[string]any{"Fn::Join": []any{"", []any{ref("Fn"), ":", map[string]any{"Fn::GetAtt": []any{"Version", "Version"}}}}}, true},
		{"Sub qualified", map[string]any{"Fn::Sub": "${Fn}:live"}, true},
		{"Sub alias", map[string]any{"Fn::Sub": "${Live}"}, true},
		{"Sub ARN qualified", map[string]any{"Fn::Sub": "${Fn.Arn}:live"}, true},
		{"name", "store-handler", true},
		{"name qualified", "store-handler:live", true},
		{"ARN qualified", "arn:aws:lambda:eu-west-1:111111111111:function:store-handler:7", true},
		{"partial ARN", "111111111111:function:store-handler", true},
		{"another app's", "arn:aws:lambda:eu-west-1:111111111111:function:other-handler:live", false},
		{"unknown", ref("Nothing"), false},
	} {
		ft, id, ok := a.FunctionBehind(tpl, tc.v)
		if ok != tc.want || ok && (ft != tpl || id != "Fn") {
			t.Errorf("%s: FunctionBehind = %v %q, want %v", tc.name, ok, id, tc.want)
		}
	}
}
