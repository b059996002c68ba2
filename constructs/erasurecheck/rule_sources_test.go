package erasurecheck

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var updateSources = flag.Bool("update", false, "rewrite rule_sources.go from the package's source")

// TestRuleSourcesAreCurrent: rule_sources.go, which docs/check-rules.md
// shows under each rule, is what the package's source says: the functions
// that report each rule (read with go/ast: every function or family check
// that names the rule's variable, or a map of rules it indexes) and the
// test that holds it to its fixtures. `go test ./constructs/erasurecheck
// -run TestRuleSourcesAreCurrent -update` rewrites it.
func TestRuleSourcesAreCurrent(t *testing.T) {
	got, err := ruleSourcesFile(".")
	if err != nil {
		t.Fatal(err)
	}
	if *updateSources {
		if err := os.WriteFile("rule_sources.go", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("rule_sources.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("rule_sources.go is not the source's: go test ./constructs/erasurecheck -run TestRuleSourcesAreCurrent -args -update")
	}
	for _, r := range Rules() {
		im := r.Implementation()
		if len(im.Functions) == 0 || im.Fixture == "" {
			t.Errorf("%s (%s): no function reports it or no test holds it: %+v", r.ID, r.Name, im)
		}
		// Each rule's logic is local: a function of the file that declares it
		// (its family's, or one named for it) reports it; a construct's rule
		// is reported by the construct (constructs/erasure/plan).
		if r.Source != FromConstruct && !slices.ContainsFunc(im.Functions, func(f string) bool { return strings.HasSuffix(f, "("+im.File+")") }) {
			t.Errorf("%s (%s) is declared in %s but reported only from %v: declare it where it is reported", r.ID, r.Name, im.File, im.Functions)
		}
	}
}

// ruleSourcesFile reads the package in dir and renders rule_sources.go.
func ruleSourcesFile(dir string) ([]byte, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, 0)
	if err != nil {
		return nil, err
	}
	var files, tests []*ast.File
	var names []string
	for n := range pkgs["erasurecheck"].Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f := pkgs["erasurecheck"].Files[n]; strings.HasSuffix(n, "_test.go") {
			tests = append(tests, f)
		} else {
			files = append(files, f)
		}
	}
	// The rules' variables, by the Name each declares.
	ruleOf := map[string]string{}     // variable -> rule name
	construct := map[string]bool{}    // rule name -> applied by a construct only
	idConst := map[string]string{}    // rule name -> the constant of its id, for a construct's rule
	declaredIn := map[string]string{} // rule name -> the file that declares it
	eachVar(fset, files, func(file, variable string, v ast.Expr) {
		if name, fromConstruct, c, ok := declaredRuleID(v); ok {
			ruleOf[variable], construct[name], declaredIn[name] = name, fromConstruct, file
			if fromConstruct {
				idConst[name] = c
			}
		}
	})
	// Who names each rule: a function, a family's check, or a map of rules a
	// function indexes.
	users := map[string]map[string]bool{} // rule name -> reporters
	viaMap := map[string][]string{}       // map variable -> rule names it holds
	note := func(rule, by string) {
		if users[rule] == nil {
			users[rule] = map[string]bool{}
		}
		users[rule][by] = true
	}
	namesIn := func(n ast.Node) []string {
		var out []string
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if r, ok := ruleOf[id.Name]; ok {
					out = append(out, r)
				}
			}
			return true
		})
		return out
	}
	eachFunc(fset, files, func(file, name string, body *ast.BlockStmt) {
		for _, r := range namesIn(body) {
			note(r, name+" ("+file+")")
		}
	})
	eachVar(fset, files, func(file, variable string, v ast.Expr) {
		if lit, ok := v.(*ast.CompositeLit); ok {
			if _, isMap := lit.Type.(*ast.MapType); isMap {
				viaMap[variable] = namesIn(lit)
			}
		}
	})
	for mapVar, rules := range viaMap {
		eachFunc(fset, files, func(file, name string, body *ast.BlockStmt) {
			if mentions(body, mapVar) {
				for _, r := range rules {
					note(r, name+" via "+mapVar+" ("+file+")")
				}
			}
		})
	}
	// A construct's rule is reported by the construct's own decisions
	// (constructs/erasure/plan): the functions there that name its id.
	planFiles, err := sourcesOf(fset, filepath.Join(dir, "..", "erasure", "plan"), "plan")
	if err != nil {
		return nil, err
	}
	// ErasureChannel's and ErasureLedger's rules are named by the construct
	// package itself (constructs/erasure).
	erasureFiles, err := sourcesOf(fset, filepath.Join(dir, "..", "erasure"), "erasure")
	if err != nil {
		return nil, err
	}
	byChannel := map[string]bool{} // rule name -> named by the channel's or the ledger's construct
	for name, c := range idConst {
		eachFunc(fset, planFiles, func(file, fn string, body *ast.BlockStmt) {
			if mentions(body, c) {
				note(name, "plan."+fn+" (constructs/erasure/plan/"+file+")")
			}
		})
		eachFunc(fset, erasureFiles, func(file, fn string, body *ast.BlockStmt) {
			if mentions(body, c) {
				note(name, "erasure."+fn+" (constructs/erasure/"+file+")")
				byChannel[name] = true
			}
		})
	}
	// Which test holds each rule to its fixtures.
	fixtures, appFixtures := mapKeys(tests, "ruleFixtures"), mapKeys(tests, "appFixtureRules")
	var b bytes.Buffer
	b.WriteString("// Code generated by go test ./constructs/erasurecheck -run TestRuleSourcesAreCurrent -args -update; DO NOT EDIT.\n\n")
	b.WriteString("package erasurecheck\n\n")
	b.WriteString("// ruleSources are, by rule name, the functions that report each rule and\n// the test that holds it to its fixtures (docs/check-rules.md).\n")
	b.WriteString("var ruleSources = map[string]Implementation{\n")
	var rules []string
	for _, r := range ruleOf {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	rules = slices.Compact(rules)
	for _, name := range rules {
		r := ruleByName(name)
		if r == nil {
			return nil, fmt.Errorf("rule %s is declared in the source but not registered", name)
		}
		fixture := ""
		switch {
		case byChannel[name]:
			fixture = "constructs/erasure/refusal_rules_test.go (channelRefusals)"
		case construct[name]:
			fixture = "test/construct_rules_test.go (the refusal spec, test/testdata/subscriber-refusals.json)"
		case fixtures[r.ID]:
			fixture = "constructs/erasurecheck/rules_test.go (ruleFixtures)"
		case appFixtures[r.ID]:
			fixture = "test/rule_fixtures_test.go (the example app)"
		}
		fmt.Fprintf(&b, "\t%q: {Functions: []string{", name)
		reporters := mapsKeys(users[name])
		sort.Strings(reporters)
		for i, u := range reporters {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(u))
		}
		fmt.Fprintf(&b, "}, Fixture: %q, File: %q},\n", fixture, declaredIn[name])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// sourcesOf parses the non-test files of package pkg in dir.
func sourcesOf(fset *token.FileSet, dir, pkg string) ([]*ast.File, error) {
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		return nil, err
	}
	var out []*ast.File
	for _, f := range pkgs[pkg].Files {
		out = append(out, f)
	}
	return out, nil
}

