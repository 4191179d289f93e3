package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Tab is a browser tab as the extension describes it.
type Tab struct {
	ID       int    `json:"id"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Active   bool   `json:"active"`
	WindowID int    `json:"window_id"`
	Status   string `json:"status,omitempty"`
	GroupID  int    `json:"group_id"`
}

// GroupTitle is the title of a session's tab group.
func GroupTitle(client string) string {
	if client = strings.TrimSpace(client); client == "" {
		return "Gasoline"
	}
	if len(client) > 40 {
		client = client[:40]
	}
	return "Gasoline · " + client
}

var groupColors = []string{"blue", "green", "purple", "cyan", "orange", "pink", "yellow", "red", "grey"}

// Tab resolves the tab a call addresses (tab > 0, or the session's current
// tab) and makes it the current one. It does not touch the browser; when
// capture is off in the tab (idle detach, extension restart) it is
// re-enabled in the background.
func (m *Manager) Tab(sid string, tab int) (int, error) {
	t, why := m.reg.Lookup(sid, tab)
	if why.Kind != WhyOK {
		return 0, lookupError(tab, why)
	}
	m.reg.Use(sid, t)
	if !m.enabled(t) {
		m.ensureLater(t)
	}
	return t, nil
}

// Session resolves the tab like Tab and returns its CDP session with
// capture enabled (attaching the debugger if needed).
func (m *Manager) Session(ctx context.Context, sid string, tab int) (*cdp.Session, error) {
	t, err := m.Tab(sid, tab)
	if err != nil {
		return nil, err
	}
	if err := m.ensure(ctx, t); err != nil {
		return nil, m.callError(t, err)
	}
	return m.cfg.CDP(t), nil
}

// callError explains a failed call on tab: closed or released meanwhile,
// or the link's own error.
func (m *Manager) callError(tab int, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ToolError(err)
	}
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeTabClosed {
		m.release(tab, ReasonClosed)
	}
	return ToolError(err)
}

// Open opens a background tab in the session's tab group (creating the
// group titled GroupTitle(client) for the session's first tab), makes it
// the session's current tab, enables capture, and loads url when given,
// waiting as wait says. It never touches the user's other tabs.
func (m *Manager) Open(ctx context.Context, o Owner, client, url, wait string) (Tab, *NavResult, error) {
	sid := o.ID()
	unlock, err := m.lockOpening(ctx, sid)
	if err != nil {
		return Tab{}, nil, ToolError(err)
	}
	defer unlock()
	group := m.reg.Group(sid)
	t, err := m.create(ctx, group)
	if group != NoGroup && missingGroup(err) {
		group = NoGroup // its last tab closed, so Chrome removed it
		t, err = m.create(ctx, group)
	}
	if err != nil {
		return Tab{}, nil, ToolError(err)
	}
	m.reg.Own(sid, t.ID)
	m.watch(o)
	if group == NoGroup {
		g, err := m.group(ctx, t.ID, client)
		if err != nil {
			m.abandon(t.ID)
			return Tab{}, nil, ToolError(err)
		}
		m.reg.SetGroup(sid, g)
		t.GroupID = g
	}
	if err := m.ensure(ctx, t.ID); err != nil {
		return t, nil, m.callError(t.ID, err)
	}
	if url == "" || url == "about:blank" {
		return t, nil, nil
	}
	nav, err := m.navigate(ctx, sid, t.ID, url, wait)
	return t, nav, err
}

func (m *Manager) lockOpening(ctx context.Context, sid string) (func(), error) {
	m.mu.Lock()
	l := m.opening[sid]
	if l == nil {
		l = make(chan struct{}, 1)
		m.opening[sid] = l
	}
	m.mu.Unlock()
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *Manager) create(ctx context.Context, group int) (Tab, error) {
	p := map[string]any{"url": "about:blank", "active": false}
	if group != NoGroup {
		p["group_id"] = group
	}
	raw, err := m.cfg.Link.Call(ctx, "tabs.create", p)
	if err != nil {
		return Tab{}, err
	}
	var res struct {
		Tab Tab `json:"tab"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.Tab.ID == 0 {
		return Tab{}, fmt.Errorf("tabs: tabs.create answered no tab (%d bytes)", len(raw))
	}
	return res.Tab, nil
}

