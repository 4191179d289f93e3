package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// protocolCases are answered alike on the relay's link and /mcp.
var protocolCases = []struct {
	name, send string
	code       float64 // 0: no answer expected
	id         any
}{
	{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, -32700, nil},
	{"not an object", `"hello"`, -32600, nil},
	{"not JSON-RPC", `{"id":5,"hello":1}`, -32600, 5.0},
	{"unknown method", `{"jsonrpc":"2.0","id":"x","method":"nope/nope"}`, -32601, "x"},
	{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"}`, 0, nil},
}

func TestLinkProtocolErrorsKeepTheSession(t *testing.T) {
	f := newFixture(t, nil)
	w := f.link(t, "")
	w.initialize()
	for _, tt := range protocolCases {
		t.Run(tt.name, func(t *testing.T) {
			w.send(tt.send)
			if tt.code != 0 {
				got := w.recv()
				if dig(got, "error", "code") != tt.code || got["id"] != tt.id {
					t.Fatalf("answer %v, want code %v id %v", got, tt.code, tt.id)
				}
			}
			// The session survives: the next request is answered.
			if got := w.roundTrip(`{"jsonrpc":"2.0","id":99,"method":"ping"}`); got["id"] != 99.0 || got["result"] == nil {
				t.Fatalf("ping after %s: %v", tt.name, got)
			}
		})
	}
	if got := w.roundTrip(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); dig(got, "error", "code") != -32600.0 {
		t.Errorf("batch: %v", got)
	}
}

func TestHTTPProtocolErrorsKeepTheSession(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.httpSession(t)
	for _, tt := range protocolCases {
		t.Run(tt.name, func(t *testing.T) {
			status, _, msgs := f.httpPost(t, sid, tt.send)
			if tt.code == 0 {
				if status != http.StatusAccepted || len(msgs) != 0 {
					t.Fatalf("notification: %d %v", status, msgs)
				}
			} else if len(msgs) != 1 || dig(msgs[0], "error", "code") != tt.code || msgs[0]["id"] != tt.id {
				t.Fatalf("answer %d %v, want code %v id %v", status, msgs, tt.code, tt.id)
			}
			if _, _, msgs := f.httpPost(t, sid, `{"jsonrpc":"2.0","id":99,"method":"ping"}`); len(msgs) != 1 || msgs[0]["result"] == nil {
				t.Fatalf("ping after %s: %v", tt.name, msgs)
			}
		})
	}
}

func TestHTTPUnknownSessionSaysWhatToDo(t *testing.T) {
	f := newFixture(t, nil)
	status, _, msgs := f.httpPost(t, "gone", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if status != http.StatusNotFound || len(msgs) != 1 || msgs[0]["id"] != 3.0 ||
		!strings.Contains(dig(msgs[0], "error", "message").(string), "send initialize again") {
		t.Fatalf("unknown session: %d %v", status, msgs)
	}
}

func TestSessionCounts(t *testing.T) {
	f := newFixture(t, nil)
	w := f.link(t, "")
	w.initialize()
	f.httpSession(t)
	f.httpSession(t)
	w.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if st, ht := f.s.Sessions(); st != 1 || ht != 2 {
		t.Fatalf("Sessions() = %d, %d; want 1, 2", st, ht)
	}
	info := f.s.sessions.Get(w.session).Info()
	if info.Transport != session.Stdio || info.Client.Name != "raw" || info.State != session.Ready {
		t.Fatalf("stdio session %+v", info)
	}
}

// TestClientVanishesMidCall: a stdio client that disappears while its call
// runs loses nothing — the other session is unaffected, the command
// finishes, and the client resuming its session id finds the result.
func TestClientVanishesMidCall(t *testing.T) {
	f := newFixture(t, nil)
	release, started := make(chan struct{}), make(chan struct{})
	f.s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
		close(started)
		select {
		case <-release:
			return map[string]any{"title": "Kept"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	a, b := f.link(t, ""), f.link(t, "")
	a.initialize()
	b.initialize()
	a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page","timeout_ms":60000}}}`)
	<-started
	a.close() // vanish mid-call

	got := b.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"configure","arguments":{"what":"health"}}}`)
	if dig(got, "result", "structuredContent", "caller", "session_id") != b.session {
		t.Fatalf("other session's call: %v", got)
	}
	close(release)
	sess := f.s.sessions.Get(a.session)
	for _, ci := range sess.Commands(0, 10) {
		c, _ := sess.Command(ci.CorrelationID)
		<-c.Done()
	}

	a2 := f.link(t, a.handle())
	if !a2.resumed || a2.session != a.session {
		t.Fatalf("resume: session %s resumed %v, want %s true", a2.session, a2.resumed, a.session)
	}
	a2.initialize()
	list := a2.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"observe","arguments":{"what":"pending_commands"}}}`)
	cmds, _ := dig(list, "result", "structuredContent", "commands").([]any)
	if len(cmds) != 1 || dig(cmds[0], "status") != "complete" {
		t.Fatalf("pending_commands after resume: %v", list)
	}
	id := dig(cmds[0], "correlation_id").(string)
	res := a2.roundTrip(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"` + id + `"}}}`)
	if dig(res, "result", "structuredContent", "result", "title") != "Kept" {
		t.Fatalf("command_result after resume: %v", res)
	}
	// A hint the daemon does not know starts a fresh session.
	if c := f.link(t, "unknown-session"); c.resumed || c.session == "unknown-session" {
		t.Fatalf("unknown hint: %+v", c)
	}
}
