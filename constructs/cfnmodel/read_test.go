package cfnmodel

import (
	"fmt"
	"os"
	"path/filepath"
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
