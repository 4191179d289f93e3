package recorder

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Register serves configure recording_start and recording_stop on m, and
// watches every call that drives the page, so the recorder knows when the
// agent acts (source.go).
func (r *Recorder) Register(m *mcpserver.Server) {
	r.mu.Lock()
	r.alive = func(sid string) bool { return m.SessionManager().Get(sid) != nil }
	r.mu.Unlock()
	m.Handle("configure", "recording_start", r.start)
	m.Handle("configure", "recording_stop", r.stop)
	m.Watch(r)
}

// Watches says which calls are the agent acting: those of the modes that
// drive the page (tools.Mode.DrivesPage). The Recorder is an
// mcpserver.Watcher.
func (r *Recorder) Watches(m *tools.Mode) bool { return m.DrivesPage }

// Begin marks the session's agent as acting until the call ends.
func (r *Recorder) Begin(_ context.Context, c *mcpserver.Call) func(any, error) {
	end := r.begin(c.Session.ID())
	return func(any, error) { end() }
}
