//go:build unix

package lambdaemu

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the runtime in its own process group, so that
// stopping it stops what it started too.
func setProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
