package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTPResumeWithLastEventID: an HTTP client whose connection drops
// mid-call comes back with its Mcp-Session-Id and the last event id it saw
// (the priming event) and receives the call's answer.
func TestHTTPResumeWithLastEventID(t *testing.T) {
	f := newFixture(t, nil)
	release, started := make(chan struct{}), make(chan struct{})
	f.s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
		close(started)
		<-release
		return map[string]any{"title": "Resumed"}, nil
	})
	const v = "2025-11-25"
	sid := f.httpSessionVersion(t, v)

	// The server notices a client gone only when its handler returns; until
	// then it holds the call's stream, and a resume asked meanwhile is
	// refused (409, "stream ID conflicts with ongoing stream": what failed
	// under load). The test resumes once the server let go.
	gone := make(chan struct{})
	var once sync.Once
	f.afterServed(func(r *http.Request) {
		if r.Method == http.MethodPost && r.Context().Err() != nil {
			once.Do(func() { close(gone) })
		}
	})
	ctx, drop := context.WithCancel(context.Background())
	resp := f.do(t, ctx, "POST", sid, v, "", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page","timeout_ms":60000}}}`)
	lastID := firstEventID(t, resp)
	<-started
	drop() // the client vanishes mid-call
	resp.Body.Close()
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never let go of the dropped call")
	}
	close(release)

	resp = f.do(t, context.Background(), "GET", sid, v, lastID, "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d", resp.StatusCode)
	}
	msgs := readMessages(t, resp)
	if len(msgs) != 1 || msgs[0]["id"] != 5.0 || dig(msgs[0], "result", "structuredContent", "title") != "Resumed" {
		t.Fatalf("resumed stream: %v", msgs)
	}
}

func (f *fixture) do(t *testing.T, ctx context.Context, method, sid, version, lastEventID, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, f.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", version)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// firstEventID reads SSE lines up to the first event id.
func firstEventID(t *testing.T, resp *http.Response) string {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			return id
		}
	}
	t.Fatalf("no event id on the stream (%v)", sc.Err())
	return ""
}

func (f *fixture) httpSessionVersion(t *testing.T, v string) string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	status, hdr, msgs := f.httpPost(t, "", init)
	if status != 200 || len(msgs) != 1 || dig(msgs[0], "result", "protocolVersion") != v {
		raw, _ := json.Marshal(msgs)
		t.Fatalf("initialize: %d %s", status, raw)
	}
	sid := hdr.Get("Mcp-Session-Id")
	resp := f.do(t, context.Background(), "POST", sid, v, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return sid
}

// A stdio session ends when its relay says the client ended it (the
// control line mcpline.End: stdin reached its end); any other end of the
// connection keeps it for the client to resume.
func TestStdioSessionEndsOnlyWhenTheClientEndsIt(t *testing.T) {
	f := newFixture(t, nil)
	kept := f.link(t, "")
	kept.initialize()
	kept.close()
	again := f.link(t, kept.handle())
	if !again.resumed || again.session != kept.session {
		t.Fatalf("a dropped connection lost its session (resumed=%v)", again.resumed)
	}
	again.initialize()
	sess := f.s.SessionManager().Get(again.session)
	again.end()
	select {
	case <-sess.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end when its client ended it")
	}
	if f.s.SessionManager().Get(again.session) != nil {
		t.Fatal("an ended session is still kept")
	}
}
