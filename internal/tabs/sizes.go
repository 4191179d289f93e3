package tabs

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Held is how many tabs sessions own now: the bound of every store kept
// per tab (what a tab held goes when it leaves its session).
func (r *Registry) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.owner)
}

// Sizes reports the tab manager's stores (the daemon's memory report):
// the tabs owned, the sessions with tabs, and what is kept per tab and per
// session. sessions is the most MCP sessions the daemon keeps; attach
// state is kept for every tab the debugger attached to until it closes.
func (m *Manager) Sizes(sessions int) []memory.Store {
	held := m.reg.Held()
	r := m.reg
	r.mu.Lock()
	owners, gone := len(r.sessions), 0
	for _, o := range r.sessions {
		gone += len(o.gone)
	}
	r.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	return []memory.Store{
		{Name: "tabs.owned", Len: held, Cap: held},
		{Name: "tabs.sessions", Len: owners, Cap: sessions},
		{Name: "tabs.gone", Len: gone, Cap: maxGone * sessions},
		{Name: "tabs.urls", Len: len(m.urls), Cap: held},
		{Name: "tabs.attach", Len: len(m.attach), Cap: held},
		{Name: "tabs.watched", Len: len(m.watched), Cap: sessions},
		{Name: "tabs.opening", Len: len(m.opening), Cap: sessions},
	}
}
