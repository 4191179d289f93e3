package tabs

import (
	"context"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Shared tabs: the user's own tabs given to a session. The user gives a
// tab by moving it into the session's tab group (drag, or the tab strip's
// "Add tab to group": the extension reports tabs.grouped), or with Share
// in the panel (Share below, which moves it into the group). Capture
// starts at that moment: what the tab logged before is never read. The
// user takes it back by moving it out, closing the group, or Stop sharing
// (Unshare): calls in flight end at once and later calls get
// tab_not_shared.

// Sessions lets the manager find sessions by id: restored sessions (their
// tabs came from tabs.json) and the sessions tabs are shared with are
// watched, so their tabs are handled when they end. Call it once the MCP
// server exists; get returns nil for a session it does not keep.
func (m *Manager) Sessions(get func(id string) Owner) {
	m.mu.Lock()
	m.lookup = get
	m.mu.Unlock()
	for _, sid := range m.reg.Sessions() {
		if !m.watchID(sid) {
			m.log.Info("tabs of a session that did not survive the restart are released", "session", sid)
			m.g.Go(func(ctx context.Context) { m.EndSession(ctx, sid) })
		}
	}
}

// watchID watches the session with that id; false when there is no such
// session.
func (m *Manager) watchID(sid string) bool {
	m.mu.Lock()
	get := m.lookup
	m.mu.Unlock()
	if get == nil {
		return true // not wired (tests): nothing to watch
	}
	o := get(sid)
	if o == nil {
		return false
	}
	m.watch(o)
	return true
}

// grouped handles a tab the user moved into a group of ours (tabs.grouped):
// the group's session gets it as a shared tab. A tab another session held
// leaves that session first (the user moved it).
func (m *Manager) grouped(tab, group int) {
	sid, ok := m.reg.GroupOwner(browsers.SlotOf(tab), group)
	if !ok {
		m.log.Debug("a tab joined a group no session holds", "tab", tab, "group", group)
		return
	}
	m.takeFor(sid, tab)
}

// takeFor gives the tab the user put in session sid's group to sid: a tab
// another session held leaves it first (the user moved it).
func (m *Manager) takeFor(sid string, tab int) {
	if owner, ok := m.reg.Owner(tab); ok {
		if owner == sid {
			return
		}
		m.release(tab, ReasonUngrouped)
	}
	m.adopt(sid, tab)
}

// adopt gives the user's tab to session sid as a shared tab, capture
// starting now.
func (m *Manager) adopt(sid string, tab int) bool { return m.give(sid, tab, true) }

// give gives the user's tab to sid as a shared tab; fresh: capture starts
// now (what the page logged before is not read).
func (m *Manager) give(sid string, tab int, fresh bool) bool {
	if fresh {
		m.targets.Get(tab).StartCapture(time.Now())
	}
	if !m.reg.Share(sid, tab) {
		return false
	}
	m.cfg.Browsers.Allow(tab)
	m.watchID(sid)
	m.saved()
	m.log.Info("the user shared a tab", "tab", tab, "session", sid, "capture_from_now", fresh)
	m.ensureLater(tab)
	return true
}

// Adopt gives the tab the panel is open on to the panel's session when no
// session holds it: the user asks the panel's agent about the page in
// front of them, so what the page already logged (what Chrome replays)
// is read too. It is the user's own tab: shared, never closed by
// Gasoline.
func (m *Manager) Adopt(sid string, tab int) {
	if !m.reg.Owned(tab) {
		m.give(sid, tab, false)
	}
}

// Share gives the user's tab to session sid from the panel: the tab joins
// the session's tab group in its browser (the group is made when the
// session has none there), and capture starts now.
func (m *Manager) Share(ctx context.Context, sid, client string, tab int) error {
	if owner, ok := m.reg.Owner(tab); ok {
		if owner == sid {
			return nil
		}
		return tools.Errorf(CodeTabNotOwned, "tab %d is already in another session's tab group; stop sharing it there first", tab)
	}
	unlock, err := m.lockOpening(ctx, sid)
	if err != nil {
		return ToolError(err)
	}
	defer unlock()
	slot := browsers.SlotOf(tab)
	group := m.reg.Group(sid, slot)
	// The title and colour make a group when the session has none here (or
	// Chrome removed it with its last tab); an existing group keeps its own.
	params := map[string]any{"tab_ids": []int{tab}, "title": GroupTitle(client), "color": m.nextColor()}
	if group != NoGroup {
		params["group_id"] = group
	}
	m.targets.Get(tab).StartCapture(time.Now())
	got, err := m.groupCall(ctx, params)
	if err != nil {
		return ToolError(err)
	}
	if got != group {
		m.reg.SetGroup(sid, slot, got)
	}
	if !m.adopt(sid, tab) {
		return tools.Errorf(CodeTabNotOwned, "tab %d was taken by another session meanwhile", tab)
	}
	return nil
}

// Unshare hands a shared tab back to the user (Stop sharing in the panel):
// it leaves its session at once (calls in flight end with tab_not_shared),
// leaves the session's group, and its debugger is detached.
func (m *Manager) Unshare(ctx context.Context, tab int) error {
	k, ok := m.reg.Kind(tab)
	if !ok {
		return tools.Errorf(CodeTabNotOwned, "tab %d is not shared with any session", tab)
	}
	if k != Shared {
		return tools.Errorf(CodeTabNotOwned, "tab %d was opened by its session, not shared; close it or drag it out of the group to take it", tab)
	}
	m.release(tab, ReasonUngrouped)
	if _, err := m.cfg.Link.Call(ctx, "tabs.ungroup", map[string]any{"tab_ids": []int{tab}}); err != nil {
		m.log.Info("ungrouping an unshared tab failed", "tab", tab, "err", err)
	}
	m.detach(ctx, tab)
	return nil
}

// Holder says who holds a tab: the session, and whether the user shared
// it.
func (m *Manager) Holder(tab int) (sid string, shared, ok bool) {
	sid, ok = m.reg.Owner(tab)
	if !ok {
		return "", false, false
	}
	k, _ := m.reg.Kind(tab)
	return sid, k == Shared, true
}

// IsShared reports whether tab is the user's own tab, shared with its
// session (approval prompts say so).
func (m *Manager) IsShared(tab int) bool {
	k, ok := m.reg.Kind(tab)
	return ok && k == Shared
}

// nextColor is the colour of a new session group.
func (m *Manager) nextColor() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := groupColors[m.sessions%len(groupColors)]
	m.sessions++
	return c
}

// groupCall calls tabs.group and returns the group id.
func (m *Manager) groupCall(ctx context.Context, params map[string]any) (int, error) {
	raw, err := m.cfg.Link.Call(ctx, "tabs.group", params)
	if err != nil {
		return NoGroup, err
	}
	return decodeGroup(raw)
}

func groupErr(n int) error { return fmt.Errorf("tabs: tabs.group answered no group_id (%d bytes)", n) }
