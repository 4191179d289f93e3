package mcpserver

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// postAs posts one message on /mcp with a credential: "" is the local
// agent's, "remote:NAME" a remote agent's (asAgent names them).
func (f *fixture) postAs(t *testing.T, cred, sid, body string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readMessages(t, resp)
}

const healthCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"configure","arguments":{"what":"health"}}}`

// Issue 27, item 4, over the relay's link: a relay that presents another client's
// session id — without its resume key, with a wrong one — gets a session
// of its own; the owner's session is not joined, not taken over and still
// answers its owner. Only the key the daemon handed the owner resumes it.
func TestStdioSessionCannotBeJoinedByItsID(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.link(t, "")
	owner.initialize()
	if owner.key == "" || owner.resumed {
		t.Fatalf("a new session comes with its resume key: %+v", owner)
	}
	for _, hint := range []string{owner.session, owner.session + ".", owner.session + "." + session.NewKey()} {
		intruder := f.link(t, hint)
		if intruder.resumed || intruder.session == owner.session {
			t.Fatalf("hint %q joined the owner's session", hint)
		}
		intruder.initialize()
		got := intruder.roundTrip(healthCall)
		if dig(got, "result", "structuredContent", "caller", "session_id") != intruder.session {
			t.Fatalf("the intruder's call ran as %v", dig(got, "result", "structuredContent", "caller"))
		}
	}
	got := owner.roundTrip(healthCall)
	if dig(got, "result", "structuredContent", "caller", "session_id") != owner.session {
		t.Fatalf("the owner lost its session: %v", got)
	}
	if st := f.s.SessionManager().Get(owner.session).Info().State; st != session.Ready {
		t.Fatalf("owner's session %s", st)
	}
}

// Issue 27, item 4, over HTTP: another credential's request that presents
// a client's Mcp-Session-Id runs nothing in that session.
func TestHTTPSessionBelongsToItsCredential(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.httpSession(t)
	status, msgs := f.postAs(t, "remote:devbox", sid, healthCall)
	if status < 400 || len(msgs) > 0 && msgs[0]["result"] != nil {
		t.Fatalf("a remote agent's credential used the local client's session: %d %v", status, msgs)
	}
	status, msgs = f.postAs(t, "", sid, healthCall)
	if status != 200 || len(msgs) != 1 || dig(msgs[0], "result", "structuredContent", "caller", "session_id") != sid {
		t.Fatalf("the owner's call: %d %v", status, msgs)
	}

	// A remote agent's session is named by the remote.
	rs := f.remoteSession(t, "devbox")
	in := f.s.SessionManager().Get(rs).Info()
	if in.Remote != "devbox" || in.Client.Name != "devbox" || in.Client.Program != "raw" {
		t.Fatalf("remote session info %+v", in)
	}
	if status, msgs := f.postAs(t, "", rs, healthCall); status < 400 || len(msgs) > 0 && msgs[0]["result"] != nil {
		t.Fatalf("the local credential used a remote agent's session: %d %v", status, msgs)
	}
}

// remoteSession initializes an HTTP session with remote agent name's
// credential and returns its id.
func (f *fixture) remoteSession(t *testing.T, name string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+"/mcp", strings.NewReader(initMsg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer remote:"+name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("remote initialize: %s", resp.Status)
	}
	return sid
}

// Issue 34, item 5: an HTTP session outlives the daemon for a client that
// never initializes again (the Python SDK's streamable-HTTP client): the
// next daemon takes the same Mcp-Session-Id up again — for the credential
// that made it, and for no other.
func TestHTTPSessionSurvivesARestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), session.FileName)
	opts := func() *Options { return &Options{Sessions: session.Options{File: file}} }
	f := newFixture(t, opts())
	sid := f.httpSession(t)
	rs := f.remoteSession(t, "devbox")
	f.stop()

	f2 := newFixture(t, opts())
	status, msgs := f2.postAs(t, "remote:devbox", sid, healthCall)
	if status == 200 && len(msgs) == 1 && msgs[0]["result"] != nil {
		t.Fatalf("a remote agent's credential revived the local client's session: %v", msgs)
	}
	status, msgs = f2.postAs(t, "", sid, healthCall)
	if status != 200 || len(msgs) != 1 || dig(msgs[0], "result", "structuredContent", "caller", "session_id") != sid {
		t.Fatalf("the session after the restart: %d %v", status, msgs)
	}
	in := f2.s.SessionManager().Get(sid).Info()
	if in.State != session.Ready || in.Client.Name != "raw" {
		t.Fatalf("revived session %+v", in)
	}
	status, msgs = f2.postAs(t, "remote:devbox", rs, healthCall)
	if status != 200 || len(msgs) != 1 || dig(msgs[0], "result", "structuredContent", "caller", "session_id") != rs {
		t.Fatalf("the remote's session after the restart: %d %v", status, msgs)
	}
	if got := f2.s.SessionManager().Get(rs).Info(); got.Client.Name != "devbox" {
		t.Fatalf("revived remote session %+v", got)
	}
}
