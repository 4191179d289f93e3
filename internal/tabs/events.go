package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// detachTimeout bounds one cdp.detach or cdp.detach_all call.
const detachTimeout = 5 * time.Second

// OnEvent updates tab state from an extension event. It runs on the link's
// read goroutine and never blocks: I/O it triggers runs in the background.
// Call it before the CDP router forgets the tab, so a waiter that sees its
// events end can tell why.
func (m *Manager) OnEvent(method string, params json.RawMessage) {
	var p struct {
		TabID    int    `json:"tab_id"`
		Reason   string `json:"reason"`
		URL      string `json:"url"`
		Replaced int    `json:"replaced_tab_id"`
	}
	switch method {
	case "tabs.removed", "tabs.ungrouped", "cdp.attached", "cdp.detached", "tabs.updated", "tabs.replaced":
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
		}
	case "tabs.removed":
		m.release(p.TabID, ReasonClosed)
		m.mu.Lock()
		delete(m.attach, p.TabID)
		m.mu.Unlock()
	case "tabs.replaced":
		m.replaced(p.Replaced, p.TabID)
	case "tabs.ungrouped":
		if m.reg.Owned(p.TabID) {
			tab := p.TabID
			m.g.Go(func(ctx context.Context) { m.ungrouped(ctx, tab) })
		}
	case "cdp.attached":
		m.mu.Lock()
		m.state(p.TabID).gen++
		m.mu.Unlock()
		if m.reg.Owned(p.TabID) {
			m.ensureLater(p.TabID)
		}
	case "cdp.detached":
		if p.Reason == "" {
			p.Reason = "detached"
		}
		m.mu.Lock()
		st := m.state(p.TabID)
		st.gen++
		st.detached = p.Reason
		m.mu.Unlock()
	}
}

// LinkReady is called when an extension link completed its handshake:
// capture is enabled again in the owned tabs (an extension that restarted
// lost its attachments; one that did not answers at once). A fresh daemon
// owns nothing and sends nothing: tabs a previous daemon left attached are
// detached by the extension's idle timer.
func (m *Manager) LinkReady() {
	for _, t := range m.reg.AllOwned() {
		m.ensureLater(t)
	}
}

// LinkLost is called when an extension link closed: every attachment may
// be gone with it.
func (m *Manager) LinkLost() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range m.attach {
		st.gen++
	}
}

// release takes tab from its session and tells Released. It reports
// whether a session owned it.
func (m *Manager) release(tab int, reason string) bool {
	sid, ok := m.reg.Release(tab, reason)
	m.mu.Lock()
	delete(m.urls, tab)
	m.mu.Unlock()
	if ok {
		m.log.Info("tab left session", "tab", tab, "session", sid, "reason", reason)
		m.cfg.Released(tab, reason)
	}
	return ok
}

// replaced moves an owned tab to the id of the tab Chrome put in its place
// (chrome.tabs.onReplaced: a discarded tab brought back, a prerendered page
// swapped in). The new tab is the session's, in the old one's place, with
// its URL; the old tab's state is released (capture buffers, refs, waiters
// on its events: they belong to a page that is gone, and its debugger
// attachment went with it), and capture is enabled in the new tab in the
// background. A call naming the old id is told to use the new one.
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
	m.cfg.Released(old, ReasonReplaced)
	m.ensureLater(now)
}

// ungrouped handles a tab that left the session's group. Chrome also
// reports that when a grouped tab closes, so the tab is looked up first: a
// tab that still exists was dragged out by the user, who takes it back
// (released, debugger detached); one that is gone was closed.
func (m *Manager) ungrouped(ctx context.Context, tab int) {
	ctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	_, err := m.cfg.Link.Call(ctx, "tabs.get", map[string]int{"tab_id": tab})
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe) && pe.Code == protocol.CodeTabClosed:
		m.release(tab, ReasonClosed)
	case err != nil:
		m.log.Info("checking an ungrouped tab failed; it stays in the session", "tab", tab, "err", err)
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

// watch ends the session's tab ownership when the session ends.
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
			m.EndSession(ctx, sid)
		case <-ctx.Done():
		}
	})
}

// EndSession releases the session's tabs and detaches the debugger from
// them, so Chrome's debugging bar does not linger. The tabs stay open.
func (m *Manager) EndSession(ctx context.Context, sid string) {
	tabs := m.reg.EndSession(sid)
	m.mu.Lock()
	delete(m.watched, sid)
	delete(m.opening, sid)
	m.mu.Unlock()
	for _, t := range tabs {
		m.mu.Lock()
		delete(m.urls, t)
		m.mu.Unlock()
		m.cfg.Released(t, ReasonEnded)
	}
	for _, t := range tabs {
		m.detach(ctx, t)
	}
	if len(tabs) > 0 {
		m.log.Info("session ended; tabs detached", "session", sid, "tabs", len(tabs))
	}
}
