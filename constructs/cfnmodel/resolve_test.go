package cfnmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// readYAML reads one YAML template as an assembly.
func readYAML(t *testing.T, body string) (*Assembly, *Template) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.template.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := ReadAssembly([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	return a, a.Templates[0]
}

// TestResolveAsCloudFormationDoes: each intrinsic CloudFormation resolves at
// deploy, one per row, read through the properties a rule reads.
func TestResolveAsCloudFormationDoes(t *testing.T) {
	const head = `Parameters:
  Stage: {Type: String, Default: prod}
  Arns: {Type: CommaDelimitedList, Default: "arn:aws:sns:eu-west-1:111111111111:a,arn:aws:sns:eu-west-1:111111111111:b"}
  FromSSM: {Type: "AWS::SSM::Parameter::Value<String>", Default: /x}
Mappings:
  Settings:
    prod: {Visibility: 360, Keys: [k1, k2]}
    dev: {Visibility: 30}
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  IsDev: !Equals [!Ref Stage, dev]
  FromStore: !Equals [!Ref FromSSM, x]
Resources:
  Other: {Type: AWS::SNS::Topic}
  Q:
    Type: AWS::SQS::Queue
    Properties:
`
	for _, tc := range []struct {
		prop, want string
	}{
		{"V: !FindInMap [Settings, !Ref Stage, Visibility]", "360"},
		{"V: !FindInMap [Settings, dev, Visibility]", "30"},
		{"V: !FindInMap [Settings, staging, Visibility]", ""},
		{"V: !Select [1, !Split [',', 'a,b,c']]", "b"},
		{"V: !Select [1, !Ref Arns]", "arn:aws:sns:eu-west-1:111111111111:b"},
		{"V: !Select [0, !FindInMap [Settings, prod, Keys]]", "k1"},
		{"V: !Select [5, [a, b]]", ""},
		{"V: !Select [0, [!Ref Other, b]]", "res:#Other"},
		{"V: !If [IsProd, !Ref AWS::NoValue, 30]", "<absent>"},
		{"V: !If [IsDev, !Ref AWS::NoValue, 30]", "30"},
		{"V: !Ref AWS::NoValue", "<absent>"},
		{"V: !If [FromStore, 1, 2]", ""},
		{"V: !Join ['', [a, !If [IsProd, !Ref AWS::NoValue, b], c]]", "ac"},
		{"V: !Join [',', !Split ['/', 'x/y']]", "x,y"},
	} {
		t.Run(tc.prop, func(t *testing.T) {
			a, tpl := readYAML(t, head+"      "+tc.prop+"\n")
			v, present := tpl.Resources["Q"].Properties["V"]
			got := "<absent>"
			if present {
				got = a.Ident(tpl, v)
			}
			if tc.want == "res:#Other" {
				tc.want = ResIdent(tpl, "Other")
			}
			if got != tc.want {
				t.Errorf("got %q (from %s), want %q", got, fmt.Sprint(v), tc.want)
			}
		})
	}
}

// TestResourceConditions: a resource whose condition is false is not
// created; one whose condition only deploy knows is kept, and decided once
// an assumption is given; parameters passed at deploy re-resolve.
func TestResourceConditions(t *testing.T) {
	a, tpl := readYAML(t, `Parameters:
  Stage: {Type: String, Default: dev}
  FromSSM: {Type: "AWS::SSM::Parameter::Value<String>", Default: /x}
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  FromStore: !Equals [!Ref FromSSM, x]
Resources:
  ProdOnly: {Type: AWS::SQS::Queue, Condition: IsProd}
  Unknown: {Type: AWS::SQS::Queue, Condition: FromStore}
  Always: {Type: AWS::SQS::Queue, Properties: {D: !If [IsProd, 0, 60]}}
`)
	if _, ok := tpl.Resources["ProdOnly"]; ok {
		t.Error("ProdOnly is created under Stage=dev")
	}
	if _, ok := tpl.Resources["Unknown"]; !ok {
		t.Error("Unknown is dropped though its condition is unknowable at synth")
	}
	if got := a.Ident(tpl, tpl.Resources["Always"].Properties["D"]); got != "60" {
		t.Errorf("D = %q under Stage=dev", got)
	}
	a.SetAssume(map[*Template]map[string]bool{tpl: {"FromStore": false}})
	if _, ok := tpl.Resources["Unknown"]; ok {
		t.Error("Unknown is created under FromStore=false")
	}
	a.SetAssume(nil)
	a.SetParams(map[string]string{"Stage": "prod"})
	if _, ok := tpl.Resources["ProdOnly"]; !ok {
		t.Error("ProdOnly is not created under Stage=prod")
	}
	if got := a.Ident(tpl, tpl.Resources["Always"].Properties["D"]); got != "0" {
		t.Errorf("D = %q under Stage=prod", got)
	}
}
