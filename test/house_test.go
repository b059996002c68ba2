package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The house's sizes (issue 57): no Go file of constructs/ or contract/ past
// maxFileLines, and no function of their code (tests' tables aside) past
// maxFuncLines, so that each decision reads on its own.
const (
	maxFileLines = 1000
	maxFuncLines = 150
)

// TestNoRoomTooBig: every Go file under constructs/ and contract/ is parsed
// and measured, not listed: a new file or function past its size fails.
func TestNoRoomTooBig(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, root := range []string{"../constructs", "../contract"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			files++
			if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
				t.Errorf("%s has %d lines: past %d, split it by what it decides", p, n, maxFileLines)
			}
			if strings.HasSuffix(p, "_test.go") {
				return nil
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
					if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
						t.Errorf("%s: %s has %d lines: past %d, split it by what it decides", p, fn.Name.Name, n, maxFuncLines)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files read", files)
	}
}
