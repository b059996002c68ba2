package stacks

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ExampleHandlerPackage is the Go package of the example stores' handler.
const ExampleHandlerPackage = "github.com/linn-cloud/erasure-channel/cmd/example-store"

var (
	buildMu    sync.Mutex
	buildCache = map[string]string{}
)

// BuildHandler compiles a Go Lambda handler package for provided.al2023 on
// arm64 into a directory holding one file, bootstrap, and returns that
// directory: the asset awslambda.Code_FromAsset takes. The build is
// reproducible (-trimpath, no VCS stamp), so the asset hash changes only when
// the handler does. Go does not cache linked executables, and linking costs
// seconds, so an existing bootstrap newer than every Go source, go.mod and
// go.sum of the module is reused; otherwise it builds once per process.
func BuildHandler(pkg string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if dir, ok := buildCache[pkg]; ok {
		return dir, nil
	}
	dir := filepath.Join(os.TempDir(), "erasure-channel-handlers", filepath.Base(pkg))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if fresh(filepath.Join(dir, "bootstrap")) {
		buildCache[pkg] = dir
		return dir, nil
	}
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid=", "-o", filepath.Join(dir, "bootstrap"), pkg)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("stacks: building handler %s: %v\n%s", pkg, err, out)
	}
	buildCache[pkg] = dir
	return dir, nil
}

// fresh reports whether bin exists and is newer than every input of the
// module it is built from (its Go files, go.mod and go.sum), searched from
// the module root above the working directory.
func fresh(bin string) bool {
	st, err := os.Stat(bin)
	if err != nil {
		return false
	}
	built := st.ModTime()
	root, err := moduleRoot()
	if err != nil {
		return false
	}
	newer := false
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || newer {
			return filepath.SkipAll
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "cdk.out", ".git", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".json") && filepath.Base(filepath.Dir(path)) == "schema" {
			if info, err := d.Info(); err == nil && info.ModTime().After(built) {
				newer = true
			}
		}
		return nil
	})
	return !newer
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/linn-cloud/erasure-channel\n") {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("stacks: not inside the erasure-channel module")
		}
		dir = parent
	}
}
