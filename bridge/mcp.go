package bridge

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// mcpStatus is what the MCP layer reports to /health.
type mcpStatus interface {
	// Sessions returns the live MCP sessions per transport.
	Sessions() (stdio, http int)
}

// mountMCP registers the MCP endpoints (/mcp streamable HTTP, /ws/mcp for
// the stdio relay) on mux behind s.guard. The MCP layer's goroutines stop
// with ctx.
func (s *Server) mountMCP(ctx context.Context, mux *http.ServeMux) (mcpStatus, error) {
	started := time.Now()
	m, err := mcpserver.New(ctx, &mcpserver.Options{
		Version: s.cfg.Version,
		Dir:     s.cfg.Dir,
		Logger:  s.log,
		Gate:    s.gate,
		Audit:   s.auditCall,
		Daemon: func() mcpserver.Daemon {
			return mcpserver.Daemon{PID: os.Getpid(), StartedAt: started, Extension: s.links.Connected()}
		},
	})
	if err != nil {
		return nil, err
	}
	s.safetyModes(m)
	mux.Handle("/mcp", s.guard.Wrap(m.HTTPHandler()))
	mux.Handle("GET /ws/mcp", s.guard.Wrap(m.WSHandler()))
	return m, nil
}
