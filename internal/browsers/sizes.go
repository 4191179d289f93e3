package browsers

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the hub's stores (the daemon's memory report): the
// browsers remembered and connected, the tabs with calls in flight and the
// revoked tabs remembered.
func (h *Hub) Sizes() []memory.Store {
	h.mu.Lock()
	recs, live := len(h.recs), len(h.live)
	h.mu.Unlock()
	h.calls.mu.Lock()
	waiting, revoked := len(h.calls.byTab), len(h.calls.revoked)
	h.calls.mu.Unlock()
	return []memory.Store{
		{Name: "browsers.known", Len: recs, Cap: maxRecords},
		{Name: "browsers.connected", Len: live, Cap: maxRecords},
		{Name: "browsers.tabs_in_flight", Len: waiting, Cap: h.cfg.MaxInFlight * max(live, 1)},
		{Name: "browsers.revoked_tabs", Len: revoked, Cap: maxRevoked},
	}
}
