package tabs

import (
	"context"
	"net/url"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
)

// Popups: a tab that a session's tab opens (a link with a target, a form
// target, window.open, a middle-click) joins the session at once — its
// group, observe tabs (with its opener), the session's current tab — and
// is of its opener's kind: a popup of a tab the session opened closes
// with the session; a popup of the user's shared tab is the user's and
// stays open. The extension reports it as tabs.opened (chrome.tabs.onCreated
// with an openerTabId). The action that opened it names it in its answer
// (AwaitPopups).

// popupWait bounds how long an action that saw its page open a window
// waits for the extension's report of the new tab.
const popupWait = 2 * time.Second

// Adoptable reports whether a popup at url may join the session: only
// pages an agent may drive (http, https, about:blank; a popup whose URL
// Chrome has not set yet is about:blank). The one check the adoption path
// calls.
func Adoptable(raw string) bool {
	if raw == "" || raw == "about:blank" {
		return true
	}
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// opened handles tabs.opened: a tab that Chrome put into a session's
// group at birth (Chrome groups a tab opened from a grouped tab), or,
// outside any group, whose openerTabId is a session's tab. Chrome names
// the active tab as the opener of a popup that a background tab opened,
// so in a group the opener is left unknown: the popup is the user's
// until the session's action that opened it claims it (AwaitPopups) —
// never closing what may be the user's is the safe side.
func (m *Manager) opened(tab, opener int, group *int, url string) {
	if tab <= 0 || !Adoptable(url) {
		return
	}
	sid, kind, inGroup := "", Shared, false
	if group != nil {
		sid, inGroup = m.reg.GroupOwner(browsers.SlotOf(tab), *group)
	}
	switch s, ok := m.reg.Owner(opener); {
	case inGroup:
		opener = 0 // Chrome names the active tab as the opener of a background tab's popup: the action that opened it says
	case opener > 0 && ok:
		sid = s
		kind, _ = m.reg.Kind(opener)
	default:
		return
	}
	if sid == "" || !m.reg.Popup(sid, tab, opener, kind) {
		return
	}
	m.cfg.Started(tab, time.Now())
	m.cfg.Browsers.Allow(tab)
	if url != "" {
		m.setURL(tab, url)
	}
	m.watchID(sid)
	m.saved()
	m.log.Info("a session's tab opened a tab", "tab", tab, "opener", opener, "session", sid, "kind", kind)
	m.popupSignal()
	m.g.Go(func(ctx context.Context) { m.joinGroup(ctx, sid, tab, inGroup) })
}

// joinGroup moves a popup into its session's group in its browser (Chrome
// may have put it there already: then this changes nothing) and enables
// capture in it.
func (m *Manager) joinGroup(ctx context.Context, sid string, tab int, inGroup bool) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if inGroup {
		if err := m.ensure(ctx, tab); err != nil {
			m.log.Info("enabling capture in a popup failed; its first call tries again", "tab", tab, "err", err)
		}
		return
	}
	unlock, err := m.lockOpening(ctx, sid)
	if err != nil {
		return
	}
	slot := browsers.SlotOf(tab)
	params := map[string]any{"tab_ids": []int{tab}, "title": GroupTitle(""), "color": m.nextColor()}
	group := m.reg.Group(sid, slot)
	if group != NoGroup {
		params["group_id"] = group
	}
	got, err := m.groupCall(ctx, params)
	if err == nil && got != group {
		m.reg.SetGroup(sid, slot, got)
		m.saved()
	}
	unlock()
	if err != nil { // a tab in a popup window cannot be grouped: it stays the session's all the same
		m.log.Info("a popup could not join its session's group", "tab", tab, "err", err)
	}
	if err := m.ensure(ctx, tab); err != nil {
		m.log.Info("enabling capture in a popup failed; its first call tries again", "tab", tab, "err", err)
	}
}

// blank reports a popup whose page is not known yet (a page may open a
// blank window and give it its address a moment later): the answer waits,
// bounded, to name it.
func blank(ps []Popup) bool {
	for _, p := range ps {
		if p.URL == "" || p.URL == "about:blank" {
			return true
		}
	}
	return false
}

// popupSignal wakes AwaitPopups.
func (m *Manager) popupSignal() {
	m.mu.Lock()
	if m.popups != nil {
		close(m.popups)
	}
	m.popups = make(chan struct{})
	m.mu.Unlock()
}

func (m *Manager) popupChan() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.popups == nil {
		m.popups = make(chan struct{})
	}
	return m.popups
}

// Popup is a tab a session's tab opened.
type Popup struct {
	TabID int    `json:"tab_id"`
	URL   string `json:"url"`
}

// Mark is where the registry stands before an action (Seq): AwaitPopups
// lists popups adopted after it.
func (m *Manager) Mark() uint64 { return m.reg.Seq() }

// AwaitPopups lists the popups opener's session adopted since mark that
// opener opened, or whose opener was not known: the action on opener saw
// its page open them (CDP Page.windowOpen), so they are opener's, of its
// kind. When the page opened want windows and fewer are known yet, it
// waits, bounded, for the extension's reports.
func (m *Manager) AwaitPopups(ctx context.Context, sid string, opener int, mark uint64, want int) []Popup {
	ctx, cancel := context.WithTimeout(ctx, popupWait)
	defer cancel()
	kind, _ := m.reg.Kind(opener)
	for {
		wake := m.popupChan()
		var out []Popup
		for _, t := range m.reg.Tabs(sid) {
			if m.reg.Since(t) <= mark || t == opener {
				continue
			}
			o, known := m.reg.Opener(t)
			if !known && m.reg.Popup(sid, t, opener, kind) {
				m.saved()
				o, known = opener, true
			}
			if known && o == opener {
				out = append(out, Popup{TabID: t, URL: m.URL(t)})
			}
		}
		if len(out) >= want && !blank(out) {
			return out
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return out
		}
	}
}
