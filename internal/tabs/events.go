package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// detachTimeout bounds one cdp.detach or cdp.detach_all call.
const detachTimeout = 5 * time.Second

// OnEvent updates tab state from an extension event whose tab ids are
// Gasoline tab ids already. It runs on the link's read goroutine and never
// blocks: I/O it triggers runs in the background. Call it before the CDP
// router forgets the tab, so a waiter that sees its events end can tell
// why.
func (m *Manager) OnEvent(method string, params json.RawMessage) {
	var p struct {
		TabID    int    `json:"tab_id"`
		Reason   string `json:"reason"`
		URL      string `json:"url"`
		GroupID  *int   `json:"group_id"`
		Replaced int    `json:"replaced_tab_id"`
		Opener   int    `json:"opener_tab_id"`
	}
	switch method {
	case "tabs.opened", "tabs.removed", "tabs.ungrouped", "tabs.grouped", "cdp.attached", "cdp.detached", "tabs.updated", "tabs.replaced":
		if json.Unmarshal(params, &p) != nil {
			return
		}
	default:
		return
	}
	switch method {
	case "tabs.updated":
		if m.reg.Owned(p.TabID) {
			m.setURL(p.TabID, p.URL)
			if p.URL != "" {
				m.popupSignal() // an answer may wait to name a popup's page
			}
		}
	case "tabs.opened":
		m.opened(p.TabID, p.Opener, p.GroupID, p.URL)
	case "tabs.removed":
		m.release(p.TabID, ReasonClosed)
		m.mu.Lock()
		delete(m.attach, p.TabID)
		m.mu.Unlock()
	case "tabs.replaced":
		m.replaced(p.Replaced, p.TabID)
	case "tabs.ungrouped":
		if sid, ok := m.reg.Owner(p.TabID); ok {
			tab := p.TabID
			m.g.Go(func(ctx context.Context) { m.ungrouped(ctx, sid, tab) })
		}
	case "tabs.grouped":
		if p.GroupID != nil {
			m.grouped(p.TabID, *p.GroupID)
		}
	case "cdp.attached":
		owned := m.reg.Owned(p.TabID)
		m.mu.Lock()
		if st := m.tracked(p.TabID, owned); st != nil {
			st.gen++
		}
		m.mu.Unlock()
		if owned {
			m.ensureLater(p.TabID)
		}
	case "cdp.detached":
		if p.Reason == "" {
			p.Reason = "detached"
		}
		owned := m.reg.Owned(p.TabID)
		m.mu.Lock()
		if st := m.tracked(p.TabID, owned); st != nil {
			st.gen++
			st.detached = p.Reason
		}
		m.mu.Unlock()
	}
}

// LinkReady is called when a browser completed its handshake. A browser
// that started again since its tabs were recorded (restarted) has other
// tab and group ids now: its tabs leave their sessions. Otherwise its tab
// groups are read and ownership follows them (reconcile), then capture is
// enabled again in the owned tabs (an extension that restarted lost its
// attachments; one that did not answers at once).
func (m *Manager) LinkReady(slot browsers.Slot, restarted bool) {
	epoch := m.nextEpoch(slot) // a reconcile of an earlier link stops here
	if restarted {
		m.forgetBrowser(slot)
		return
	}
	m.g.Go(func(ctx context.Context) { m.reconcile(ctx, slot, epoch) })
}

// LinkLost is called when a browser's link closed: every attachment in it
// may be gone with it.
func (m *Manager) LinkLost(slot browsers.Slot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for tab, st := range m.attach {
		if browsers.SlotOf(tab) == slot {
			st.gen++
		}
	}
}

// release takes tab from its session: calls waiting on the browser for it
// end with the error later calls get (a tab the user took back would
// otherwise go on answering), its buffers go (Released), and the change is
// saved. It reports whether a session owned it.
func (m *Manager) release(tab int, reason string) bool {
	sid, kind, ok := m.reg.Release(tab, reason)
	m.mu.Lock()
	delete(m.urls, tab)
	delete(m.attach, tab) // held anew, capture is enabled anew
	m.mu.Unlock()
	if ok {
		if reason != ReasonClosed { // a closed tab's calls fail by themselves, and say where they were
			m.cfg.Browsers.Revoke(tab, goneError(tab, reason, kind == Shared))
		}
		m.log.Info("tab left session", "tab", tab, "session", sid, "reason", reason, "kind", kind)
		m.cfg.Released(tab, reason)
		m.saved()
	}
	return ok
}

