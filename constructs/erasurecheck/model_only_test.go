package erasurecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRulesSeeTemplatesOnlyThroughTheModel: no rule of the check, and neither
// the IAM evaluator nor the channel's policy declarations, reads a template's
// intrinsic nodes by their written form. Each asks cfnmodel what a value
// resolves to and what a reference points at. The test reads every
// non-test source of the packages and fails on a string literal that names
// an intrinsic ("Ref", "Fn::…") and on a call to the model's written-form
// readers (RefID, RefersTo, Mentions), which only the model itself may use.
func TestRulesSeeTemplatesOnlyThroughTheModel(t *testing.T) {
	written := map[string]bool{"RefID": true, "RefersTo": true, "Mentions": true}
	for _, dir := range []string{".", "../iameval", "../channelpolicy"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BasicLit:
					if x.Kind == token.STRING {
						if s, err := strconv.Unquote(x.Value); err == nil && (s == "Ref" || strings.HasPrefix(s, "Fn::")) {
							t.Errorf("%s: the intrinsic %q written out: ask cfnmodel (Names, Targets, ResourceNamed, FunctionBehind, Ident, LowerBound; Ref and GetAtt to ask about a resource)", fset.Position(x.Pos()), s)
						}
					}
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "cfnmodel" && written[x.Sel.Name] {
						t.Errorf("%s: cfnmodel.%s reads a reference by its written form: ask the model what it resolves to", fset.Position(x.Pos()), x.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
