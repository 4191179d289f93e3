package panel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Sharing the user's tab from the panel: "Share this tab with …" lists the
// connected agent sessions by client name; Share moves the tab into the
// chosen session's tab group, Stop sharing takes it back (internal/tabs).
// The panel never sees a session id (it resumes a session): it names a
// session by a handle, a hash of its id.

// SessionRef is a session as the panel sees it.
type SessionRef struct {
	Handle string `json:"session"`
	Client string `json:"client"`
}

// TabState is panel.tab's answer.
type TabState struct {
	TabID int `json:"tab_id"`
	// SharedWith is the session the user shared the tab with, or nil.
	SharedWith *SessionRef `json:"shared_with"`
	// OpenedBy is the agent session that opened the tab, or nil.
	OpenedBy *SessionRef `json:"opened_by"`
	// Sessions are the connected agent sessions it can be shared with.
	Sessions []SessionRef `json:"sessions"`
}

// handle names a session to the panel.
func handle(id string) string {
	h := sha256.Sum256([]byte("gasoline-panel-session:" + id))
	return "s_" + hex.EncodeToString(h[:6])
}

// agents lists the agent sessions that are connected (not the panel's).
func (p *Panel) agents() []SessionRef {
	var out []SessionRef
	for _, in := range p.cfg.Server.SessionManager().List() {
		if in.State != session.Ready || (in.Transport != session.Stdio && in.Transport != session.HTTP) {
			continue
		}
		name := in.Client.Name
		if name == "" {
			name = "an MCP client"
		}
		out = append(out, SessionRef{Handle: handle(in.ID), Client: name})
	}
	slices.SortFunc(out, func(a, b SessionRef) int {
		if a.Client != b.Client {
			if a.Client < b.Client {
				return -1
			}
			return 1
		}
		if a.Handle < b.Handle {
			return -1
		}
		return 1
	})
	return out
}

// ref describes session sid, or nil.
func (p *Panel) ref(sid string) *SessionRef {
	s := p.cfg.Server.SessionManager().Get(sid)
	if s == nil {
		return &SessionRef{Handle: handle(sid), Client: "a session that is away"}
	}
	name := s.Info().Client.Name
	if sid == SessionID {
		name = "this panel's conversation"
	}
	return &SessionRef{Handle: handle(sid), Client: name}
}

type tabParams struct {
	TabID   int    `json:"tab_id"`
	Session string `json:"session"`
}

func readTab(raw json.RawMessage) (tabParams, *protocol.Error) {
	var tp tabParams
	if err := json.Unmarshal(raw, &tp); err != nil || tp.TabID <= 0 {
		return tp, protocol.Errorf(protocol.CodeBadRequest, false, "needs tab_id (the tab the panel is on)")
	}
	return tp, nil
}

func (p *Panel) panelTab(raw json.RawMessage) (any, *protocol.Error) {
	tp, perr := readTab(raw)
	if perr != nil {
		return nil, perr
	}
	st := TabState{TabID: tp.TabID, Sessions: p.agents()}
	if st.Sessions == nil {
		st.Sessions = []SessionRef{}
	}
	if sid, shared, ok := p.cfg.Tabs.Holder(tp.TabID); ok {
		if shared {
			st.SharedWith = p.ref(sid)
		} else {
			st.OpenedBy = p.ref(sid)
		}
	}
	return st, nil
}

func (p *Panel) panelShare(ctx context.Context, raw json.RawMessage) (any, *protocol.Error) {
	tp, perr := readTab(raw)
	if perr != nil {
		return nil, perr
	}
	var sid, client string
	for _, in := range p.cfg.Server.SessionManager().List() {
		if handle(in.ID) == tp.Session && (in.Transport == session.Stdio || in.Transport == session.HTTP) {
			sid, client = in.ID, in.Client.Name
		}
	}
	if sid == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "no connected session %q; the list may be stale: pick again", tp.Session)
	}
	if err := p.cfg.Tabs.Share(ctx, sid, client, tp.TabID); err != nil {
		return nil, toProtocol(err)
	}
	p.log.Info("panel: the user shared a tab", "tab", tp.TabID, "session", sid)
	return p.panelTab(raw)
}

func (p *Panel) panelUnshare(ctx context.Context, raw json.RawMessage) (any, *protocol.Error) {
	tp, perr := readTab(raw)
	if perr != nil {
		return nil, perr
	}
	if err := p.cfg.Tabs.Unshare(ctx, tp.TabID); err != nil {
		return nil, toProtocol(err)
	}
	p.log.Info("panel: the user stopped sharing a tab", "tab", tp.TabID)
	return p.panelTab(raw)
}

// toProtocol turns a tab manager error into the panel's error.
func toProtocol(err error) *protocol.Error {
	var te *tools.Error
	if errors.As(err, &te) {
		return &protocol.Error{Code: te.Code, Message: te.Message, Retryable: te.Retryable, RetryAfterMS: te.RetryAfterMS}
	}
	return protocol.Errorf(protocol.CodeInternal, false, "%v", err)
}
