//go:build unix

package think

import (
	"os/exec"
	"syscall"
)

// killGroup makes the tool the leader of its own process group and kills
// the whole group on cancel, so that helpers it started die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
