package tabs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
)

// The browser's tab groups are the truth of ownership. Whenever a browser
// connects — after a daemon restart, a service-worker restart, a native
// host restart — its tabs are listed and every session's tabs there are
// made to follow the session's group: a tab no longer there closed; a tab
// outside the group was taken back by the user; a tab the user moved into
// the group while nobody was listening is shared now. What changed after
// the listing began (a tab a call is opening) is left for the next time.

// reconcileTimeout bounds listing a browser's tabs.
const reconcileTimeout = 10 * time.Second

func (m *Manager) reconcile(ctx context.Context, slot browsers.Slot) {
	ctx, cancel := context.WithTimeout(ctx, reconcileTimeout)
	defer cancel()
	seq := m.reg.Seq()
	raw, err := m.cfg.Browsers.CallIn(ctx, slot, "tabs.query", struct{}{})
	var q struct {
		Tabs []Tab `json:"tabs"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &q)
	}
	if err != nil {
		m.log.Info("listing a browser's tabs failed; ownership stays as it was", "slot", slot, "err", err)
		m.enableIn(slot)
		return
	}
	present := make(map[int]Tab, len(q.Tabs))
	for _, t := range q.Tabs {
		t.ID = browsers.TabID(slot, t.ID)
		present[t.ID] = t
	}
	for _, sid := range m.reg.Sessions() {
		m.reconcileSession(ctx, sid, slot, seq, present)
	}
	m.saved()
	m.enableIn(slot)
}

// reconcileSession makes one session's tabs in slot's browser follow its
// group there.
func (m *Manager) reconcileSession(ctx context.Context, sid string, slot browsers.Slot, seq uint64, present map[int]Tab) {
	group := m.reg.Group(sid, slot)
	fresh := m.reg.GroupSince(sid, slot) > seq
	for _, t := range m.reg.Tabs(sid) {
		if browsers.SlotOf(t) != slot || m.reg.Since(t) > seq {
			continue
		}
		tab, ok := present[t]
		switch {
		case !ok:
			m.release(t, ReasonClosed)
		case group != NoGroup && !fresh && tab.GroupID != group:
			if m.release(t, ReasonUngrouped) {
				m.detach(ctx, t)
			}
		}
	}
	if group == NoGroup || fresh {
		return
	}
	alive := false
	for id, tab := range present {
		if tab.GroupID != group {
			continue
		}
		alive = true
		if owner, ok := m.reg.Owner(id); !ok || owner != sid {
			m.adopt(sid, id)
		}
	}
	if !alive { // its last tab left: Chrome removed the group
		m.reg.SetGroup(sid, slot, NoGroup)
	}
}

// enableIn enables capture again, in the background, in the owned tabs of
// slot's browser.
func (m *Manager) enableIn(slot browsers.Slot) {
	for _, t := range m.reg.AllOwned() {
		if browsers.SlotOf(t) == slot {
			m.ensureLater(t)
		}
	}
}

// forgetBrowser releases every tab and group in slot's browser: it
// started again, and its ids of before name other tabs now.
func (m *Manager) forgetBrowser(slot browsers.Slot) {
	for _, t := range m.reg.AllOwned() {
		if browsers.SlotOf(t) == slot {
			m.release(t, ReasonRestarted)
		}
	}
	for _, sid := range m.reg.Sessions() {
		m.reg.SetGroup(sid, slot, NoGroup)
	}
	m.saved()
	m.log.Info("a browser restarted; the tabs sessions held in it are released", "slot", slot)
}
