package bridge

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/remote"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Remote agents (internal/remote): their credentials open /mcp only; each
// call of their sessions is judged against their scope before the
// approval gate; revoking one (the CLI through /remotes/{name}/revoke, or
// the panel) and its expiry end its sessions at once.

// openRemotes loads the remote agents and lets the credential set know
// them. Ended sessions are ended through s.mcp once it exists.
func (s *Server) openRemotes() {
	s.remotes = remote.Open(remote.Config{Dir: s.cfg.Dir, Logger: s.log, Ended: func(principal string) {
		if m := s.mcp; m != nil {
			if n := m.EndPrincipal(principal); n > 0 {
				s.log.Info("a remote agent's sessions ended with its credential", "principal", principal, "sessions", n)
			}
		}
	}})
	s.creds.SetRemotes(s.remotes)
}

// handleRevokeRemote is `gasoline-host remote revoke NAME` (approver
// credential): the store loses the agent and its sessions end now.
func (s *Server) handleRevokeRemote(w http.ResponseWriter, r *http.Request) {
	err := s.remotes.Revoke(r.PathValue("name"))
	switch {
	case errors.Is(err, remote.ErrUnknown):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// remoteScope is mcpserver.Options.Scope: nil for a local session; for a
// remote agent's, its scope's verdict on the call (batch steps included).
func (s *Server) remoteScope(_ context.Context, c *mcpserver.Call) *tools.Error {
	principal := c.Session.Principal()
	if !strings.HasPrefix(principal, "remote:") {
		return nil
	}
	sc, ok := s.remotes.Scope(principal)
	if !ok {
		return &tools.Error{Code: remote.CodeOutOfScope, Message: "this remote agent's credential was revoked or has expired; ask the user for a new one (gasoline-host remote add)"}
	}
	call := scopeCall(c.Mode, &c.Args)
	if c.Mode.OnPage { // a mode that reaches no page may be called whatever the tab shows
		if tab, ok := s.browser.tabs.Resolve(c.Session.ID(), c.Args.TabID); ok {
			call.Page = s.browser.tabs.URL(tab)
		}
	}
	if e := sc.Check(call); e != nil {
		return e
	}
	return s.remoteSteps(sc, c)
}

// scopeCall is what a remote agent's scope judges of a call of mode m:
// where it goes (a mode that takes the tab somewhere) and whether it
// names files of this machine (Mode.Paths).
func scopeCall(m *tools.Mode, a *tools.Args) remote.Call {
	call := remote.Call{Mode: m}
	if m.Tab.Destination() {
		call.Target = a.URL
	}
	if m.Paths != "" {
		files, _ := a.Named(m.Paths).([]string)
		call.Paths = len(files) > 0
	}
	return call
}

// remoteSteps judges each step of an interact batch as its own call.
func (s *Server) remoteSteps(sc remote.Scope, c *mcpserver.Call) *tools.Error {
	for i := range c.Args.Steps {
		st := &c.Args.Steps[i]
		m, ok := tools.Lookup(c.Mode.Tool, st.What)
		if !ok {
			continue // the dispatcher refuses it on its own
		}
		if e := sc.Check(scopeCall(m, &st.Args)); e != nil {
			return e
		}
	}
	return nil
}
