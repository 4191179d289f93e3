//go:build unix

package mcpserver_test

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawPost is one streamable-HTTP POST of a client that keeps its session
// id and never initializes again (as the Python SDK's client does after a
// 404): it returns the status and the body.
func rawPost(t *testing.T, d *daemon, token, sid, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", d.url("/mcp"), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(raw)
}

// Issue 34, item 5: the daemon is SIGKILLed under a raw HTTP client that
// keeps its Mcp-Session-Id; the next daemon takes the session up again
// for the same credential, so the client's next calls answer as before,
// in the same session.
func TestHTTPSessionSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	d := startDaemon(t)
	_, sid, body := rawPost(t, d, d.token, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-keeps-its-id","version":"1"}}}`)
	if sid == "" {
		t.Fatalf("no session: %s", body)
	}
	rawPost(t, d, d.token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const health = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"configure","arguments":{"what":"health"}}}`
	if status, _, body := rawPost(t, d, d.token, sid, health); status != 200 || !strings.Contains(body, "raw-keeps-its-id") {
		t.Fatalf("before: %d %s", status, body)
	}
	if err := syscall.Kill(d.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.reap(t, 10*time.Second)
	d.restart(t)
	status, _, body := rawPost(t, d, d.token, sid, health)
	if status != 200 || !strings.Contains(body, `"result"`) || !strings.Contains(body, "raw-keeps-its-id") {
		t.Fatalf("after the restart the same session id must answer: %d %s", status, body)
	}
	other := "0" + d.token[1:]
	if other == d.token {
		other = "1" + d.token[1:]
	}
	if status, _, _ := rawPost(t, d, other, sid, health); status == 200 {
		t.Fatal("another credential used the session")
	}
}
