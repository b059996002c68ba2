package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookCases are the exceptions a CDK app may end with, as jsii raises them,
// and what the release's hooks (the wheel's refusal hook, the jar's RunApp)
// must print: a refusal once and without the kernel's copy, CDK's
// "Validation failed" after its report as one line, anything else with its
// whole trace.
var hookCases = []struct {
	name, message, want string
	trace               bool // the language's own trace stays
}{
	{"refusal", "ValidationFailedWithErrors: Validation failed with the following errors:\n  [S/ErasureSubscriber] EC201 ErasureSubscriber[s].handlerTimeout: AboveCap: 61 is above the cap of 60\n  Fix: Set handlerTimeout to at most 60 s.\n@jsii/kernel.RuntimeError: ValidationFailedWithErrors: again\n    at Kernel.invoke (program.js:1:1)",
		"ValidationFailedWithErrors: Validation failed with the following errors:\n  [S/ErasureSubscriber] EC201 ErasureSubscriber[s].handlerTimeout: AboveCap: 61 is above the cap of 60\n  Fix: Set handlerTimeout to at most 60 s.", false},
	{"report", "ValidationFailed: Validation failed. A copy of this report can be found in: cdk.out/validation-report.json\n@jsii/kernel.RuntimeError: again",
		"ValidationFailed: Validation failed. A copy of this report can be found in: cdk.out/validation-report.json", false},
	{"another error", "Cannot find asset at handler", "Cannot find asset at handler", true},
	{"another construct's rule", "ValidationFailedWithErrors: Validation failed with the following errors:\n  [S/Other] EC201 OtherConstruct[x].y: Z",
		"[S/Other] EC201 OtherConstruct[x].y: Z", true},
}

// TestReleaseHooksShortenOnlyTheChannelsRefusals runs the wheel's hook
// (tools/release/refusal_hook.py) in Python and the jar's RunApp in Java on
// each hookCase: the exit code is 1, a refusal or a report's failure is
// printed alone, and anything else keeps its trace; ERASURE_CHANNEL_TRACE=1
// keeps every trace.
func TestReleaseHooksShortenOnlyTheChannelsRefusals(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	classes := t.TempDir()
	app := filepath.Join(classes, "Thrower.java")
	if err := os.WriteFile(app, []byte("public class Thrower { public static void main(String[] a) { throw new RuntimeException(System.getenv(\"MESSAGE\")); } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "--release", "11", "-d", classes, filepath.Join(root, "tools", "release", "java", "constructs", "RunApp.java"), app).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	// Each raises $MESSAGE as the app's exception.
	runs := map[string]func() *exec.Cmd{
		"python": func() *exec.Cmd {
			return exec.Command("python3", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import refusal_hook; import os; raise RuntimeError(os.environ['MESSAGE'])", filepath.Join(root, "tools", "release"))
		},
		"java": func() *exec.Cmd {
			return exec.Command("java", "-cp", classes, "com.linncloud.erasurechannel.constructs.RunApp", "Thrower")
		},
	}
	for lang, run := range runs {
		for _, c := range hookCases {
			for _, trace := range []bool{false, true} {
				cmd := run()
				cmd.Env = append(os.Environ(), "MESSAGE="+c.message)
				if trace {
					cmd.Env = append(cmd.Env, "ERASURE_CHANNEL_TRACE=1")
				}
				out, err := cmd.CombinedOutput()
				text := strings.TrimRight(string(out), "\n")
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Errorf("%s, %s (trace %v): %v, want exit 1:\n%s", lang, c.name, trace, err, text)
					continue
				}
				short := !c.trace && !trace
				switch {
				case short && text != c.want:
					t.Errorf("%s, %s: printed\n%s\nwant only\n%s", lang, c.name, text, c.want)
				case !short && (!strings.Contains(text, c.want) || !strings.Contains(text, "Traceback") && !strings.Contains(text, "\tat ")):
					t.Errorf("%s, %s (trace %v): want the whole trace, printed\n%s", lang, c.name, trace, text)
				}
			}
		}
	}
}
