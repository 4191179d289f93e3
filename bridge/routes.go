package bridge

import (
	"net/http"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/httpguard"
)

// Endpoint is one route of the daemon and the one credential it takes
// (docs/SECURITY.md has the table for users). Role None means no
// credential: only /health, which never returns one.
type Endpoint struct {
	Pattern string // http.ServeMux pattern: "METHOD /path"
	Role    creds.Role
	handler http.Handler
	// Remote: a remote agent's credential (creds.Remote) opens it too.
	Remote bool
}

// Endpoints lists every route the daemon serves, in the order of the
// table in docs/SECURITY.md. The guard of each is derived from its Role,
// so no route can be added without saying who may call it.
func (s *Server) Endpoints() []Endpoint {
	return []Endpoint{
		{"GET /health", creds.None, http.HandlerFunc(s.handleHealth), false},
		{"/mcp", creds.Agent, s.mcpHTTP, true},
		{"GET /ws/host", creds.Link, http.HandlerFunc(s.handleHostWS), false},
		{"GET /approvals", creds.Approver, http.HandlerFunc(s.handleListApprovals), false},
		{"POST /approvals/{id}/approve", creds.Approver, http.HandlerFunc(s.handleApprove), false},
		{"POST /approvals/{id}/deny", creds.Approver, http.HandlerFunc(s.handleDeny), false},
		{"POST /grants/{id}/revoke", creds.Approver, http.HandlerFunc(s.handleRevoke), false},
		{"POST /remotes/{name}/revoke", creds.Approver, http.HandlerFunc(s.handleRevokeRemote), false},
		{"POST /shutdown", creds.Approver, http.HandlerFunc(s.handleShutdown), false},
		{"GET /debug/memory", creds.Approver, http.HandlerFunc(s.handleMemory), false},
		{"GET /debug/pprof/heap", creds.Approver, http.HandlerFunc(s.handleHeapProfile), false},
	}
}

// routes mounts every endpoint behind its guard. Every request marks
// activity as it starts and as it ends, so the daemon releases memory at
// rest only when idle (release.go).
func (s *Server) routes() {
	for _, e := range s.Endpoints() {
		h := httpguard.WrapHostOnly(e.handler)
		switch {
		case e.Remote:
			h = s.guard.RequireAny([]creds.Role{e.Role, creds.Remote}, e.handler)
		case e.Role != creds.None:
			h = s.guard.Require(e.Role, e.handler)
		}
		s.mux.Handle(e.Pattern, s.active(h))
	}
}

func (s *Server) active(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.touch()
		defer s.touch()
		h.ServeHTTP(w, r)
	})
}