// declaredRule reads declare(Rule{..., Name: "X", ..., Source: FromConstruct}).
func declaredRule(v ast.Expr) (name string, fromConstruct, ok bool) {
	name, fromConstruct, _, ok = declaredRuleID(v)
	return name, fromConstruct, ok
}

// declaredRuleID is declaredRule with the constant its ID names in another
// package (plan.RuleSubscriberName: "RuleSubscriberName"), "" for a literal.
func declaredRuleID(v ast.Expr) (name string, fromConstruct bool, idConst string, ok bool) {
	call, ok := v.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", false, "", false
	}
	if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "declare" {
		return "", false, "", false
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok {
		return "", false, "", false
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch kv.Key.(*ast.Ident).Name {
		case "Name":
			if bl, ok := kv.Value.(*ast.BasicLit); ok {
				name, _ = strconv.Unquote(bl.Value)
			}
		case "Source":
			if id, ok := kv.Value.(*ast.Ident); ok && id.Name == "FromConstruct" {
				fromConstruct = true
			}
		case "ID":
			if sel, ok := kv.Value.(*ast.SelectorExpr); ok {
				idConst = sel.Sel.Name
			}
		}
	}
	return name, fromConstruct, idConst, name != ""
}

// funcName is a function's name, a method's with its receiver's type.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// mentions says whether n names the identifier name.
func mentions(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// mapKeys are the string keys of the map literal assigned to the variable
// name in files.
func mapKeys(files []*ast.File, name string) map[string]bool {
	keys := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
				return true
			}
			if lit, ok := vs.Values[0].(*ast.CompositeLit); ok {
				for _, el := range lit.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if bl, ok := kv.Key.(*ast.BasicLit); ok {
							k, _ := strconv.Unquote(bl.Value)
							keys[k] = true
						}
					}
				}
			}
			return false
		})
	}
	return keys
}

func mapsKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func ruleByName(name string) *Rule {
	for _, r := range Rules() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// eachFunc calls fn with every function of files and every family's check
// (a func literal under a key of a top-level var's composite literal), each
// named as docs/check-rules.md names it, with its file and body.
func eachFunc(fset *token.FileSet, files []*ast.File, fn func(file, name string, body *ast.BlockStmt)) {
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fn(file, funcName(fd), fd.Body)
			}
		}
	}
	eachVar(fset, files, func(file, variable string, v ast.Expr) {
		lit, ok := v.(*ast.CompositeLit)
		if !ok {
			return
		}
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if fl, ok := kv.Value.(*ast.FuncLit); ok {
					fn(file, variable+"."+kv.Key.(*ast.Ident).Name, fl.Body)
				}
			}
		}
	})
}

// eachVar calls fn with every top-level var's name and value in files.
func eachVar(fset *token.FileSet, files []*ast.File, fn func(file, variable string, v ast.Expr)) {
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, v := range vs.Values {
					fn(file, vs.Names[i].Name, v)
				}
			}
		}
	}
}
