package bridge

import (
	"github.com/gasoline-mcp/gasoline/internal/buffers"
	"github.com/gasoline-mcp/gasoline/internal/csp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/notes"
)

// registerCaptureModes wires the modes over capture and the state
// directory: observe actions' recorder with configure recording_start and
// recording_stop, configure clear, store, load and noise_rule, and
// generate csp.
func (s *Server) registerCaptureModes(m *mcpserver.Server) {
	b := s.browser
	b.actions.Register(m)
	buffers.Register(m, buffers.Config{Store: b.store, Tabs: b.tabs.Registry()})
	notes.Register(m, notes.Config{Store: notes.Open(s.cfg.Dir), Redact: s.safe.Egress().Text})
	b.noise.Register(m)
	csp.Register(m, csp.Config{Tabs: b.tabs, Store: b.store})
}