// missingGroup recognises tabs.create refusing a group that no longer
// exists.
func missingGroup(err error) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == protocol.CodeBadRequest && strings.Contains(pe.Message, "does not exist")
}

func (m *Manager) group(ctx context.Context, tab int, client string) (int, error) {
	m.mu.Lock()
	color := groupColors[m.sessions%len(groupColors)]
	m.sessions++
	m.mu.Unlock()
	raw, err := m.cfg.Link.Call(ctx, "tabs.group", map[string]any{"tab_ids": []int{tab}, "title": GroupTitle(client), "color": color})
	if err != nil {
		return NoGroup, err
	}
	var res struct {
		GroupID *int `json:"group_id"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.GroupID == nil {
		return NoGroup, fmt.Errorf("tabs: tabs.group answered no group_id (%d bytes)", len(raw))
	}
	return *res.GroupID, nil
}

// abandon closes a tab Open could not set up, so nothing is left behind.
func (m *Manager) abandon(tab int) {
	m.release(tab, ReasonClosed)
	m.goRun(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, detachTimeout)
		defer cancel()
		m.cfg.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": tab})
	})
}

// Close closes a tab the session owns (default: its current tab).
func (m *Manager) Close(ctx context.Context, sid string, tab int) (int, error) {
	t, why := m.reg.Lookup(sid, tab)
	if why.Kind != WhyOK {
		return 0, lookupError(tab, why)
	}
	if _, err := m.cfg.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": t}); err != nil {
		return 0, m.callError(t, err)
	}
	m.release(t, ReasonCloseTab)
	return t, nil
}

// Switch makes a tab the session owns its current tab. It does not
// activate the tab in Chrome (the user's view never changes).
func (m *Manager) Switch(sid string, tab int) (int, error) {
	return m.Tab(sid, tab)
}

// Navigate loads url in the session's tab (tab, or its current one) and
// waits as wait says. A session with no tab and no tab named gets a new
// tab (Open).
func (m *Manager) Navigate(ctx context.Context, o Owner, client string, tab int, url, wait string) (Tab, *NavResult, error) {
	if tab == 0 && len(m.reg.Tabs(o.ID())) == 0 {
		return m.Open(ctx, o, client, url, wait)
	}
	s, err := m.Session(ctx, o.ID(), tab)
	if err != nil {
		return Tab{}, nil, err
	}
	nav, err := m.navigate(ctx, o.ID(), s.TabID(), url, wait)
	return Tab{ID: s.TabID(), GroupID: m.reg.Group(o.ID())}, nav, err
}

// Reconcile releases the session's tabs that the browser no longer has
// (they closed while the link was down, so no tabs.removed arrived), given
// every tab the browser lists, and returns the session's tabs, current
// first.
func (m *Manager) Reconcile(sid string, present map[int]Tab) []int {
	for _, t := range m.reg.Tabs(sid) {
		if _, ok := present[t]; !ok {
			m.release(t, ReasonClosed)
		}
	}
	return m.reg.Tabs(sid)
}

// Resolve returns the tab a call of session sid addresses (tab, or the
// current one when 0), or false when the session cannot use it. It does
// not change the current tab.
func (m *Manager) Resolve(sid string, tab int) (int, bool) {
	t, why := m.reg.Lookup(sid, tab)
	return t, why.Kind == WhyOK
}

// Check reports the structured error a call of session sid on tab (0: its
// current tab) would get, or nil when the session can use the tab. The
// dispatcher's gate asks it first, so the user is never asked to approve
// a call that cannot run.
func (m *Manager) Check(sid string, tab int) *tools.Error {
	if _, why := m.reg.Lookup(sid, tab); why.Kind != WhyOK {
		return lookupError(tab, why)
	}
	return nil
}
