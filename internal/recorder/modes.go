package recorder

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Register serves configure recording_start and recording_stop on m, and
// wraps every interact mode registered so far so the recorder knows when
// the agent acts (source.go). Call it after the interact modes are
// registered.
func (r *Recorder) Register(m *mcpserver.Server) {
	r.mu.Lock()
	r.alive = func(sid string) bool { return m.SessionManager().Get(sid) != nil }
	r.mu.Unlock()
	m.Handle("configure", "recording_start", r.start)
	m.Handle("configure", "recording_stop", r.stop)
	t, _ := tools.Get("interact")
	for _, what := range t.ModeNames() {
		m.Wrap("interact", what, func(h mcpserver.Handler) mcpserver.Handler {
			return func(ctx context.Context, c *mcpserver.Call) (any, error) {
				defer r.begin(c.Session.ID())()
				return h(ctx, c)
			}
		})
	}
}
