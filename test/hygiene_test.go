package test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// trackedFileLimit is the largest file the repository may track outside the
// fixture folders: anything bigger is build output or data that belongs elsewhere.
const trackedFileLimit = 1 << 20

// fixturePaths are where raw-byte fixtures live; their files are exempt from
// the size and executable checks (a fixture may look like anything).
var fixturePaths = []string{"schema/fixtures/", "testdata/"}

// executableMagic are the leading bytes of compiled executables: ELF,
// Mach-O (both byte orders, 32/64-bit, universal) and PE/COFF.
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("MZ"),
}

// TestNoBuildOutputTracked: no tracked file is a compiled executable or
// larger than 1 MiB (fixtures excepted by path), so a stray `go build` at the
// top level cannot land in the repository again.
func TestNoBuildOutputTracked(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" || isFixture(name) {
			continue
		}
		if problem := buildOutputProblem(filepath.Join(root, name)); problem != "" {
			t.Errorf("%s: %s; remove it from git and ignore its path", name, problem)
		}
	}
}

func isFixture(name string) bool {
	for _, p := range fixturePaths {
		if strings.HasPrefix(name, p) || strings.Contains(name, "/"+p) {
			return true
		}
	}
	return false
}

// buildOutputProblem says why a file looks like build output, or "" if it does not.
func buildOutputProblem(path string) string {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return "" // deleted in the work tree, or a symlink: nothing to judge
	}
	if info.Size() > trackedFileLimit {
		return fmt.Sprintf("%d bytes, above the %d-byte limit", info.Size(), trackedFileLimit)
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.Read(head)
	for _, magic := range executableMagic {
		if bytes.HasPrefix(head[:n], magic) {
			return "a compiled executable"
		}
	}
	return ""
}

// TestBuildOutputDetector: the detector itself recognises an executable and
// an oversized file, and passes a source file.
func TestBuildOutputDetector(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	self, err := os.Executable() // this test binary: a real executable of this platform
	if err != nil {
		t.Fatal(err)
	}
	if got := buildOutputProblem(self); got == "" {
		t.Error("the running test binary was not recognised as build output")
	}
	if got := buildOutputProblem(write("big.json", bytes.Repeat([]byte(" "), trackedFileLimit+1))); !strings.Contains(got, "above") {
		t.Errorf("oversized file: %q", got)
	}
	if got := buildOutputProblem(write("main.go", []byte("package main\n"))); got != "" {
		t.Errorf("source file judged %q", got)
	}
	if !isFixture("schema/fixtures/x.bin") || !isFixture("cmd/erasurectl/testdata/a") || isFixture("stacks/app/main.go") {
		t.Error("fixture path exemption is wrong")
	}
}
