//go:build unix

package gitsource

import (
	"os/exec"
	"syscall"
)

// killAll makes cancelling cmd kill every process it started, not cmd
// alone: git fetch leaves git-remote-https holding the connection, which
// would otherwise wait on a stalled server for as long as it stalls.
func killAll(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
