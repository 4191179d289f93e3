package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// TestGuardEndToEnd: /mcp on the real daemon refuses a missing
// credential (401), a wrong one, a non-loopback Host or a foreign Origin
// (403), and accept a loopback page's Origin with the agent credential.
func TestGuardEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon process")
	}
	d := startDaemon(t)
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"g","version":"1"}}}`
	tests := []struct {
		name, token, host, origin string
		want                      int
	}{
		{"no token", "", "", "", http.StatusUnauthorized},
		{"wrong token", "0123", "", "", http.StatusForbidden},
		{"non-loopback Host", d.token, "evil.example.com", "", http.StatusForbidden},
		{"rebinding Host with port", d.token, "attacker.test:" + "7890", "", http.StatusForbidden},
		{"foreign Origin", d.token, "", "https://evil.example", http.StatusForbidden},
		{"loopback page Origin", d.token, "", "http://127.0.0.1:3000", http.StatusOK},
		{"localhost page Origin", d.token, "", "http://localhost:5173", http.StatusOK},
		{"https foreign Origin on a loopback name", d.token, "", "https://localhost.evil.example", http.StatusForbidden},
		{"extension Origin", d.token, "", extid.Origin, http.StatusOK},
		{"token, loopback, no Origin", d.token, "localhost", "", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := http.Header{}
			if tt.token != "" {
				hdr.Set("Authorization", "Bearer "+tt.token)
			}
			if tt.origin != "" {
				hdr.Set("Origin", tt.origin)
			}
			req, _ := http.NewRequest("POST", d.url("/mcp"), strings.NewReader(init))
			req.Header = hdr.Clone()
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("/mcp: %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

// TestSDKClientOverStdio connects the official SDK client to
// `gasoline-host --mcp` the way agents launch it (and gasoline-host doctor
// checks it): command transport, initialize, tools/list, a tool call.
func TestSDKClientOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	d := startDaemon(t)
	cmd := exec.Command(osArgs0(), "--mcp")
	cmd.Env = d.env
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := cs.ListTools(ctx, nil)
	if err != nil || len(tl.Tools) != 5 {
		t.Fatalf("ListTools: %v %v", err, tl)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{"what": "health"}})
	if err != nil || res.IsError {
		t.Fatalf("health: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"transport":"stdio"`) || !strings.Contains(string(raw), `"name":"sdk"`) {
		t.Errorf("health = %s", raw)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("--mcp exit: %v", cmd.ProcessState)
	}
}

// TestRelaySurvivesDaemonRestart: the daemon dies under a live stdio
// session; the relay starts a new one through the launcher, replays the
// handshake, the new daemon resumes the session (kept in sessions.json),
// the relay tells the client so, and the next call works on the new
// daemon.
func TestRelaySurvivesDaemonRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	d := startDaemon(t)
	s := startStdio(t, d)
	c := &stdioConn{s: s}
	c.exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"restart","version":"1"}}}`)
	c.exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if pid := healthPID(t, c, 2); pid != d.pid {
		t.Fatalf("health pid %d, want %d", pid, d.pid)
	}
	// The daemon writes sessions.json just after the session starts, off
	// its handshake's path; kill it once its record is there.
	waitSessionsFile(t, d.dir, `"name": "restart"`)

	p, _ := os.FindProcess(d.pid)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.exited

	var note struct {
		Method string `json:"method"`
		Params struct {
			Level string `json:"level"`
			Data  string `json:"data"`
		} `json:"params"`
	}
	if err := json.Unmarshal(s.recv(), &note); err != nil || note.Method != "notifications/message" || note.Params.Level != "info" ||
		!strings.Contains(note.Params.Data, "the session resumed") {
		t.Fatalf("notice: %v %+v", err, note)
	}
	pid := healthPID(t, c, 3)
	if pid == d.pid || pid == 0 {
		t.Fatalf("after restart health pid %d (old %d)", pid, d.pid)
	}
	if st, err := state.Read(d.dir); err != nil || st.PID != pid {
		t.Fatalf("state %+v %v, want pid %d", st, err, pid)
	}
	s.close()
}

// waitSessionsFile waits, bounded, until dir's sessions.json holds want.
func waitSessionsFile(t *testing.T, dir, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for backoff := time.Millisecond; ; backoff = min(backoff*2, 50*time.Millisecond) {
		if raw, err := os.ReadFile(filepath.Join(dir, session.FileName)); err == nil && strings.Contains(string(raw), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions.json never held %s", want)
		}
		time.Sleep(backoff)
	}
}

func healthPID(t *testing.T, c *stdioConn, id int) int {
	t.Helper()
	msgs := c.exchange(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"configure","arguments":{"what":"health"}}}`)
	var r struct {
		Result struct {
			StructuredContent struct {
				PID     int `json:"pid"`
				Session struct {
					Client struct{ Name string } `json:"client"`
				} `json:"caller"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if len(msgs) != 1 || json.Unmarshal(msgs[0], &r) != nil || r.Result.StructuredContent.Session.Client.Name != "restart" {
		t.Fatalf("health: %s", msgs)
	}
	return r.Result.StructuredContent.PID
}
