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
}

// Endpoints lists every route the daemon serves, in the order of the
// table in docs/SECURITY.md. The guard of each is derived from its Role,
// so no route can be added without saying who may call it.
func (s *Server) Endpoints() []Endpoint {
	return []Endpoint{
		{"GET /health", creds.None, http.HandlerFunc(s.handleHealth)},
		{"/mcp", creds.Agent, s.mcpHTTP},
		{"GET /ws/mcp", creds.Agent, s.mcpWS},
		{"GET /ws/host", creds.Link, http.HandlerFunc(s.handleHostWS)},
		{"GET /approvals", creds.Approver, http.HandlerFunc(s.handleListApprovals)},
		{"POST /approvals/{id}/approve", creds.Approver, http.HandlerFunc(s.handleApprove)},
		{"POST /approvals/{id}/deny", creds.Approver, http.HandlerFunc(s.handleDeny)},
		{"POST /grants/{id}/revoke", creds.Approver, http.HandlerFunc(s.handleRevoke)},
		{"POST /shutdown", creds.Approver, http.HandlerFunc(s.handleShutdown)},
		{"GET /debug/memory", creds.Approver, http.HandlerFunc(s.handleMemory)},
		{"GET /debug/pprof/heap", creds.Approver, http.HandlerFunc(s.handleHeapProfile)},
	}
}

// routes mounts every endpoint behind its guard. Every request marks
// activity as it starts and as it ends, so the daemon releases memory at
// rest only when idle (release.go).
func (s *Server) routes() {
	for _, e := range s.Endpoints() {
		h := httpguard.WrapHostOnly(e.handler)
		if e.Role != creds.None {
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
