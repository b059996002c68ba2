package lambdaemu

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Family is a runtime's language.
type Family string

// The runtime families the emulator runs.
const (
	Node     Family = "nodejs"
	Python   Family = "python"
	Java     Family = "java"
	Provided Family = "provided"
)

// Runtime is a Lambda runtime identifier, as Lambda spells it: nodejs22.x,
// python3.12, java21, provided.al2023.
type Runtime struct {
	ID      string
	Family  Family
	Version string // "22", "3.12", "21", "al2023"
}

// RuntimeError is a runtime identifier Lambda does not have, or one this
// emulator cannot run.
type RuntimeError struct {
	Runtime string
	Reason  string
}

func (e *RuntimeError) Error() string {
	return fmt.Sprintf("lambdaemu: runtime %q: %s", e.Runtime, e.Reason)
}

var runtimePattern = regexp.MustCompile(`^(?:nodejs([0-9]{2})\.x|python(3\.[0-9]{1,2})|java(8\.al2|[0-9]{2})|provided(?:\.(al2|al2023))?)$`)

// ParseRuntime reads a Lambda runtime identifier.
func ParseRuntime(id string) (Runtime, error) {
	m := runtimePattern.FindStringSubmatch(id)
	if m == nil {
		return Runtime{}, &RuntimeError{Runtime: id, Reason: "not a Lambda runtime identifier (nodejs22.x, nodejs24.x, python3.12, java21, provided.al2023, …)"}
	}
	switch {
	case m[1] != "":
		return Runtime{ID: id, Family: Node, Version: m[1]}, nil
	case m[2] != "":
		return Runtime{ID: id, Family: Python, Version: m[2]}, nil
	case m[3] != "":
		if m[3] == "8.al2" {
			return Runtime{}, &RuntimeError{Runtime: id, Reason: "Java 8 is past Lambda's support; use java17 or later"}
		}
		return Runtime{ID: id, Family: Java, Version: m[3]}, nil
	}
	v := m[4]
	if v == "" {
		v = "al1"
	}
	return Runtime{ID: id, Family: Provided, Version: v}, nil
}

// Clients are the runtime interface clients and SDKs a runtime needs, as
// Lambda's managed runtimes provide them: installed once per cache folder
// from the registries that serve them.
type Clients struct {
	// Cache is the folder they are installed in.
	Cache string
	// Node is the node to run nodejs runtimes with ("" finds it on PATH);
	// Python and Java likewise.
	Node, Python, Java string
}

// The versions of the runtime interface clients and of the SDK each managed
// runtime carries, pinned so that a conformance run is repeatable.
const (
	NodeRICVersion   = "4.0.2"    // npm aws-lambda-ric
	NodeSQSVersion   = "3.1175.0" // npm @aws-sdk/client-sqs
	PythonRICVersion = "4.2.2"    // PyPI awslambdaric
	PythonSDKVersion = "1.44.5"   // PyPI boto3
	JavaRICVersion   = "2.10.1"   // Maven com.amazonaws:aws-lambda-java-runtime-interface-client
)

// Command is the command and environment that start handler from dir under
// the runtime, installing the runtime's client into the cache when missing.
func (c Clients) Command(rt Runtime, handler, dir string) (cmd []string, env []string, err error) {
	cmd, env, err = c.command(rt, handler, dir)
	if err != nil {
		return nil, nil, err
	}
	return cmd, append(env, "_HANDLER="+handler, "LAMBDA_TASK_ROOT="+dir, "AWS_EXECUTION_ENV=AWS_Lambda_"+rt.ID), nil
}

func (c Clients) command(rt Runtime, handler, dir string) (cmd []string, env []string, err error) {
	switch rt.Family {
	case Node:
		node, err := c.binary(c.Node, "node", rt, nodeMajor)
		if err != nil {
			return nil, nil, err
		}
		mods, err := c.nodeModules(node)
		if err != nil {
			return nil, nil, err
		}
		return []string{node, "--import", sdkResolver(filepath.Dir(mods)), filepath.Join(mods, "aws-lambda-ric", "index.mjs"), handler},
			[]string{"NODE_PATH=" + mods}, nil
	case Python:
		py, err := c.binary(c.Python, "python3", rt, pythonMinor)
		if err != nil {
			return nil, nil, err
		}
		site, err := c.pythonSite(py)
		if err != nil {
			return nil, nil, err
		}
		return []string{py, "-m", "awslambdaric", handler}, []string{"PYTHONPATH=" + dir + string(os.PathListSeparator) + site}, nil
	case Java:
		java, err := c.binary(c.Java, "java", rt, javaMajor)
		if err != nil {
			return nil, nil, err
		}
		jars, err := c.javaClients()
		if err != nil {
			return nil, nil, err
		}
		// Lambda's Java runtime reads a folder's classes and lib/*.jar; a team may also hand over its (fat) jar.
		cp := strings.Join([]string{dir, filepath.Join(dir, "lib", "*"), filepath.Join(dir, "*"), filepath.Join(jars, "*")}, string(os.PathListSeparator))
		return []string{java, "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-cp", cp,
			"com.amazonaws.services.lambda.runtime.api.client.AWSLambda", handler}, nil, nil
	}
	boot := filepath.Join(dir, "bootstrap")
	if fi, err := os.Stat(boot); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, nil, &RuntimeError{Runtime: rt.ID, Reason: "the folder has no executable bootstrap, which a provided runtime runs"}
	}
	return []string{boot}, nil, nil
}

