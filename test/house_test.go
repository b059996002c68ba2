package test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The house's sizes (issue 57): no Go file of constructs/ or contract/ past
// maxFileLines, and no function of their code or their tests past
// maxFuncLines (a test's table of cases is a variable, not a function), so
// that each decision reads on its own.
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

// modulePath is this module's import path.
const modulePath = "github.com/linn-cloud/erasure-channel"

// room is one room of docs/layout.md's "Who may call whom": a package, or
// a package and everything under it (written with /...), and the rooms it
// may import.
type room struct {
	name    string
	imports map[string]bool
}

// contains says whether pkg (a path inside the module) is in the room.
func (r room) contains(pkg string) bool {
	if base, ok := strings.CutSuffix(r.name, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == r.name
}

// readRooms reads the rooms block of docs/layout.md.
func readRooms(t *testing.T) []room {
	f, err := os.Open("../docs/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rooms []room
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "```rooms":
			in = true
		case in && line == "```":
			in = false
		case in:
			name, allowed, ok := strings.Cut(line, "->")
			if !ok {
				t.Fatalf("docs/layout.md: a room line is ROOM -> ROOMS…: %q", line)
			}
			r := room{name: strings.TrimSpace(name), imports: map[string]bool{}}
			for _, a := range strings.Fields(allowed) {
				r.imports[a] = true
			}
			rooms = append(rooms, r)
		}
	}
	if len(rooms) < 20 {
		t.Fatalf("docs/layout.md has %d rooms in its rooms block", len(rooms))
	}
	return rooms
}

// roomOf is the room holding pkg: an exact room before one ending in /...,
// the longest of those.
func roomOf(rooms []room, pkg string) (room, bool) {
	var best room
	found := false
	for _, r := range rooms {
		if r.name == pkg {
			return r, true
		}
		if r.contains(pkg) && (!found || len(r.name) > len(best.name)) {
			best, found = r, true
		}
	}
	return best, found
}

// TestRoomsImportOnlyWhatLayoutAllows: every package of the module is in a
// room of docs/layout.md, and imports (test files aside) only its own room
// and the rooms written after its arrow.
func TestRoomsImportOnlyWhatLayoutAllows(t *testing.T) {
	rooms := readRooms(t)
	for _, r := range rooms {
		for a := range r.imports {
			if _, ok := roomOf(rooms, strings.TrimSuffix(a, "/...")); !ok {
				t.Errorf("docs/layout.md: room %s may import %s, which is no room", r.name, a)
			}
		}
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], modulePath+"/")
		if !ok {
			pkg = strings.TrimPrefix(fields[0], modulePath)
		}
		packages++
		home, ok := roomOf(rooms, pkg)
		if !ok {
			t.Errorf("%s is in no room of docs/layout.md's \"Who may call whom\": write its room and what it may import", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, inModule := strings.CutPrefix(imp, modulePath+"/")
			if !inModule {
				continue
			}
			there, ok := roomOf(rooms, dep)
			if !ok || there.name != home.name && !home.imports[there.name] {
				t.Errorf("%s imports %s: docs/layout.md does not let room %s import it", pkg, dep, home.name)
			}
		}
	}
	if packages < 40 {
		t.Fatalf("only %d packages listed", packages)
	}
}
