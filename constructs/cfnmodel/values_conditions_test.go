package cfnmodel

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestConditionsReferred: a condition's references to others are read from
// the model wherever they sit, and a value that merely holds the word
// "Condition" (a parameter's default, a key of another shape) is none.
func TestConditionsReferred(t *testing.T) {
	for def, want := range map[string][]string{
		`{"Fn::Equals": [{"Ref": "Env"}, "prod"]}`:                                     nil,
		`{"Fn::And": [{"Condition": "IsProd"}, {"Fn::Not": [{"Condition": "IsEU"}]}]}`: {"IsProd", "IsEU"},
		`{"Condition": "IsProd"}`:                                                      {"IsProd"},
		`{"Fn::Equals": [{"Ref": "Env"}, "Condition"]}`:                                nil,
		`{"Fn::Equals": [{"Condition": "X", "Other": 1}, "a"]}`:                        nil,
	} {
		var v any
		if err := json.Unmarshal([]byte(def), &v); err != nil {
			t.Fatal(err)
		}
		if got := ConditionsReferred(v); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", def, got, want)
		}
	}
}
