//go:build windows

package launcher

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS,
		HideWindow:    true,
	}
}

func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// terminate kills pid (Windows has no SIGTERM; the daemon is asked over
// HTTP first, this is the fallback).
func terminate(pid int) error {
	if pid <= 0 {
		return errors.New("no pid")
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil // already gone
	}
	return p.Kill()
}

// exeSuffix ends an executable's file name.
const exeSuffix = ".exe"