// sdkResolver is a module for node --import that lets an ES module handler
// import the SDK the runtime carries, as Lambda's Node.js runtimes let it:
// NODE_PATH serves require, and this resolve hook serves import, trying a
// bare specifier the handler's folder cannot resolve again from dir (the
// cache folder holding node_modules).
func sdkResolver(dir string) string {
	base, _ := json.Marshal((&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "lambdaemu-resolver.mjs"))}).String())
	hooks := `export async function resolve(s, c, next) {
  try { return await next(s, c); } catch (e) {
    if (e?.code !== "ERR_MODULE_NOT_FOUND" || /^([./]|[a-z]+:)/.test(s)) throw e;
    return next(s, { ...c, parentURL: ` + string(base) + ` });
  }
}`
	return "data:text/javascript," + url.PathEscape(`import { register } from "node:module"; register("data:text/javascript,`+url.PathEscape(hooks)+`");`)
}

// binary finds the interpreter (given, or name on PATH) and checks that it
// runs. Its version may differ from the runtime's (Node 24 for nodejs22.x):
// the protocol a handler must keep does not depend on it.
func (c Clients) binary(given, name string, rt Runtime, version func(string) (string, error)) (string, error) {
	path := given
	if path == "" {
		var err error
		if path, err = exec.LookPath(name); err != nil {
			return "", &RuntimeError{Runtime: rt.ID, Reason: name + " is not on PATH"}
		}
	}
	if _, err := version(path); err != nil {
		return "", &RuntimeError{Runtime: rt.ID, Reason: "cannot run " + path}
	}
	return path, nil
}

func nodeMajor(node string) (string, error) {
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	return strings.TrimSpace(string(out)), err
}

func pythonMinor(py string) (string, error) {
	out, err := exec.Command(py, "-c", "import sys;print('%d.%d'%sys.version_info[:2])").Output()
	return strings.TrimSpace(string(out)), err
}

func javaMajor(java string) (string, error) {
	out, err := exec.Command(java, "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`java\.specification\.version = ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		return "", errors.New("no java.specification.version")
	}
	return string(m[1]), nil
}

// InstallOnce runs install into dir once: a finished install leaves a stamp.
// Several processes may race to install one folder (parallel CI jobs): each
// installs into its own temporary folder and renames it into place, and a
// loser of the rename uses the winner's.
func InstallOnce(dir, stamp string, install func(tmp string) error) (string, error) {
	done := func() bool { _, err := os.Stat(filepath.Join(dir, stamp)); return err == nil }
	if done() {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := install(tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, stamp), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil && !done() {
		// An unfinished folder from an interrupted run: replace it.
		_ = os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil && !done() {
			return "", err
		}
	}
	return dir, nil
}

func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tail := out
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fmt.Errorf("lambdaemu: %s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail)
	}
	return nil
}

// nodeModules installs aws-lambda-ric and the SQS client of the SDK v3, as
// Lambda's nodejs runtimes carry them, and returns their node_modules.
func (c Clients) nodeModules(node string) (string, error) {
	dir, err := InstallOnce(filepath.Join(c.Cache, "nodejs-"+NodeRICVersion), ".installed", func(tmp string) error {
		npm := filepath.Join(filepath.Dir(node), "npm")
		if _, err := os.Stat(npm); err != nil {
			npm = "npm"
		}
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private":true}`), 0o644); err != nil {
			return err
		}
		return run(tmp, npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
			"aws-lambda-ric@"+NodeRICVersion, "@aws-sdk/client-sqs@"+NodeSQSVersion)
	})
	return filepath.Join(dir, "node_modules"), err
}

// pythonSite installs awslambdaric and boto3, as Lambda's python runtimes
// carry them.
func (c Clients) pythonSite(py string) (string, error) {
	return InstallOnce(filepath.Join(c.Cache, "python-"+PythonRICVersion), ".installed", func(tmp string) error {
		return run(tmp, py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", tmp,
			"awslambdaric=="+PythonRICVersion, "boto3=="+PythonSDKVersion)
	})
}

// javaClients copies the Java runtime interface client and its dependencies
// from Maven Central.
func (c Clients) javaClients() (string, error) {
	return InstallOnce(filepath.Join(c.Cache, "java-"+JavaRICVersion), ".installed", func(tmp string) error {
		pom := `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local</groupId><artifactId>ric</artifactId><version>1</version><packaging>pom</packaging>
<dependencies><dependency><groupId>com.amazonaws</groupId><artifactId>aws-lambda-java-runtime-interface-client</artifactId><version>` + JavaRICVersion + `</version></dependency></dependencies></project>`
		if err := os.WriteFile(filepath.Join(tmp, "pom.xml"), []byte(pom), 0o644); err != nil {
			return err
		}
		if err := run(tmp, "mvn", "-q", "dependency:copy-dependencies", "-DoutputDirectory=."); err != nil {
			return err
		}
		return os.Remove(filepath.Join(tmp, "pom.xml"))
	})
}
