package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/scheme"
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
	if e := m.offLimits(t); e != nil {
		return 0, e
	}
	if m.reg.Use(sid, t) {
		m.saved() // the current tab survives a restart
	}
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
	return m.targets.Get(t).Session(), nil
}

// Info is the tab as the browser reports it (tabs.get): its address and
// title from the browser, never from the page's own script. It also
// records the address for the tab's off-limits check.
func (m *Manager) Info(ctx context.Context, tab int) (Tab, error) {
	raw, err := m.cfg.Link.Call(ctx, "tabs.get", map[string]int{"tab_id": tab})
	if err != nil {
		return Tab{}, m.callError(tab, err)
	}
	var res struct {
		Tab Tab `json:"tab"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return Tab{}, fmt.Errorf("tabs: tabs.get answered %d bytes that are not a tab: %w", len(raw), err)
	}
	res.Tab.ID = tab
	if m.reg.Owned(tab) {
		m.setURL(tab, res.Tab.URL)
	}
	return res.Tab, nil
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

// Req is what new_tab and navigate ask of the manager.
type Req struct {
	Client  string // the MCP client's name: the group's title
	Browser string // the browser the agent named ("": see browserFor)
	Tab     int    // navigate: the tab (0: the current one)
	URL     string
	Wait    string // wait_until
}

// Open opens a background tab in the session's tab group of the browser
// the request names (else the one the session uses, else the default),
// creating the group titled GroupTitle(client) for the session's first
// tab there, makes it the session's current tab, enables capture, and
// loads url when given, waiting as wait says. It never touches the user's
// other tabs.
func (m *Manager) Open(ctx context.Context, o Owner, r Req) (Tab, *NavResult, error) {
	if r.URL != "" {
		if err := scheme.Navigation(r.URL, ""); err != nil {
			return Tab{}, nil, scheme.ToolError("new_tab", err)
		}
	}
	sid := o.ID()
	slot, err := m.browserFor(sid, r.Browser)
	if err != nil {
		return Tab{}, nil, ToolError(err)
	}
	unlock, err := m.lockOpening(ctx, sid)
	if err != nil {
		return Tab{}, nil, ToolError(err)
	}
	defer unlock()
	group := m.reg.Group(sid, slot)
	t, err := m.create(ctx, slot, group)
	if group != NoGroup && missingGroup(err) {
		group = NoGroup // its last tab closed, so Chrome removed it
		t, err = m.create(ctx, slot, group)
	}
	if err != nil {
		return Tab{}, nil, ToolError(err)
	}
	m.reg.Own(sid, t.ID)
	m.cfg.Browsers.Allow(t.ID)
	m.watch(o)
	if group == NoGroup {
		g, err := m.group(ctx, t.ID, r.Client)
		if err != nil {
			m.abandon(t.ID)
			return Tab{}, nil, ToolError(err)
		}
		m.reg.SetGroup(sid, slot, g)
		t.GroupID = g
	}
	m.saved()
	if err := m.ensure(ctx, t.ID); err != nil {
		return t, nil, m.callError(t.ID, err)
	}
	m.emulateFocus(ctx, t.ID)
	if r.URL == "" || r.URL == "about:blank" {
		return t, nil, nil
	}
	nav, err := m.navigate(ctx, sid, t.ID, r.URL, r.Wait)
	if e := m.landed(t.ID, nav); err == nil && e != nil {
		return Tab{}, nil, e
	}
	return t, nav, err
}

// landed refuses a navigation that ended on a page off-limits to agents
// (a redirect there): the tab stays open, and no call works on it.
func (m *Manager) landed(tab int, nav *NavResult) error {
	if nav == nil {
		return nil
	}
	if e := offLimitsAt(tab, nav.URL); e != nil {
		return e
	}
	return nil
}

// browserFor is the browser a new tab of session sid goes to: the one
// named, else the browser of the session's current tab (or of its group),
// else the default (the one the user focused last).
func (m *Manager) browserFor(sid, name string) (browsers.Slot, error) {
	if name != "" {
		return m.cfg.Browsers.Resolve(name)
	}
	if t, why := m.reg.Lookup(sid, 0); why.Kind == WhyOK {
		return browsers.SlotOf(t), nil
	}
	if slots := m.reg.groupSlots(sid); len(slots) > 0 {
		return slots[0], nil
	}
	return m.cfg.Browsers.Default()
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

func (m *Manager) create(ctx context.Context, slot browsers.Slot, group int) (Tab, error) {
	p := map[string]any{"url": "about:blank", "active": false}
	if group != NoGroup {
		p["group_id"] = group
	}
	raw, err := m.cfg.Browsers.CallIn(ctx, slot, "tabs.create", p)
	if err != nil {
		return Tab{}, err
	}
	var res struct {
		Tab Tab `json:"tab"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.Tab.ID == 0 {
		return Tab{}, fmt.Errorf("tabs: tabs.create answered no tab (%d bytes)", len(raw))
	}
	res.Tab.ID = browsers.TabID(slot, res.Tab.ID)
	return res.Tab, nil
}

// missingGroup recognises tabs.create refusing a group that no longer
// exists.
func missingGroup(err error) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == protocol.CodeGroupNotFound
}

