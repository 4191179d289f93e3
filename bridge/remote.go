package bridge

import (
	"context"
	"errors"
	"net/http"
	"slices"
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

// noPage are the modes that act on no page: a remote agent may call them
// whatever its current tab shows.
var noPage = []string{"observe.tabs", "observe.approvals", "observe.pending_commands", "observe.command_result",
	"interact.switch_tab", "interact.close_tab", "interact.new_tab"}

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
	call := remote.Call{Mode: c.Mode}
	switch c.Mode.Key() {
	case "interact.navigate", "interact.new_tab":
		call.Target = c.Str("url")
	case "interact.upload":
		files, _ := c.Args["files"].([]any)
		call.Paths = len(files) > 0
	}
	if (c.Mode.Tool == "observe" || c.Mode.Tool == "interact" || c.Mode.Tool == "analyze") && !slices.Contains(noPage, c.Mode.Key()) {
		if tab, ok := s.browser.tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0)); ok {
			call.Page = s.browser.tabs.URL(tab)
		}
	}
	if e := sc.Check(call); e != nil {
		return e
	}
	return s.remoteSteps(sc, c)
}

// remoteSteps judges each step of an interact batch as its own call.
func (s *Server) remoteSteps(sc remote.Scope, c *mcpserver.Call) *tools.Error {
	steps, _ := c.Args["steps"].([]any)
	for _, raw := range steps {
		st, _ := raw.(map[string]any)
		what, _ := st["what"].(string)
		m, ok := tools.Lookup("interact", what)
		if !ok {
			continue // the dispatcher refuses it on its own
		}
		call := remote.Call{Mode: m}
		if u, _ := st["url"].(string); what == "navigate" || what == "new_tab" {
			call.Target = u
		}
		if files, _ := st["files"].([]any); what == "upload" && len(files) > 0 {
			call.Paths = true
		}
		if e := sc.Check(call); e != nil {
			return e
		}
	}
	return nil
}
