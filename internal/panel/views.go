package panel

import (
	"encoding/json"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// The panel names a session by its client — a remote agent by the
// remote's name — and by a handle (handle), never by its id: the id is
// what a client presents to resume its session, and nothing the panel
// shows may let a page (or anyone reading the screen) present it (issue
// 27, item 4).

// Asker is who made an approval request or holds a grant, as the panel
// shows it.
type Asker struct {
	// Session is the session's handle (s_…), which resumes nothing.
	Session string `json:"session"`
	// ClientName is the client that asked ("claude-code"), or the remote
	// agent's name ("devbox").
	ClientName string `json:"client_name"`
	// Remote is set for a remote agent: its name.
	Remote string `json:"remote,omitempty"`
}

// RequestView is an approval request as the panel shows it: the
// request's fields but session_id, and the Asker's.
type RequestView struct {
	approval.Request
	Asker
}

// MarshalJSON drops session_id.
func (v RequestView) MarshalJSON() ([]byte, error) { return withAsker(v.Request, v.Asker) }

// GrantView is a site grant as the panel shows it.
type GrantView struct {
	approval.SiteGrant
	Asker
}

// MarshalJSON drops session_id.
func (v GrantView) MarshalJSON() ([]byte, error) { return withAsker(v.SiteGrant, v.Asker) }

// EventView is an approval event as the panel receives it: its request is
// a RequestView.
type EventView struct {
	approval.Event
	View RequestView
}

// MarshalJSON puts the view in place of the event's request.
func (v EventView) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(v.Event)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m["request"], err = json.Marshal(v.View); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// withAsker is v's JSON object without session_id, with a's fields.
func withAsker(v any, a Asker) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "session_id")
	extra, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	var e map[string]json.RawMessage
	if err := json.Unmarshal(extra, &e); err != nil {
		return nil, err
	}
	for k, x := range e {
		m[k] = x
	}
	return json.Marshal(m)
}

// Names turns session ids into what the panel shows.
type Names struct {
	Sessions *session.Manager
}

func (n Names) asker(sid string) Asker {
	a := Asker{Session: handle(sid), ClientName: "an MCP client"}
	if sid == SessionID {
		a.ClientName = "this panel's conversation"
		return a
	}
	if n.Sessions == nil {
		return a
	}
	if s := n.Sessions.Get(sid); s != nil {
		in := s.Info()
		a.Remote = in.Remote
		if in.Client.Name != "" {
			a.ClientName = in.Client.Name
		}
	}
	return a
}

// Requests is the panel's view of pending requests.
func (n Names) Requests(rs []approval.Request) []RequestView {
	out := make([]RequestView, len(rs))
	for i, r := range rs {
		out[i] = RequestView{Request: r, Asker: n.asker(r.SessionID)}
	}
	return out
}

// Grants is the panel's view of site grants.
func (n Names) Grants(gs []approval.SiteGrant) []GrantView {
	out := make([]GrantView, len(gs))
	for i, g := range gs {
		out[i] = GrantView{SiteGrant: g, Asker: n.asker(g.SessionID)}
	}
	return out
}

// Event is the panel's view of an approval event.
func (n Names) Event(ev approval.Event) EventView {
	return EventView{Event: ev, View: RequestView{Request: ev.Request, Asker: n.asker(ev.Request.SessionID)}}
}
