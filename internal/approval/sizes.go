package approval

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the engine keeps against its bounds (the daemon's
// memory report); sessions is the most MCP sessions the daemon keeps (site
// grants are bounded per session, and an ended session's go with it).
func (e *Engine) Sizes(sessions int) []memory.Store {
	s := e.st
	s.mu.Lock()
	defer s.mu.Unlock()
	return []memory.Store{
		{Name: "approval.pending", Len: len(s.pending), Cap: e.opts.MaxPending},
		{Name: "approval.decided", Len: len(s.done), Cap: e.opts.MaxHistory},
		{Name: "approval.tokens", Len: len(s.tokens), Cap: e.opts.MaxHistory},
		{Name: "approval.grants", Len: len(s.grants), Cap: e.opts.MaxGrantsPerSession * sessions},
	}
}
