package cfnmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxYAMLNodes bounds the nodes one template may expand to (aliases included).
const maxYAMLNodes = 1 << 20

// intrinsics maps CloudFormation's YAML short-form tags to the full form.
var intrinsics = map[string]string{
	"!Ref": "Ref", "!Condition": "Condition",
	"!Base64": "Fn::Base64", "!Cidr": "Fn::Cidr", "!FindInMap": "Fn::FindInMap", "!GetAtt": "Fn::GetAtt",
	"!GetAZs": "Fn::GetAZs", "!ImportValue": "Fn::ImportValue", "!Join": "Fn::Join", "!Select": "Fn::Select",
	"!Split": "Fn::Split", "!Sub": "Fn::Sub", "!Transform": "Fn::Transform", "!And": "Fn::And",
	"!Equals": "Fn::Equals", "!If": "Fn::If", "!Not": "Fn::Not", "!Or": "Fn::Or",
	"!ToJsonString": "Fn::ToJsonString", "!Length": "Fn::Length", "!ForEach": "Fn::ForEach",
}

// decodeYAML reads a YAML template into the same shape encoding/json gives a
// JSON one, turning short-form intrinsics (!Ref, !GetAtt, !Sub, …) into
// their full form. Errors name the file and line, never a value.
func decodeYAML(b []byte, path string) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("cfnmodel: %s is neither a JSON nor a YAML template", filepath.Base(path))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("cfnmodel: %s is not a CloudFormation template", filepath.Base(path))
	}
	c := &yamlConverter{file: filepath.Base(path)}
	v, err := c.convert(doc.Content[0])
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cfnmodel: %s is not a CloudFormation template", filepath.Base(path))
	}
	return m, nil
}

type yamlConverter struct {
	file  string
	nodes int
}

func (c *yamlConverter) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("cfnmodel: %s line %d: %s", c.file, n.Line, fmt.Sprintf(format, args...))
}

func (c *yamlConverter) convert(n *yaml.Node) (any, error) {
	if c.nodes++; c.nodes > maxYAMLNodes {
		return nil, c.errorf(n, "the template expands to more than %d nodes", maxYAMLNodes)
	}
	if fn, ok := intrinsics[n.Tag]; ok {
		v, err := c.plain(n)
		if err != nil {
			return nil, err
		}
		if fn == "Fn::GetAtt" {
			if s, ok := v.(string); ok { // !GetAtt Resource.Attribute
				id, attr, _ := strings.Cut(s, ".")
				v = []any{id, attr}
			}
		}
		return map[string]any{fn: v}, nil
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, c.errorf(n, "a tag CloudFormation does not know")
	}
	return c.plain(n)
}

// plain converts a node ignoring a short-form tag on it.
func (c *yamlConverter) plain(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return c.convert(n.Alias)
	case yaml.ScalarNode:
		return c.scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.convert(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, c.errorf(k, "a mapping key that is not a string")
			}
			if k.Tag == "!!merge" {
				return nil, c.errorf(k, "merge keys (<<) are not CloudFormation")
			}
			if _, dup := out[k.Value]; dup {
				return nil, c.errorf(k, "a key that stands twice in one mapping")
			}
			cv, err := c.convert(v)
			if err != nil {
				return nil, err
			}
			out[k.Value] = cv
		}
		return out, nil
	}
	return nil, c.errorf(n, "unsupported YAML node")
}

func (c *yamlConverter) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, c.errorf(n, "not a boolean")
		}
		return b, nil
	case "!!int", "!!float":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil {
			return f, nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, c.errorf(n, "not a number")
		}
		return f, nil
	}
	return n.Value, nil // strings, timestamps (Version: 2012-10-17) and any tag the short forms carry
}

// resourceLines maps each resource's logical id to the line it starts on.
func resourceLines(b []byte) map[string]int {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		return jsonResourceLines(b)
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) != 1 {
		return nil
	}
	root := doc.Content[0]
	out := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "Resources" {
			continue
		}
		res := root.Content[i+1]
		for j := 0; j+1 < len(res.Content); j += 2 {
			out[res.Content[j].Value] = res.Content[j].Line
		}
	}
	return out
}

// jsonResourceLines walks a JSON template's tokens: the keys of the
// top-level Resources object and the line each starts on.
func jsonResourceLines(b []byte) map[string]int {
	type container struct{ object, wantKey bool }
	dec := json.NewDecoder(bytes.NewReader(b))
	out := map[string]int{}
	var stack []container
	inResources := false
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				switch {
				case n == 1:
					inResources = key == "Resources"
				case n == 2 && inResources:
					out[key] = 1 + bytes.Count(b[:skipSpace(b, off)], []byte("\n"))
				}
				stack[n-1].wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, container{object: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, container{})
			continue
		case json.Delim('}'), json.Delim(']'):
			if len(stack) == 0 {
				return out
			}
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true // a value ended: the object wants its next key
		}
	}
}

// skipSpace returns the offset of the first byte at or after off that is not
// white space, a comma or a colon: where the next token starts.
func skipSpace(b []byte, off int64) int {
	i := int(off)
	for i < len(b) && strings.IndexByte(" \t\r\n,:", b[i]) >= 0 {
		i++
	}
	return i
}
