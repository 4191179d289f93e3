package safety

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the safety core keeps against its bounds (the
// daemon's memory report): the approval engine's stores, the per-session
// redaction counters and the redaction engine's key cache. sessions is the most MCP sessions the
// daemon keeps.
func (c *Core) Sizes(sessions int) []memory.Store {
	r := &c.red
	r.mu.Lock()
	counted := len(r.sessions)
	r.mu.Unlock()
	out := append(c.Approvals.Sizes(sessions),
		memory.Store{Name: "safety.redaction_counters", Len: counted, Cap: maxCountedSessions})
	e, _ := r.store.Engine() // nil when the policy is broken: an empty cache
	return append(out, e.Sizes()...)
}