func (m *Manager) group(ctx context.Context, tab int, client string) (int, error) {
	return m.groupCall(ctx, map[string]any{"tab_ids": []int{tab}, "title": GroupTitle(client), "color": m.nextColor()})
}

func decodeGroup(raw json.RawMessage) (int, error) {
	var res struct {
		GroupID *int `json:"group_id"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.GroupID == nil {
		return NoGroup, groupErr(len(raw))
	}
	return *res.GroupID, nil
}

// abandon closes a tab Open could not set up, so nothing is left behind.
func (m *Manager) abandon(tab int) {
	m.release(tab, ReasonClosed)
	m.g.Go(func(ctx context.Context) {
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
	if k, _ := m.reg.Kind(t); k == Shared {
		return 0, &tools.Error{Code: CodeTabShared, NextAction: listTabs,
			Message: fmt.Sprintf("tab %d is the user's own tab, shared with this session: Gasoline never closes it. Ask the user to close it, or stop sharing it", t)}
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

// Navigate loads url in the session's tab (r.Tab, or its current one; with
// r.Browser, its most recent tab in that browser) and waits as r.Wait
// says. A session with no such tab gets a new one (Open).
func (m *Manager) Navigate(ctx context.Context, o Owner, r Req) (Tab, *NavResult, error) {
	sid := o.ID()
	if r.Browser != "" {
		slot, err := m.cfg.Browsers.Resolve(r.Browser)
		if err != nil {
			return Tab{}, nil, ToolError(err)
		}
		if r.Tab != 0 && browsers.SlotOf(r.Tab) != slot {
			return Tab{}, nil, tools.Errorf(tools.CodeInvalidArgument, "tab %d is not in browser %q: name the tab or the browser, not both", r.Tab, r.Browser)
		}
		if r.Tab == 0 {
			r.Tab = m.latestIn(sid, slot)
			if r.Tab == 0 {
				return m.Open(ctx, o, r)
			}
		}
	}
	if r.Tab == 0 && len(m.reg.Tabs(sid)) == 0 {
		return m.Open(ctx, o, r)
	}
	if t, ok := m.Resolve(sid, r.Tab); ok {
		if err := scheme.Navigation(r.URL, m.URL(t)); err != nil {
			return Tab{}, nil, scheme.ToolError("navigate", err)
		}
	}
	s, err := m.Session(ctx, sid, r.Tab)
	if err != nil {
		return Tab{}, nil, err
	}
	nav, err := m.navigate(ctx, sid, s.TabID(), r.URL, r.Wait)
	if e := m.landed(s.TabID(), nav); err == nil && e != nil {
		return Tab{}, nil, e
	}
	return Tab{ID: s.TabID(), GroupID: m.reg.Group(sid, browsers.SlotOf(s.TabID()))}, nav, err
}

// latestIn is the session's most recently used tab in slot's browser, or 0.
func (m *Manager) latestIn(sid string, slot browsers.Slot) int {
	for _, t := range m.reg.Tabs(sid) {
		if browsers.SlotOf(t) == slot {
			return t
		}
	}
	return 0
}

// Reconcile releases the session's tabs in slot's browser that the
// browser no longer has (they closed while the link was down, so no
// tabs.removed arrived), given every tab that browser lists (by Gasoline
// id), and returns the session's tabs, current first.
func (m *Manager) Reconcile(sid string, slot browsers.Slot, present map[int]Tab) []int {
	for _, t := range m.reg.Tabs(sid) {
		if _, ok := present[t]; !ok && browsers.SlotOf(t) == slot {
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
	t, why := m.reg.Lookup(sid, tab)
	if why.Kind != WhyOK {
		return lookupError(tab, why)
	}
	return m.offLimits(t)
}

// emulateFocus has the tab it opened behave as a focused, visible one
// (Emulation.setFocusEmulationEnabled, as Playwright does for every page)
// before anything loads in it. An agent's tab is a background tab: Chrome
// throttles a hidden page's timers to one wake-up a second (a 100 ms
// interval ran 3 times in 3 s; after five minutes hidden, chained timers
// once a minute) and reports no first paint for a page loaded hidden, so
// an app's polling and debounces crawled and observe vitals had no FCP or
// LCP until the agent's first pointer action turned the emulation on.
// The emulation lasts for the debugger session. Best effort: a tab that
// refuses it works as before.
func (m *Manager) emulateFocus(ctx context.Context, tab int) {
	s := m.targets.Get(tab).Session()
	if _, err := cdproto.Call(ctx, s, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		m.log.Debug("focus emulation refused", "tab", tab, "err", err)
	}
}
