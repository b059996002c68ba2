package cfnmodel

import (
	"maps"
	"strconv"
	"strings"
)

// SetParams sets the parameter values a deploy passes and resolves every
// template under them.
func (a *Assembly) SetParams(p map[string]string) {
	if maps.Equal(a.Params, p) {
		return
	}
	a.Params = p
	a.resolveAll()
}

// SetAssume decides the conditions values leave unknown, for one judgement
// under one deploy, and resolves every template under them (nil: none).
func (a *Assembly) SetAssume(assume map[*Template]map[string]bool) {
	if a.Assume == nil && assume == nil {
		return
	}
	a.Assume = assume
	a.resolveAll()
}

// noValue is AWS::NoValue once resolved: the property or element is removed.
type noValue struct{}

// resolveAll rebuilds every template's Resources and Outputs as
// CloudFormation resolves them under the parameters and assumptions: a
// resource whose condition is false is not created; Fn::If with a known
// condition is its branch; AWS::NoValue removes its property or element;
// Fn::FindInMap, Fn::Split and Fn::Select over known values are their
// result. What stays unknown stays as written (Ident renders it unknown).
func (a *Assembly) resolveAll() {
	a.exports, a.attached = map[string]exported{}, nil
	for _, t := range a.Templates {
		for _, o := range t.rawOutputs {
			if n, ok := o.Export.Name.(string); ok {
				a.exports[n] = exported{t, o.Value}
			}
		}
	}
	for _, t := range a.Templates { // parents before the stacks they nest
		t.patterns, t.sortedIDs = nil, nil
		if t.parent != nil {
			t.parentParams, _ = t.parent.Resources[t.nestedID].Properties["Parameters"].(map[string]any)
		}
		res := make(map[string]Resource, len(t.raw))
		for id, r := range t.raw {
			if r.Condition != "" {
				if made, known := a.Condition(t, r.Condition); known && !made {
					continue // not created under this deploy
				}
			}
			props, _ := a.resolve(t, r.Properties, 0).(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			r.Properties = props
			res[id] = r
		}
		t.Resources = res
		outs := make(map[string]Output, len(t.rawOutputs))
		for id, o := range t.rawOutputs {
			o.Value = a.resolve(t, o.Value, 0)
			outs[id] = o
		}
		t.Outputs = outs
	}
	for _, t := range a.Templates {
		for _, o := range t.Outputs {
			if n, ok := o.Export.Name.(string); ok {
				a.exports[n] = exported{t, o.Value}
			}
		}
	}
}

func (a *Assembly) resolve(t *Template, v any, depth int) any {
	if depth > maxIdentDepth*4 {
		return v
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if r := a.resolve(t, e, depth+1); r != (noValue{}) {
				out = append(out, r)
			}
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			if r, ok := a.intrinsic(t, x, depth); ok {
				return r
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if r := a.resolve(t, e, depth+1); r != (noValue{}) {
				out[k] = r
			}
		}
		return out
	}
	return v
}

// intrinsic resolves the intrinsics whose result is a value of the
// template's structure; ok is false for any other one-key map.
func (a *Assembly) intrinsic(t *Template, x map[string]any, depth int) (any, bool) {
	for fn, arg := range x {
		if fn != "Ref" && !strings.HasPrefix(fn, "Fn::") {
			return nil, false
		}
		args, _ := arg.([]any)
		switch fn {
		case "Ref":
			if arg == "AWS::NoValue" {
				return noValue{}, true
			}
			return x, true
		case "Fn::If":
			if len(args) != 3 {
				return x, true
			}
			name, _ := args[0].(string)
			if v, known := a.Condition(t, name); known {
				if v {
					return a.resolve(t, args[1], depth+1), true
				}
				return a.resolve(t, args[2], depth+1), true
			}
			return map[string]any{"Fn::If": []any{args[0], a.resolve(t, args[1], depth+1), a.resolve(t, args[2], depth+1)}}, true
		case "Fn::FindInMap":
			if v, ok := a.findInMap(t, args, depth); ok {
				return a.resolve(t, v, depth+1), true
			}
		case "Fn::Split":
			if list, ok := a.split(t, args, depth); ok {
				return list, true
			}
		case "Fn::Select":
			if len(args) == 2 {
				list := a.resolve(t, args[1], depth+1)
				if l, ok := list.([]any); ok {
					if i, err := strconv.Atoi(a.identAt(t, a.resolve(t, args[0], depth+1), depth+1, false)); err == nil && i >= 0 && i < len(l) {
						return l[i], true
					}
				}
				if l := a.listParameter(t, list); l != nil {
					if i, err := strconv.Atoi(a.identAt(t, args[0], depth+1, false)); err == nil && i >= 0 && i < len(l) {
						return l[i], true
					}
				}
			}
		}
		return map[string]any{fn: a.resolve(t, arg, depth+1)}, true
	}
	return nil, false
}

// findInMap looks up [MapName, TopKey, SecondKey] in the template's Mappings,
// each key as CloudFormation resolves it.
func (a *Assembly) findInMap(t *Template, args []any, depth int) (any, bool) {
	if len(args) < 3 {
		return nil, false
	}
	var keys [3]string
	for i := range keys {
		keys[i] = a.identAt(t, a.resolve(t, args[i], depth+1), depth+1, false)
		if keys[i] == "" || IsResourceIdent(keys[i]) {
			return nil, false
		}
	}
	top, _ := t.Mappings[keys[0]].(map[string]any)
	second, _ := top[keys[1]].(map[string]any)
	v, ok := second[keys[2]]
	return v, ok
}

// split is Fn::Split [delimiter, source] over a known string, as a list.
func (a *Assembly) split(t *Template, args []any, depth int) ([]any, bool) {
	if len(args) != 2 {
		return nil, false
	}
	sep, _ := args[0].(string)
	src := a.identAt(t, a.resolve(t, args[1], depth+1), depth+1, false)
	if sep == "" || src == "" || IsResourceIdent(src) {
		return nil, false
	}
	var out []any
	for _, p := range strings.Split(src, sep) {
		out = append(out, p)
	}
	return out, true
}

// listParameter is the value of a Ref to a list-typed parameter
// (CommaDelimitedList, List<…>), split at its commas; nil otherwise.
func (a *Assembly) listParameter(t *Template, v any) []any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil
	}
	name, _ := m["Ref"].(string)
	decl, ok := t.Parameters[name].(map[string]any)
	if !ok {
		return nil
	}
	if typ, _ := decl["Type"].(string); typ != "CommaDelimitedList" && !strings.HasPrefix(typ, "List<") {
		return nil
	}
	s := a.identAt(t, m, 0, false)
	if s == "" {
		return nil
	}
	var out []any
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}
