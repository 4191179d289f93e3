package mcpserver

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestCallStreamEventIDs: a call's SSE stream names this daemon run and
// the call in its event ids, and its priming event asks for a prompt
// reconnect.
func TestCallStreamEventIDs(t *testing.T) {
	f := newFixture(t, nil)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f.s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{}, nil
	})
	const v = "2025-11-25"
	sid := f.httpSessionVersion(t, v)
	if !strings.HasPrefix(sid, f.s.incarnation) {
		t.Fatalf("session id %q does not name the daemon run %q", sid, f.s.incarnation)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := f.do(t, ctx, "POST", sid, v, "", `{"jsonrpc":"2.0","id":"call 7","method":"tools/call","params":{"name":"observe","arguments":{"what":"page","timeout_ms":60000}}}`)
	defer resp.Body.Close()
	prime := readEvent(t, resp.Body)
	want := "." + f.s.incarnation + "." + base64.RawURLEncoding.EncodeToString([]byte(`"call 7"`))
	if !strings.HasSuffix(prime["id"], want) || prime["event"] != "prime" || prime["retry"] != "800" {
		t.Fatalf("priming event %v, want an id ending %q and retry 800", prime, want)
	}
	sdk, inc, id, ok := splitEventID(prime["id"])
	if !ok || inc != f.s.incarnation || string(id) != `"call 7"` || strings.Contains(sdk, ".") {
		t.Fatalf("splitEventID(%q) = %q %q %s %v", prime["id"], sdk, inc, id, ok)
	}
}

// TestPreviousRunAnswered: a Last-Event-ID written by another daemon run
// gets the call's answer at once (a retryable daemon_restarted error, no
// event id to resume); a session id of another run gets a 404 that says
// the daemon restarted, one of this run that it ended.
func TestPreviousRunAnswered(t *testing.T) {
	f := newFixture(t, nil)
	const v = "2025-11-25"
	old := "ABCDEFGHIJKLMNOPQRSTUVWXYZ_1." + "OLDRUN2345" + "." + base64.RawURLEncoding.EncodeToString([]byte(`1.5`))
	resp := f.do(t, context.Background(), "GET", "OLDRUN2345SESSION", v, old, "")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET with an old run's Last-Event-ID: %s", resp.Status)
	}
	ev := readEvent(t, resp.Body)
	if ev["id"] != "" || !strings.HasPrefix(ev["data"], `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32000,`) || !strings.Contains(ev["data"], `"code":"daemon_restarted","retryable":true`) {
		t.Fatalf("answer %v", ev)
	}

	for sid, want := range map[string]string{"OLDRUN2345SESSION": "daemon_restarted", f.s.incarnation + "GONE": "session_expired"} {
		status, _, msgs := f.httpPost(t, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if status != 404 || len(msgs) != 1 || dig(msgs[0], "error", "data", "code") != want || msgs[0]["id"] != 3.0 {
			t.Errorf("POST with session %s: %d %v, want 404 %s", sid, status, msgs, want)
		}
		get := f.do(t, context.Background(), "GET", sid, v, "", "")
		body, _ := io.ReadAll(get.Body)
		get.Body.Close()
		if get.StatusCode != 404 || !strings.Contains(string(body), `"id":"mcp-session-gone"`) || !strings.Contains(string(body), want) {
			t.Errorf("GET with session %s: %d %s", sid, get.StatusCode, body)
		}
	}
}

func TestSSEIDsRewrite(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"event: prime\nid: S_1\ndata: \n\n", "event: prime\nid: S_1.X\nretry: 800\ndata: \n\n"},
		{"id: S_2\ndata: {\"a\":1}\n\n", "id: S_2.X\ndata: {\"a\":1}\n\n"},
		{"data: {\"id: no\"}\n\n", "data: {\"id: no\"}\n\n"},
		{": comment\n\n", ": comment\n\n"},
	} {
		var b strings.Builder
		w := &sseIDs{ResponseWriter: &recorder{w: &b, h: map[string][]string{"Content-Type": {"text/event-stream"}}}, suffix: ".X"}
		if n, err := w.Write([]byte(c.in)); err != nil || n != len(c.in) {
			t.Fatalf("Write = %d, %v", n, err)
		}
		if b.String() != c.want {
			t.Errorf("%q → %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// readEvent reads one SSE event's fields.
func readEvent(t *testing.T, r io.Reader) map[string]string {
	t.Helper()
	ev := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() == "" {
			return ev
		}
		k, v, _ := strings.Cut(sc.Text(), ": ")
		ev[k] = v
	}
	t.Fatalf("stream ended before an event (%v)", sc.Err())
	return nil
}

// recorder is a minimal http.ResponseWriter over a builder.
type recorder struct {
	w *strings.Builder
	h http.Header
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return r.w.Write(b) }
func (r *recorder) WriteHeader(int)             {}
