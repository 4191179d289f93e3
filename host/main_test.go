//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// The test binary doubles as gasoline-host: with GASOLINE_HOST_TEST_EXEC=1
// it runs the real run() on its arguments, so the launcher's spawned daemon
// (os.Executable() daemon) is this binary too. GASOLINE_TEST_VERSION
// overrides the version to stage a daemon of another release.
func TestMain(m *testing.M) {
	if os.Getenv("GASOLINE_HOST_TEST_EXEC") == "1" {
		if v := os.Getenv("GASOLINE_TEST_VERSION"); v != "" {
			version.Version = v
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gasoline-host:", err)
			os.Exit(exitCode(err))
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m) // no goroutine outlives the tests
}

type env struct {
	home string
	port int
}

func newEnv(t testing.TB) env {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	e := env{home: t.TempDir(), port: port}
	t.Cleanup(func() { e.stopDaemon(t) })
	return e
}

func (e env) vars(extra ...string) []string {
	return append(append(os.Environ(), "GASOLINE_HOST_TEST_EXEC=1",
		"GASOLINE_HOME="+e.home, "GASOLINE_PORT="+strconv.Itoa(e.port)), extra...)
}

// stopDaemon terminates whatever daemon the test left running and waits
// (bounded) for its port to close.
func (e env) stopDaemon(t testing.TB) {
	st, err := state.Read(e.home)
	if err != nil {
		return
	}
	syscall.Kill(st.PID, syscall.SIGTERM)
	waitFor(t, 10*time.Second, func() bool { return !e.healthy() })
}

func (e env) health(t *testing.T) map[string]any {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(e.port) + "/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return h
}

func (e env) healthy() bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(e.port) + "/health")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// waitFor polls cond until it holds or the bound passes. It waits for an
// outside process's state, which sends no signal we could block on.
func waitFor(t testing.TB, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hostProc is gasoline-host in native-messaging mode with the test as
// Chrome.
type hostProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	w    *nativemsg.Writer
	r    *nativemsg.Reader
	asm  nativemsg.Assembler
	next int64
}

func startHost(t *testing.T, e env, origin string) *hostProc {
	cmd := exec.Command(os.Args[0], origin)
	cmd.Env = e.vars()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	h := &hostProc{t: t, cmd: cmd, in: in, w: nativemsg.NewWriter(in), r: nativemsg.NewReader(out, 0)}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return h
}

func (h *hostProc) send(method string, params any) int64 {
	h.t.Helper()
	h.next++
	p, _ := json.Marshal(params)
	b, _ := json.Marshal(protocol.Message{ID: h.next, Method: method, Params: p})
	require.NoError(h.t, h.w.WriteFrame(b))
	return h.next
}

// recv reads the next reply or event; every byte on stdout must be a
// frame of JSON (or a chunk of one). The daemon's own requests (tabs.query
// after a hello) are answered with no tabs, as an extension with no open
// tabs would.
func (h *hostProc) recv() protocol.Message {
	h.t.Helper()
	for {
		b, err := h.r.ReadFrame()
		require.NoError(h.t, err)
		if nativemsg.IsChunk(b) {
			msg, done, err := h.asm.Add(b)
			require.NoError(h.t, err)
			if !done {
				continue
			}
			b = msg
		}
		var m protocol.Message
		require.NoError(h.t, json.Unmarshal(b, &m), "stdout carried a non-JSON frame: %q", b)
		if m.Method == "" || m.ID == 0 {
			return m
		}
		out, _ := json.Marshal(protocol.Message{ID: m.ID, Result: json.RawMessage(`{"tabs":[]}`)})
		require.NoError(h.t, h.w.WriteFrame(out))
	}
}

func (h *hostProc) hello() protocol.Welcome {
	h.t.Helper()
	id := h.send("hello", protocol.Hello{Protocol: protocol.Version, Role: "extension", Version: "test", ExtensionID: extid.ID})
	m := h.recv()
	require.Equal(h.t, id, m.ID)
	require.Nil(h.t, m.Error)
	var w protocol.Welcome
	require.NoError(h.t, json.Unmarshal(m.Result, &w), "%+v", m)
	return w
}

// closeAndWait ends input and checks the host exits 0 with nothing but
// frames left on stdout.
func (h *hostProc) closeAndWait() {
	h.t.Helper()
	h.in.Close()
	for {
		b, err := h.r.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(h.t, err, "stdout must carry whole frames only")
		require.True(h.t, json.Valid(b), "stdout frame is not JSON: %q", b)
	}
	require.NoError(h.t, h.cmd.Wait(), "host must exit 0 at end of input")
}

