package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageBindingsForEveryJsiiLanguage: jsii-pacmak --code-only makes
// the erasure-channel-constructs package's Python, C#, Java and Go sources
// from its .jsii assembly, each with ErasureSubscriber and its props; and a
// Go CDK app on the generated Go binding (testdata/gobinding: the jsii
// kernel loads the package, WebAssembly and applier inside, as it loads
// aws-cdk-lib) builds the Go app's templates for two stores, beside the
// repository's own channel. The built artifacts of every language but C#
// are run from outside the repository by TestOutsideInEveryLanguage.
func TestPackageBindingsForEveryJsiiLanguage(t *testing.T) {
	t.Parallel()
	root, node, bin := benchApp(t)
	pkg := filepath.Join(root, "constructs", "typescript")
	if _, err := os.Stat(filepath.Join(pkg, ".jsii")); err != nil {
		t.Fatal("the package's .jsii assembly is not built: make tools packs the package")
	}
	out := t.TempDir()
	runIn(t, pkg, "jsii-pacmak", nil, filepath.Join(pkg, "node_modules", ".bin", "jsii-pacmak"), "--code-only", "--outdir", out)
	for _, f := range []struct{ path, has string }{
		{"python/src/erasure_channel_constructs/__init__.py", "class ErasureSubscriber("},
		{"python/src/erasure_channel_constructs/__init__.py", "class ErasureSubscriberProps:"},
		{"dotnet/LinnCloud.ErasureChannel.Constructs/LinnCloud/ErasureChannel/Constructs/ErasureSubscriber.cs", "public class ErasureSubscriber : Constructs.Construct"},
		{"java/src/main/java/com/linncloud/erasurechannel/constructs/ErasureSubscriber.java", "public class ErasureSubscriber extends software.constructs.Construct"},
		{"go/erasurechannelconstructs/ErasureSubscriber.go", "func NewErasureSubscriber("},
	} {
		b, err := os.ReadFile(filepath.Join(out, f.path))
		if err != nil {
			t.Errorf("jsii-pacmak made no %s: %v", f.path, err)
			continue
		}
		if !strings.Contains(string(b), f.has) {
			t.Errorf("%s has no %q", f.path, f.has)
		}
	}

	// The Go binding, used by a Go app.
	app := t.TempDir()
	src, err := os.ReadFile(filepath.Join(root, "test", "testdata", "gobinding", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module gobinding\n\ngo 1.26\n\nrequire (\n\tgithub.com/linn-cloud/erasure-channel v0.0.0\n" +
		"\tgithub.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs v0.0.0\n)\n\n" +
		"replace github.com/linn-cloud/erasure-channel => " + root + "\n\n" +
		"replace github.com/linn-cloud/erasure-channel-constructs-go/erasurechannelconstructs => " + filepath.Join(out, "go", "erasurechannelconstructs") + "\n"
	for name, body := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(app, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runIn(t, app, "go mod tidy", nil, "go", "mod", "tidy")
	runIn(t, app, "go build", nil, "go", "build", "-o", "app", ".")
	ctx := benchContext(t, root, 2, map[string]any{"erasure:examples": false, "erasure:check": false})
	goOut, bindingOut := t.TempDir(), t.TempDir()
	jsiiEnv := []string{"CDK_CONTEXT_JSON=" + ctx, "JSII_NODE=" + node, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1"}
	runIn(t, root, "the Go app", append(jsiiEnv, "CDK_OUTDIR="+goOut), bin)
	runIn(t, root, "the app on the Go binding", append(jsiiEnv, "CDK_OUTDIR="+bindingOut), filepath.Join(app, "app"))
	if b, err := exec.Command(node, filepath.Join(root, "tools", "bench", "compare.mjs"), goOut, bindingOut).CombinedOutput(); err != nil {
		t.Fatalf("the app on the generated Go binding did not build the Go app's templates:\n%s", b)
	} else {
		t.Log(strings.TrimSpace(string(b)))
	}
}
