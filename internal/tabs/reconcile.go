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

// nextEpoch starts a new connection of slot's browser: a reconcile of an
// earlier one changes nothing from now on.
func (m *Manager) nextEpoch(slot browsers.Slot) uint64 {
	m.recon.Lock()
	defer m.recon.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.epochs[slot]++
	return m.epochs[slot]
}

// apply runs one change of a reconcile of slot's browser, unless a newer
// connection of it began meanwhile; it reports whether it ran.
func (m *Manager) apply(slot browsers.Slot, epoch uint64, change func()) bool {
	m.recon.Lock()
	defer m.recon.Unlock()
	m.mu.Lock()
	current := m.epochs[slot] == epoch
	m.mu.Unlock()
	if current {
		change()
	}
	return current
}

func (m *Manager) reconcile(ctx context.Context, slot browsers.Slot, epoch uint64) {
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
		m.reconcileSession(ctx, sid, slot, epoch, seq, present)
	}
	m.saved()
	m.enableIn(slot)
}

// reconcileSession makes one session's tabs in slot's browser follow its
// group there.
func (m *Manager) reconcileSession(ctx context.Context, sid string, slot browsers.Slot, epoch, seq uint64, present map[int]Tab) {
	group := m.reg.Group(sid, slot)
	fresh := m.reg.GroupSince(sid, slot) > seq
	for _, t := range m.reg.Tabs(sid) {
		if browsers.SlotOf(t) != slot || m.reg.Since(t) > seq {
			continue
		}
		tab, ok := present[t]
		switch {
		case !ok:
			m.apply(slot, epoch, func() { m.release(t, ReasonClosed) })
		case group != NoGroup && !fresh && tab.GroupID != group:
			released := false
			m.apply(slot, epoch, func() { released = m.release(t, ReasonUngrouped) })
			if released {
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
		m.apply(slot, epoch, func() { m.takeFor(sid, id) })
	}
	if !alive { // its last tab left: Chrome removed the group
		m.apply(slot, epoch, func() { m.reg.SetGroup(sid, slot, NoGroup) })
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
	m.recon.Lock()
	defer m.recon.Unlock()
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