// replaced moves an owned tab to the id of the tab Chrome put in its place
// (chrome.tabs.onReplaced: a discarded tab brought back, a prerendered page
// swapped in). The new tab is the session's, in the old one's place, of the
// same kind, with its URL; the old tab's state is released (capture
// buffers, refs, waiters on its events: they belong to a page that is
// gone, and its debugger attachment went with it), and capture is enabled
// in the new tab in the background. A call naming the old id is told to
// use the new one. The change is saved.
func (m *Manager) replaced(old, now int) {
	if old <= 0 || now <= 0 {
		return
	}
	sid, ok := m.reg.Replace(old, now)
	m.mu.Lock()
	if url := m.urls[old]; ok && url != "" {
		m.urls[now] = url
	}
	delete(m.urls, old)
	delete(m.attach, old)
	m.mu.Unlock()
	if !ok {
		if m.reg.Owned(old) { // another session owns now: old is gone all the same
			m.release(old, ReasonClosed)
		}
		return
	}
	m.log.Info("tab replaced", "tab", old, "by", now, "session", sid)
	m.cfg.Browsers.Allow(now)
	m.cfg.Released(old, ReasonReplaced)
	m.saved()
	m.ensureLater(now)
}

// ungrouped handles a tab that left session sid's group. Chrome also
// reports that when a grouped tab closes, so the tab is looked up first: a
// tab that still exists outside the session's group was taken back by the
// user (released, debugger detached); one that is gone was closed. A tab
// that moved on to another session meanwhile is left alone.
func (m *Manager) ungrouped(ctx context.Context, sid string, tab int) {
	ctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	raw, err := m.cfg.Link.Call(ctx, "tabs.get", map[string]int{"tab_id": tab})
	if owner, ok := m.reg.Owner(tab); !ok || owner != sid {
		return
	}
	var pe *protocol.Error
	var res struct {
		Tab Tab `json:"tab"`
	}
	switch {
	case errors.As(err, &pe) && pe.Code == protocol.CodeTabClosed:
		m.release(tab, ReasonClosed)
	case err != nil:
		m.log.Info("checking an ungrouped tab failed; it stays in the session", "tab", tab, "err", err)
	case json.Unmarshal(raw, &res) == nil && res.Tab.GroupID != NoGroup && res.Tab.GroupID == m.reg.Group(sid, browsers.SlotOf(tab)):
		// back in the session's group already
	case m.release(tab, ReasonUngrouped):
		m.detach(ctx, tab) // drop the debugging bar from the user's tab
	}
}

func (m *Manager) detach(ctx context.Context, tab int) {
	ctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	if _, err := m.cfg.Link.Call(ctx, "cdp.detach", map[string]int{"tab_id": tab}); err != nil {
		m.log.Debug("detach failed", "tab", tab, "err", err)
	}
}

// watch ends the session's tab ownership when the session ends (not when
// the daemon stops: ownership then stays in tabs.json for the next one).
func (m *Manager) watch(o Owner) {
	sid := o.ID()
	m.mu.Lock()
	if m.watched[sid] {
		m.mu.Unlock()
		return
	}
	m.watched[sid] = true
	m.mu.Unlock()
	m.g.Go(func(ctx context.Context) {
		select {
		case <-o.Done():
			if ctx.Err() == nil {
				m.EndSession(ctx, sid)
			}
		case <-ctx.Done():
		}
	})
}

// endTimeout bounds closing and detaching a session's tabs when it ends.
const endTimeout = 10 * time.Second

// EndSession releases the session's tabs: the tabs it opened are closed;
// the tabs the user shared leave its group and get their debugger
// detached, so Chrome's debugging bar does not linger. Its groups go with
// its last tabs.
func (m *Manager) EndSession(ctx context.Context, sid string) {
	held, _ := m.reg.EndSession(sid)
	m.mu.Lock()
	delete(m.watched, sid)
	delete(m.opening, sid)
	m.mu.Unlock()
	for _, h := range held {
		m.mu.Lock()
		delete(m.urls, h.Tab)
		m.mu.Unlock()
		m.cfg.Browsers.Revoke(h.Tab, goneError(h.Tab, ReasonEnded, h.Kind == Shared))
		m.cfg.Released(h.Tab, ReasonEnded)
	}
	m.saved()
	ctx, cancel := context.WithTimeout(ctx, endTimeout)
	defer cancel()
	closed, shared := 0, 0
	for _, h := range held {
		if h.Kind == Opened {
			if _, err := m.cfg.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": h.Tab}); err != nil {
				m.log.Info("closing an ended session's tab failed; it stays open", "tab", h.Tab, "err", err)
			} else {
				closed++
			}
			continue
		}
		shared++
		if _, err := m.cfg.Link.Call(ctx, "tabs.ungroup", map[string]any{"tab_ids": []int{h.Tab}}); err != nil {
			m.log.Debug("ungrouping a shared tab failed", "tab", h.Tab, "err", err)
		}
		m.detach(ctx, h.Tab)
	}
	if len(held) > 0 {
		m.log.Info("session ended; its tabs closed, shared tabs handed back", "session", sid, "closed", closed, "shared", shared)
	}
}
