package cfnmodel

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/linn-cloud/erasure-channel/contract/bounded"
)

// Position is a line and a column in a template file, both from 1.
type Position struct{ Line, Column int }

// Positions is where each key and list item of a template file starts:
// what a finding's property path points at in the file. A key's position is
// its name's; a list item's is the item's.
type Positions struct {
	at map[string]Position // path joined by "\x00" -> where it starts
}

// ReadPositions indexes the template file at path (JSON or YAML); nil if it
// cannot be read or decoded.
func ReadPositions(path string) *Positions {
	b, err := bounded.ReadFile(path, MaxTemplateBytes)
	if err != nil {
		return nil
	}
	return positionsOf(b)
}

func positionsOf(b []byte) *Positions {
	p := &Positions{at: map[string]Position{}}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		if !p.json(b) {
			return nil
		}
		return p
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) != 1 {
		return nil
	}
	p.yaml(doc.Content[0], nil)
	return p
}

// Find is where keys start, or, when the file does not write them (a value
// CloudFormation defaults), where their nearest written parent starts.
// The zero Position when not even the first key is written.
func (p *Positions) Find(keys []string) Position {
	if p == nil {
		return Position{}
	}
	for n := len(keys); n > 0; n-- {
		if pos, ok := p.at[strings.Join(keys[:n], "\x00")]; ok {
			return pos
		}
	}
	return Position{}
}

func (p *Positions) yaml(n *yaml.Node, path []string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			child := append(path[:len(path):len(path)], k.Value)
			p.at[strings.Join(child, "\x00")] = Position{k.Line, k.Column}
			p.yaml(n.Content[i+1], child)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			child := append(path[:len(path):len(path)], strconv.Itoa(i))
			p.at[strings.Join(child, "\x00")] = Position{item.Line, item.Column}
			p.yaml(item, child)
		}
	}
}

// json walks a JSON document's tokens, recording where each key and list
// item starts.
func (p *Positions) json(b []byte) bool {
	lines := lineStarts(b)
	pos := func(off int64) Position {
		// The token starts after any whitespace, comma or colon.
		for off < int64(len(b)) && strings.IndexByte(" \t\r\n,:", b[off]) >= 0 {
			off++
		}
		line := 0
		lo, hi := 0, len(lines)-1
		for lo <= hi {
			mid := (lo + hi) / 2
			if int64(lines[mid]) <= off {
				line, lo = mid, mid+1
			} else {
				hi = mid - 1
			}
		}
		return Position{line + 1, int(off) - lines[line] + 1}
	}
	type frame struct {
		object bool
		path   []string
		next   int // the next item's index, in a list
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []frame
	var pending []string // the path of the value about to be read
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return len(stack) == 0
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if top.object && pending == nil {
				if key, ok := tok.(string); ok {
					pending = append(top.path[:len(top.path):len(top.path)], key)
					p.at[strings.Join(pending, "\x00")] = pos(off)
					continue
				}
			}
			if !top.object && tok != json.Delim(']') {
				pending = append(top.path[:len(top.path):len(top.path)], strconv.Itoa(top.next))
				top.next++
				p.at[strings.Join(pending, "\x00")] = pos(off)
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{object: tok == json.Delim('{'), path: pending})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		pending = nil
	}
}

// lineStarts is the offset each line of b starts at.
func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}
