package launcher

import (
	"os"
	"os/exec"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// TestKnown: state.json is taken at its word only for a daemon of this
// version on this port; anything else is no guess (the caller runs Ensure).
func TestKnown(t *testing.T) {
	cases := []struct {
		name   string
		write  *state.File
		wantOK bool
	}{
		{"this version and port", &state.File{PID: 42, Port: 7001, Version: "v1"}, true},
		{"no state file", nil, false},
		{"another version", &state.File{PID: 42, Port: 7001, Version: "v0"}, false},
		{"another port", &state.File{PID: 42, Port: 7002, Version: "v1"}, false},
		{"no pid", &state.File{Port: 7001, Version: "v1"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := stateDir(t, c.write)
			d, ok := Known(Options{Dir: dir, Port: 7001, Version: "v1"})
			if ok != c.wantOK {
				t.Fatalf("Known = %+v, %v; want ok %v", d, ok, c.wantOK)
			}
			if ok && (d.Port != 7001 || d.PID != 42 || d.Dir != dir) {
				t.Fatalf("Known = %+v", d)
			}
		})
	}
}

// TestRunning: Known's checks and a live process — this test's own pid
// runs, the pid of a child that has exited does not.
func TestRunning(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	me, gone := os.Getpid(), child.ProcessState.Pid()
	cases := []struct {
		name  string
		write *state.File
		want  bool
	}{
		{"a live daemon of this version and port", &state.File{PID: me, Port: 7001, Version: "v1"}, true},
		{"its process has exited", &state.File{PID: gone, Port: 7001, Version: "v1"}, false},
		{"no state file", nil, false},
		{"another version", &state.File{PID: me, Port: 7001, Version: "v0"}, false},
		{"another port", &state.File{PID: me, Port: 7002, Version: "v1"}, false},
		{"no pid", &state.File{Port: 7001, Version: "v1"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := stateDir(t, c.write)
			if got := Running(Options{Dir: dir, Port: 7001, Version: "v1"}); got != c.want {
				t.Fatalf("Running = %v, want %v", got, c.want)
			}
		})
	}
}

// stateDir is a state directory holding f as state.json (none when nil).
func stateDir(t *testing.T, f *state.File) string {
	t.Helper()
	dir := t.TempDir()
	if f != nil {
		if err := state.Write(dir, *f); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
