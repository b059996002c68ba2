package stacks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// the handler does. It builds once per package per process.
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
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid=", "-o", filepath.Join(dir, "bootstrap"), pkg)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("stacks: building handler %s: %v\n%s", pkg, err, out)
	}
	buildCache[pkg] = dir
	return dir, nil
}
