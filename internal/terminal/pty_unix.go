//go:build !windows

package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

const osName = "this system"

// defaultStarter starts processes on a PTY with github.com/creack/pty.
var defaultStarter Starter = startPTY

// ptyProc is a process on a PTY.
type ptyProc struct {
	cmd    *exec.Cmd
	master *os.File
}

// startPTY starts spec's command in a new session whose controlling
// terminal is a fresh PTY of spec's size.
func startPTY(spec Spec) (Proc, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("terminal: no command")
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the directory %s does not exist; choose another in the terminal settings", spec.Dir)
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(spec.Cols), Rows: uint16(spec.Rows)})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Argv[0], err)
	}
	master, err := pollable(f)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	return &ptyProc{cmd: cmd, master: master}, nil
}

// pollable returns the PTY master as a non-blocking file in Go's poller,
// so that Close interrupts a Read or Write in progress (creack/pty hands
// it over in blocking mode: see its README). f is closed.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("terminal: duplicating the PTY: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("terminal: PTY non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

func (p *ptyProc) Read(b []byte) (int, error)  { return p.master.Read(b) }
func (p *ptyProc) Write(b []byte) (int, error) { return p.master.Write(b) }
func (p *ptyProc) Close() error                { return p.master.Close() }
func (p *ptyProc) Pid() int                    { return p.cmd.Process.Pid }

func (p *ptyProc) Resize(cols, rows int) error {
	return pty.Setsize(p.master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
}

// Signal signals the process (through os.Process, which knows when it
// was reaped and so never hits a recycled pid), then, since it was alive
// a moment ago and its group id is its pid, the rest of its group.
func (p *ptyProc) Signal(s Signal) error {
	sig := syscall.SIGHUP
	if s == Kill {
		sig = syscall.SIGKILL
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return err
	}
	unix.Kill(-p.cmd.Process.Pid, sig)
	return nil
}

func (p *ptyProc) Wait() ExitStatus {
	p.cmd.Wait()
	ps := p.cmd.ProcessState
	if ps == nil {
		return ExitStatus{Code: -1}
	}
	st := ExitStatus{Code: ps.ExitCode()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st.Signal = unix.SignalName(ws.Signal())
	}
	return st
}
