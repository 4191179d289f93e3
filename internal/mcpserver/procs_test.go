package mcpserver_test

// Real processes for real contracts: the test binary re-executes itself as
// `gasoline-host daemon` and `gasoline-host --mcp` (GASOLINE_TESTHOST=1),
// with GASOLINE_HOME and GASOLINE_PORT pointing at a temp dir and a free
// port — never the user's state or port 7890.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gasoline-mcp/gasoline/bridge"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/mcprelay"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

func TestMain(m *testing.M) {
	if os.Getenv("GASOLINE_TESTHOST") == "1" && !slices.ContainsFunc(os.Args, func(a string) bool { return strings.HasPrefix(a, "-test.fuzzworker") }) {
		os.Exit(testHost(os.Args[1:])) // a fuzz worker inherits the variable, and is no test host
	}
	// Children (and the daemons a relay child spawns) are test hosts.
	os.Setenv("GASOLINE_TESTHOST", "1")
	goleak.VerifyTestMain(m) // no goroutine outlives the tests
}

// testHost is host/main.go's dispatch for the two modes under test.
func testHost(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case len(args) > 0 && args[0] == "daemon":
		err = bridge.Main(ctx, args[1:], os.Stderr)
	case len(args) > 0 && args[0] == "--mcp":
		err = mcprelay.Main(ctx, args[1:], os.Stdin, os.Stdout, os.Stderr)
	default:
		err = fmt.Errorf("testhost: unknown mode %q", args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gasoline-host:", err)
		return 1
	}
	return 0
}

// daemon is a `gasoline-host daemon` child process.
type daemon struct {
	dir   string
	port  int
	token string
	pid   int
	env   []string
	cmd   *exec.Cmd
	// exited is closed when the child has exited (exitErr is then set);
	// the reaper that closes it is done by the end of stop.
	exited  chan struct{}
	exitErr error
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startDaemon starts a daemon and waits until it serves. Cleanup stops it
// and any daemon a relay started in its place.
func startDaemon(t testing.TB) *daemon {
	t.Helper()
	d := &daemon{dir: t.TempDir(), port: freePort(t), exited: make(chan struct{})}
	d.env = append(os.Environ(), "GASOLINE_HOME="+d.dir, "GASOLINE_PORT="+strconv.Itoa(d.port))
	cmd := exec.Command(os.Args[0], "daemon")
	cmd.Env = d.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.cmd = cmd
	go func() { d.exitErr = cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() { d.stop(t) })
	d.waitReady(t, cmd.Process.Pid)
	return d
}

// waitReady waits for state.json of pid and a /health answer, with
// backoff, bounded; the child exiting ends the wait at once.
func (d *daemon) waitReady(t testing.TB, pid int) {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for backoff := time.Millisecond; ; backoff = min(backoff*2, 50*time.Millisecond) {
		if st, err := state.Read(d.dir); err == nil && st.PID == pid {
			if _, err := launcher.Probe(context.Background(), d.port); err == nil {
				tok, err := creds.Load(d.dir, creds.Agent)
				if err != nil {
					t.Fatal(err)
				}
				d.token, d.pid = tok, st.PID
				return
			}
		}
		select {
		case <-d.exited:
			t.Fatalf("daemon exited before serving: %v (log: %s)", d.exitErr, d.log())
		case <-deadline.C:
			t.Fatalf("daemon not ready (log: %s)", d.log())
		case <-time.After(backoff):
		}
	}
}

func (d *daemon) log() string {
	b, _ := os.ReadFile(state.LogDir(d.dir) + "/daemon.log")
	return string(b)
}

// stop asks whichever daemon serves d.dir to shut down and waits until its
// lock is released (the process is done with the directory), then for the
// exit of the child it started.
func (d *daemon) stop(t testing.TB) {
	if st, err := state.Read(d.dir); err == nil {
		tok, _ := creds.Load(d.dir, creds.Approver)
		req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(st.Port)+"/shutdown", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for backoff := time.Millisecond; time.Now().Before(deadline); backoff = min(backoff*2, 50*time.Millisecond) {
		if l, err := state.Acquire(d.dir); err == nil {
			l.Release()
			d.reap(t, time.Until(deadline))
			return
		}
		time.Sleep(backoff) // waiting for another process's exit; bounded
	}
	t.Errorf("daemon in %s did not stop", d.dir)
	d.reap(t, 0)
}

// reap waits up to bound for the child to exit, then kills it, and waits.
func (d *daemon) reap(t testing.TB, bound time.Duration) {
	select {
	case <-d.exited:
		return
	case <-time.After(max(bound, 0)):
	}
	t.Errorf("daemon pid %d did not exit; killing it", d.cmd.Process.Pid)
	d.cmd.Process.Kill()
	<-d.exited
}

func (d *daemon) url(path string) string { return "http://127.0.0.1:" + strconv.Itoa(d.port) + path }

// stdio is a `gasoline-host --mcp` child speaking newline-delimited JSON.
type stdio struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr *syncBuffer
}

func startStdio(t testing.TB, d *daemon, args ...string) *stdio {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--mcp"}, args...)...)
	cmd.Env = d.env
	s := &stdio{t: t, cmd: cmd, lines: make(chan []byte, 64), stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	var err error
	if s.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { s.in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return s
}

func (s *stdio) send(msg string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, msg+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// recv returns the next stdout line, which must be exactly one JSON value.
func (s *stdio) recv() []byte {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("--mcp stdout closed; stderr:\n%s", s.stderr)
		}
		if !json.Valid(line) || bytes.Count(line, []byte("\n")) != 1 {
			s.t.Fatalf("stdout line is not one JSON message: %q", line)
		}
		return bytes.TrimSpace(line)
	case <-time.After(30 * time.Second):
		s.t.Fatalf("nothing on --mcp stdout; stderr:\n%s", s.stderr)
		return nil
	}
}

// close ends stdin and checks the clean exit 0.
func (s *stdio) close() {
	s.t.Helper()
	s.in.Close()
	for range s.lines {
	}
	if err := s.cmd.Wait(); err != nil {
		s.t.Errorf("--mcp exit: %v; stderr:\n%s", err, s.stderr)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func osArgs0() string { return os.Args[0] }

func itoa(n int) string { return strconv.Itoa(n) }
