package terminal

import (
	"io"
	"strings"
)

// Signal is what a closing view sends its process.
type Signal int

// The signals: the hang-up first, the kill when the hang-up was ignored.
const (
	Hangup Signal = iota + 1
	Kill
)

// Spec is one process to start on a PTY.
type Spec struct {
	Argv []string
	Dir  string
	Env  []string
	Cols int
	Rows int
}

// ExitStatus is how a process ended: its exit code, or the signal that
// ended it (Code is then -1).
type ExitStatus struct {
	Code   int
	Signal string
}

// Proc is a process on a PTY: reading and writing go to the PTY's master.
// Close closes the master (interrupting Read and Write); it may be called
// more than once. Signal reaches the process's group. Wait reaps the
// process.
type Proc interface {
	io.Reader
	io.Writer
	Resize(cols, rows int) error
	Signal(Signal) error
	Wait() ExitStatus
	Close() error
	Pid() int
}

// Starter starts a process on a PTY.
type Starter func(Spec) (Proc, error)

// termEnv is env with the terminal's own variables set: xterm.js speaks
// xterm-256color with true colour.
func termEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "TERM" && k != "COLORTERM" {
			out = append(out, kv)
		}
	}
	return append(out, "TERM=xterm-256color", "COLORTERM=truecolor")
}
