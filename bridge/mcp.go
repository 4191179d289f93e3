package bridge

import (
	"context"
	"net/http"
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
	return nil, nil
}
