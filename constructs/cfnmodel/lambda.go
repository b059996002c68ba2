package cfnmodel

import (
	"strings"
)

// Lambda's FunctionName (of an event source mapping, a permission, a
// subscription) takes a function's name, its ARN or a partial ARN, each
// optionally qualified by an alias or a version (name:live). CDK writes an
// alias's as Fn::Join [Fn::Select [6, Fn::Split [":", Ref Alias]], ":live"]
// and a version's from Ref Function and Fn::GetAtt Version.Version; plain
// templates write Fn::Sub "${Function}:live", a Ref of the alias, a literal.
// FunctionBehind reads every one of them as Lambda does.

// lambdaToken stands for a function of the assembly inside a rendered name:
// it holds no ":" so that Fn::Split and Fn::Select over an ARN keep it whole.
const lambdaTokenOpen, lambdaTokenClose = "\u27eafn|", "\u27eb"

// lambdaQualifier stands for a version or alias the model cannot name.
const lambdaQualifier = "\u27eaq\u27eb"

func lambdaToken(t *Template, id string) string {
	return lambdaTokenOpen + t.Path + "|" + id + lambdaTokenClose
}

// FunctionBehind is the AWS::Lambda::Function of the assembly that v, a
// Lambda FunctionName as CloudFormation resolves it in t, invokes: through
// an alias or a version to its function, by reference in any form, by its
// name or ARN (qualified or not). ok is false when v names no function of
// the assembly (another app's, or a value only deploy knows).
func (a *Assembly) FunctionBehind(t *Template, v any) (*Template, string, bool) {
	return a.functionBehind(t, v, 0)
}

func (a *Assembly) functionBehind(t *Template, v any, depth int) (*Template, string, bool) {
	if depth > 4 {
		return nil, "", false
	}
	s := a.Ident(t, a.lambdaRendered(t, v, depth))
	if s == "" {
		return nil, "", false
	}
	if ref, ok := a.ResourceOf(s); ok { // a resource by reference
		rt, id := ref.Template, ref.ID
		switch rt.Resources[id].Type {
		case "AWS::Lambda::Function":
			return rt, id, true
		case "AWS::Lambda::Alias", "AWS::Lambda::Version":
			return a.functionBehind(rt, rt.Resources[id].Properties["FunctionName"], depth+1)
		}
		return nil, "", false
	}
	// An ARN, a partial ARN or a name, with its qualifier.
	name := s
	if i := strings.Index(name, ":function:"); i >= 0 {
		name = name[i+len(":function:"):]
	}
	name, _, _ = strings.Cut(name, ":")
	if rest, ok := strings.CutPrefix(name, lambdaTokenOpen); ok {
		path, id, _ := strings.Cut(strings.TrimSuffix(rest, lambdaTokenClose), "|")
		if rt := a.TemplateAt(path); rt != nil && rt.Resources[id].Type == "AWS::Lambda::Function" {
			return rt, id, true
		}
		return nil, "", false
	}
	if rt, id, ok := a.ByAlias(FunctionARN(t, name), "AWS::Lambda::Function"); ok {
		return rt, id, true
	}
	return a.ResourceNamed(t, name, "AWS::Lambda::Function")
}

// lambdaRendered is v with every reference to a function, alias or version
// of t written as Lambda names it: a function's Ref as its name (a token),
// its Arn, an alias's Ref and AliasArn, a version's Ref as qualified ARNs,
// and a version's Version attribute; Fn::Sub's own references likewise. What
// is left CloudFormation's other intrinsics resolve (Ident).
func (a *Assembly) lambdaRendered(t *Template, v any, depth int) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = a.lambdaRendered(t, e, depth)
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			if sub, ok := x["Fn::Sub"]; ok {
				return map[string]any{"Fn::Sub": a.lambdaSub(t, sub, depth)}
			}
			if id := RefID(x); id != "" {
				attr := ""
				switch ga := x["Fn::GetAtt"].(type) {
				case []any:
					if len(ga) == 2 {
						attr, _ = ga[1].(string)
					}
				case string:
					_, attr, _ = strings.Cut(ga, ".")
				}
				if s, ok := a.lambdaName(t, id, attr, x["Ref"] != nil, depth); ok {
					return s
				}
				return x
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = a.lambdaRendered(t, e, depth)
		}
		return out
	}
	return v
}

// lambdaSub renders Fn::Sub's ${X} and ${X.Attr} of Lambda resources.
func (a *Assembly) lambdaSub(t *Template, sub any, depth int) any {
	render := func(text string, vars map[string]any) string {
		return subVar.ReplaceAllStringFunc(text, func(m string) string {
			name := m[2 : len(m)-1]
			if _, shadowed := vars[name]; shadowed {
				return m
			}
			base, attr, _ := strings.Cut(name, ".")
			if s, ok := a.lambdaName(t, base, attr, attr == "", depth); ok {
				return s
			}
			return m
		})
	}
	switch s := sub.(type) {
	case string:
		return render(s, nil)
	case []any:
		if len(s) == 2 {
			text, _ := s[0].(string)
			vars, _ := s[1].(map[string]any)
			rendered := make(map[string]any, len(vars))
			for k, e := range vars {
				rendered[k] = a.lambdaRendered(t, e, depth)
			}
			return []any{render(text, vars), rendered}
		}
	}
	return sub
}

// lambdaName is how Lambda names a reference to resource id of t (Ref when
// ref, else Fn::GetAtt attr), where id is a function, alias or version.
func (a *Assembly) lambdaName(t *Template, id, attr string, ref bool, depth int) (string, bool) {
	r, ok := t.Resources[id]
	if !ok {
		return "", false
	}
	region, account := t.Region, t.Account
	if region == "" {
		region = "*"
	}
	if account == "" {
		account = "*"
	}
	arn := "arn:aws:lambda:" + region + ":" + account + ":function:"
	function := func() (string, bool) {
		ft, fid, ok := a.functionBehind(t, r.Properties["FunctionName"], depth+1)
		if !ok {
			return "", false
		}
		return lambdaToken(ft, fid), true
	}
	switch r.Type {
	case "AWS::Lambda::Function":
		switch {
		case ref:
			return lambdaToken(t, id), true
		case attr == "Arn":
			return arn + lambdaToken(t, id), true
		}
	case "AWS::Lambda::Version":
		f, ok := function()
		switch {
		case !ok:
		case ref:
			return arn + f + ":" + lambdaQualifier, true
		case attr == "Version":
			return lambdaQualifier, true
		}
	case "AWS::Lambda::Alias":
		f, ok := function()
		name := a.Ident(t, r.Properties["Name"])
		if name == "" {
			name = lambdaQualifier
		}
		if ok && (ref || attr == "AliasArn") {
			return arn + f + ":" + name, true
		}
	}
	return "", false
}