func TestNativeHostSpawnsDaemonAndRelays(t *testing.T) {
	e := newEnv(t)
	h := startHost(t, e, extid.Origin)
	w := h.hello()
	require.Equal(t, version.Version, w.Version)

	hl := e.health(t)
	require.Equal(t, "connected", hl["transport_status"].(map[string]any)["extension"])
	for _, r := range creds.Roles {
		tok, err := creds.Load(e.home, r)
		require.NoError(t, err)
		require.NotContains(t, fmt.Sprint(hl), tok, "/health must never carry a credential")
	}

	id := h.send("ping", nil)
	m := h.recv()
	require.Equal(t, id, m.ID)
	require.JSONEq(t, `true`, string(mustField(t, m.Result, "pong")))

	fi, err := os.Stat(state.Path(e.home))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	h.closeAndWait()
	// The daemon outlives the host.
	require.True(t, e.healthy())
}

func TestNativeHostDaemonKilledMidRelay(t *testing.T) {
	e := newEnv(t)
	h := startHost(t, e, extid.Origin)
	h.hello()
	old := mustState(t, e).PID

	// Freeze the daemon so it cannot answer, send a request, then kill it.
	// The request is either in flight at the daemon (answered with
	// daemon_unavailable) or still queued in the host (relayed to the new
	// daemon after the reconnect): never silence. The in-flight case alone
	// is pinned down by the nativehost package's unit tests.
	require.NoError(t, syscall.Kill(old, syscall.SIGSTOP))
	id := h.send("ping", nil)
	require.NoError(t, syscall.Kill(old, syscall.SIGKILL))

	var reply *protocol.Message
	reconnected := false
	for reply == nil || !reconnected {
		m := h.recv()
		switch {
		case m.Method == protocol.EventLinkReconnected:
			reconnected = true
		case m.ID == id:
			reply = &m
			if m.Error != nil {
				require.Equal(t, protocol.CodeDaemonUnavailable, m.Error.Code)
				require.True(t, m.Error.Retryable)
			} else {
				require.True(t, reconnected, "a result can only come from the new daemon")
			}
		default:
			t.Fatalf("unexpected message %+v", m)
		}
	}
	id = h.send("ping", nil)
	m := h.recv()
	require.Equal(t, id, m.ID)
	require.Nil(t, m.Error)
	require.NotEqual(t, old, mustState(t, e).PID)
	h.closeAndWait()
}

func TestNativeHostRemovesStaleState(t *testing.T) {
	e := newEnv(t)
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	require.NoError(t, state.EnsureDir(e.home))
	require.NoError(t, state.Write(e.home, state.File{PID: dead.Process.Pid, Port: e.port, LegacyToken: "stale", Version: version.Version}))

	h := startHost(t, e, extid.Origin)
	h.hello()
	st := mustState(t, e)
	require.NotEqual(t, dead.Process.Pid, st.PID)
	require.Empty(t, st.LegacyToken, "the new daemon's state.json carries no credential")
	h.closeAndWait()
}

func TestNativeHostRecyclesOtherVersion(t *testing.T) {
	e := newEnv(t)
	old := exec.Command(os.Args[0], "daemon")
	old.Env = e.vars("GASOLINE_TEST_VERSION=0.0.0-old")
	require.NoError(t, old.Start())
	exited := make(chan error, 1)
	go func() { exited <- old.Wait() }()
	waitFor(t, 10*time.Second, e.healthy)
	require.Equal(t, "0.0.0-old", e.health(t)["version"])

	h := startHost(t, e, extid.Origin)
	w := h.hello()
	require.Equal(t, version.Version, w.Version)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("old daemon still running after recycle")
	}
	require.Equal(t, version.Version, e.health(t)["version"])
	h.closeAndWait()
}

func TestNativeHostRefusesForeignOrigin(t *testing.T) {
	e := newEnv(t)
	cmd := exec.Command(os.Args[0], "chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
	cmd.Env = e.vars()
	out, err := cmd.Output()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 1, ee.ExitCode())
	require.Empty(t, out, "stdout must stay empty")
	require.Contains(t, string(ee.Stderr), "refusing caller")
	_, err = os.Stat(filepath.Join(e.home, "state.json"))
	require.True(t, os.IsNotExist(err), "a refused caller must not start a daemon")
}

func mustState(t *testing.T, e env) state.File {
	t.Helper()
	st, err := state.Read(e.home)
	require.NoError(t, err)
	return st
}

func mustField(t *testing.T, raw json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	return m[key]
}
