package cfnmodel

import (
	"strings"
	"testing"
)

// TestPositions: a property path's line and column in a JSON and a YAML
// template (keys, list items, a property the file leaves out pointing at
// its nearest written parent), from raw bytes.
func TestPositions(t *testing.T) {
	const js = "{\n  \"Resources\": {\n    \"Queue\": {\n      \"Type\": \"AWS::SQS::Queue\",\n      \"Properties\": {\"VisibilityTimeout\": 30,\n        \"Tags\": [ {\"Key\": \"a\"}, {\"Key\": \"b\"} ]\n      }\n    }\n  }\n}\n"
	const ya = "Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: 30\n      Tags:\n        - Key: a\n        - Key: b\n"
	for name, c := range map[string]struct {
		body string
		want map[string]Position
	}{
		"json": {js, map[string]Position{
			"Resources.Queue": {3, 5},
			"Resources.Queue.Properties.VisibilityTimeout": {5, 22},
			"Resources.Queue.Properties.Tags.1":            {6, 33},
			"Resources.Queue.Properties.Tags.1.Key":        {6, 34},
			"Resources.Queue.Properties.DelaySeconds":      {5, 7}, // not written: Properties
			"Resources.Other.Properties":                   {2, 3}, // not written: Resources
			"Outputs.X":                                    {},
		}},
		"yaml": {ya, map[string]Position{
			"Resources.Queue": {2, 3},
			"Resources.Queue.Properties.VisibilityTimeout": {5, 7},
			"Resources.Queue.Properties.Tags.1":            {8, 11},
			"Resources.Queue.Properties.Tags.1.Key":        {8, 11},
			"Resources.Queue.Properties.DelaySeconds":      {4, 5},
		}},
	} {
		p := positionsOf([]byte(c.body))
		if p == nil {
			t.Fatalf("%s: not decoded", name)
		}
		for path, want := range c.want {
			if got := p.Find(strings.Split(path, ".")); got != want {
				t.Errorf("%s %s: %+v, want %+v", name, path, got, want)
			}
		}
	}
	if positionsOf([]byte("{\"Resources\": ")) != nil {
		t.Error("a truncated JSON template was indexed")
	}
}

// FuzzPositions: any bytes give an index or nil, never a panic; every
// position found is inside the input.
func FuzzPositions(f *testing.F) {
	f.Add([]byte("{\"Resources\":{\"A\":{\"Properties\":{\"X\":[1,{\"Y\":2}]}}}}"))
	f.Add([]byte("Resources:\n  A:\n    Properties:\n      X: [1, {Y: 2}]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := positionsOf(b)
		if p == nil {
			return
		}
		lines := strings.Count(string(b), "\n") + 1
		for k, pos := range p.at {
			if pos.Line < 1 || pos.Line > lines || pos.Column < 1 {
				t.Fatalf("%q at %+v, outside the input of %d lines", k, pos, lines)
			}
		}
	})
}
