//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

// spawned is the production chain with no daemon in the test process:
// Chromium starts the native host from its manifest and the host spawns
// `gasoline-host daemon`, a process of its own that tests can signal and
// whose memory they can read.
type spawned struct {
	home, port string
	portN      int
	browser    *testbrowser.Browser
	site       string // testdata/ on 127.0.0.1
}

// startSpawned starts Chromium (with a DevTools port) and waits until a
// spawned daemon serves the extension. policy is written to policy.json.
func startSpawned(t testing.TB, policy string) *spawned {
	t.Helper()
	s := &spawned{home: t.TempDir(), portN: FreePort(t)}
	s.port = strconv.Itoa(s.portN)
	if policy != "" {
		require.NoError(t, os.WriteFile(filepath.Join(s.home, "policy.json"), []byte(policy), 0o600))
	}
	s.site = ServeTestdata(t).URL
	udd := t.TempDir()
	Install(t, hostBin, udd)
	s.browser = testbrowser.Start(t, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  udd,
		Env:          s.env(),
		ExtraArgs:    []string{"--remote-debugging-port=0"},
	})
	t.Cleanup(func() { // before the browser's own cleanup: its host would spawn another
		s.browser.Stop(10 * time.Second)
		if st, err := state.Read(s.home); err == nil {
			stopProcess(st.PID)
		}
	})
	s.waitConnected(t, 0)
	return s
}

// stopProcess ends a daemon (SIGTERM, SIGKILL after 10 s) and waits until
// it is gone, so its home can be removed.
func stopProcess(pid int) {
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond) // another process's exit: polled, bounded
		if time.Now().After(deadline.Add(5 * time.Second)) {
			return
		}
	}
}

func (s *spawned) env() []string {
	return []string{"GASOLINE_HOME=" + s.home, "GASOLINE_PORT=" + s.port}
}

// waitConnected waits for a daemon other than notPID that reports the
// extension connected, and returns its pid.
func (s *spawned) waitConnected(t testing.TB, notPID int) int {
	t.Helper()
	var pid int
	eventually(t, 45*time.Second, "a spawned daemon with the extension connected", func() bool {
		h, ok := getHealth(s.portN)
		pid = h.PID
		return ok && h.PID != 0 && h.PID != notPID && h.TransportStatus.Extension == "connected"
	})
	return pid
}

func (s *spawned) pid(t testing.TB) int {
	t.Helper()
	h, ok := getHealth(s.portN)
	require.True(t, ok, "no daemon answers")
	return h.PID
}

func (s *spawned) token(t testing.TB) string {
	t.Helper()
	tok, err := creds.Load(s.home, creds.Agent)
	require.NoError(t, err)
	return tok
}

// userTransport is the official go-sdk client as a user configures it:
// the endpoint and the credential; every other setting at its default.
func (s *spawned) userClient(t testing.TB, name string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   "http://127.0.0.1:" + s.port + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{s.token(t)}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rss returns a process's resident set and its peak, in bytes.
func rss(pid int) (cur, peak int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return cur, peak
}

// rawStdio is `gasoline-host --mcp` run as an agent runs it, speaking
// raw newline-delimited JSON-RPC, so tests see ids exactly as written.
type rawStdio struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    interface{ Write([]byte) (int, error) }
	close func() error
	lines chan []byte
	exit  chan error
}

func startRawStdio(t testing.TB, env []string) *rawStdio {
	t.Helper()
	cmd := exec.Command(hostBin, "--mcp")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &rawStdio{t: t, cmd: cmd, in: in, close: in.Close, lines: make(chan []byte, 64), exit: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, protocol.MaxMessage)
		for sc.Scan() {
			c.lines <- bytes.Clone(sc.Bytes())
		}
		close(c.lines)
		c.exit <- cmd.Wait()
	}()
	t.Cleanup(func() { in.Close(); cmd.Process.Kill() })
	return c
}

func (c *rawStdio) send(line string) {
	c.t.Helper()
	_, err := c.in.Write([]byte(line + "\n"))
	require.NoError(c.t, err)
}

// recv returns the next stdout line (bounded).
func (c *rawStdio) recv(bound time.Duration) []byte {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		require.True(c.t, ok, "--mcp stdout closed")
		require.True(c.t, json.Valid(l), "stdout line is not JSON: %q", l)
		return l
	case <-time.After(bound):
		c.t.Fatalf("nothing on --mcp stdout within %s", bound)
		return nil
	}
}

// recvID returns the next answer whose raw id is id, skipping
// notifications (bounded).
func (c *rawStdio) recvID(id string, bound time.Duration) []byte {
	c.t.Helper()
	deadline := time.Now().Add(bound)
	for {
		l := c.recv(time.Until(deadline))
		var h struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(l, &h)
		if string(h.ID) == id {
			return l
		}
	}
}

// initialize does the MCP handshake.
func (c *rawStdio) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-e2e","version":"1"}}}`)
	c.recvID("0", 30*time.Second)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// call sends tools/call with a raw id and arguments.
func (c *rawStdio) call(id, tool string, args map[string]any) {
	c.t.Helper()
	raw, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + string(raw) + `}`)
}
