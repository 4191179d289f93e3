//go:build unix

package launcher

import (
	"errors"
	"os/exec"
	"syscall"
)

func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// processAlive reports whether pid exists (EPERM: it exists, owned by
// someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// terminate sends SIGTERM; a process already gone is success.
func terminate(pid int) error {
	if pid <= 0 {
		return errors.New("no pid")
	}
	err := syscall.Kill(pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// exeSuffix ends an executable's file name.
const exeSuffix = ""
