package panel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// Issue 27, item 4: the panel receives no session id — the id is what a
// client presents to resume its session — only the client's name (a
// remote agent's own) and a handle that resumes nothing.
func TestThePanelIsNeverSentASessionID(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := session.New(ctx, nil)
	t.Cleanup(func() { cancel(); m.Wait() })
	const local, remote = "LOCALSESSIONID234567", "REMOTESESSIONID34567"
	s, _, _, _ := m.Claim(local, session.HTTP, session.Binding{Principal: "agent"})
	s.SetClient(session.Client{Name: "claude-code", Version: "2"})
	r, _, _, _ := m.Claim(remote, session.HTTP, session.Binding{Principal: "remote:x", Remote: "devbox"})
	r.SetClient(session.Client{Name: "devbox", Program: "codex"})
	n := Names{Sessions: m}

	reqs := n.Requests([]approval.Request{{RequestID: "req_1", SessionID: local}, {RequestID: "req_2", SessionID: remote}})
	grants := n.Grants([]approval.SiteGrant{{GrantID: "grt_1", SessionID: remote}})
	ev := n.Event(approval.Event{Type: approval.Requested, Request: approval.Request{RequestID: "req_3", SessionID: local}})
	raw, err := json.Marshal(map[string]any{"pending": reqs, "grants": grants, "event": ev})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{local, remote, "session_id"} {
		if strings.Contains(string(raw), id) {
			t.Fatalf("the panel would receive %q:\n%s", id, raw)
		}
	}
	var got struct {
		Pending []map[string]any `json:"pending"`
		Grants  []map[string]any `json:"grants"`
	}
	json.Unmarshal(raw, &got)
	if got.Pending[0]["client_name"] != "claude-code" || got.Pending[0]["session"] != handle(local) || got.Pending[0]["request_id"] != "req_1" {
		t.Fatalf("local request %v", got.Pending[0])
	}
	if got.Pending[1]["client_name"] != "devbox" || got.Pending[1]["remote"] != "devbox" || got.Grants[0]["remote"] != "devbox" {
		t.Fatalf("remote request %v, grant %v", got.Pending[1], got.Grants[0])
	}
}
