// Package tabs owns which MCP session may use which browser tab. Every
// session starts with no tab. The tabs it opens join its Chrome tab group
// ("Gasoline · <client>", one per browser it uses) and are its own until
// they close, the user drags them out of the group, or the session ends
// (they are then closed). A tab the user moves into the group, or shares
// from the panel, is a shared tab: the user's own, the session's to read
// and (with approval) to act on until the user takes it back; it is never
// closed by Gasoline. When Chrome replaces a tab (a discarded tab coming
// back, a prerendered page swapped in), the new tab id takes the old one's
// place. One session can never act on or observe another's tab, nor any
// tab outside its groups: the group is the consent boundary.
//
// Tab ids are Gasoline tab ids (internal/browsers): unique across the
// browsers connected at once, and stable across daemon restarts.
//
// The Registry is the routing state: one small locked struct whose
// mutations are Own, Share, Use, Release, Replace, EndSession and
// SetGroup. The Manager does the I/O around it over the extension links:
// opening tabs in the
// group, navigating with bounded waits, closing, enabling capture on
// attach, sharing, reconciling with the browser's groups (the truth), and
// keeping the state in tabs.json so that a daemon restart loses nothing.
package tabs

import (
	"slices"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
)

// NoGroup is Chrome's tab group id for "no group".
const NoGroup = -1

// maxGone bounds how many released tabs a session remembers, so a call on
// a tab that closed says so instead of "not yours".
const maxGone = 32

// Release reasons.
const (
	ReasonClosed    = "closed"    // the tab closed (tabs.removed)
	ReasonCloseTab  = "close_tab" // the session closed it (interact close_tab)
	ReasonUngrouped = "ungrouped" // the user dragged it out of the group, or stopped sharing it
	ReasonReplaced  = "replaced"  // Chrome replaced it with another tab (tabs.replaced)
	ReasonEnded     = "session_end"
	ReasonRestarted = "browser_restarted" // its browser started again: its old tab ids mean nothing
)

// Kind says how a tab came to its session.
type Kind int

// The kinds of tab.
const (
	// Opened: the session opened it (new_tab, navigate); it is closed when
	// the session ends.
	Opened Kind = iota
	// Shared: the user's own tab, given by the user (moved into the
	// session's group, Share in the panel, the tab the panel chats on). It
	// stays open when the session ends.
	Shared
)

func (k Kind) String() string {
	if k == Shared {
		return "shared"
	}
	return "opened"
}

// Registry records the tabs each session owns. The zero value is not
// usable; call NewRegistry.
type Registry struct {
	mu       sync.Mutex
	owner    map[int]string    // tab → session id
	kind     map[int]Kind      // tab → how it came
	since    map[int]uint64    // tab → the change that gave it to its session
	opener   map[int]int       // tab → the session's tab that opened it (a popup)
	sessions map[string]*owned // session id → its tabs
	seq      uint64            // counts ownership changes (Seq)
}

type owned struct {
	tabs       []int                    // most recently used last
	groups     map[browsers.Slot]int    // its Chrome tab group in each browser
	groupSince map[browsers.Slot]uint64 // the change that set each group
	gone       []goneTab
}

type goneTab struct {
	tab    int
	reason string
	kind   Kind
	by     int // the tab that replaced it (ReasonReplaced)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{owner: map[int]string{}, kind: map[int]Kind{}, since: map[int]uint64{}, opener: map[int]int{}, sessions: map[string]*owned{}}
}

func (r *Registry) session(id string) *owned {
	o := r.sessions[id]
	if o == nil {
		o = &owned{groups: map[browsers.Slot]int{}, groupSince: map[browsers.Slot]uint64{}}
		r.sessions[id] = o
	}
	return o
}

// Seq counts the tabs and groups given so far: what Since reports after
// Seq returned n was given after that moment (reconcile skips it).
func (r *Registry) Seq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Since is the Seq at which tab was given to its session.
func (r *Registry) Since(tab int) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.since[tab]
}

// GroupSince is the Seq at which the session's group in slot was set.
func (r *Registry) GroupSince(session string, slot browsers.Slot) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.sessions[session]; o != nil {
		return o.groupSince[slot]
	}
	return 0
}

// Own gives tab to session as a tab it opened and makes it the session's
// current tab. It reports false when another session owns the tab
// (nothing changes).
func (r *Registry) Own(session string, tab int) bool { return r.own(session, tab, Opened) }

// Share gives the user's tab to session as a shared tab, current. It
// reports false when another session owns it.
func (r *Registry) Share(session string, tab int) bool { return r.own(session, tab, Shared) }

func (r *Registry) own(session string, tab int, kind Kind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.owner[tab]; ok && cur != session {
		return false
	}
	if _, ok := r.owner[tab]; !ok || kind == Shared {
		r.kind[tab] = kind // a tab the session opened stays opened when re-owned
		r.seq++
		r.since[tab] = r.seq
	}
	r.owner[tab] = session
	o := r.session(session)
	o.tabs = append(slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab }), tab)
	o.gone = slices.DeleteFunc(o.gone, func(g goneTab) bool { return g.tab == tab })
	return true
}

// Popup gives tab, a tab the session's page opened (a link with a
// target, window.open), to session as its current tab, of kind: a popup
// of a tab the session opened closes with the session; one of the user's
// shared tab, or of an opener not known, is the user's. opener is 0 when
// not known. Called again, it corrects the opener and kind. It reports
// false when another session owns tab.
func (r *Registry) Popup(session string, tab, opener int, kind Kind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, held := r.owner[tab]; held && cur != session {
		return false
	}
	r.owner[tab], r.kind[tab] = session, kind
	if opener > 0 {
		r.opener[tab] = opener
	} else {
		delete(r.opener, tab)
	}
	r.seq++
	r.since[tab] = r.seq
	o := r.session(session)
	o.tabs = append(slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab }), tab)
	o.gone = slices.DeleteFunc(o.gone, func(g goneTab) bool { return g.tab == tab })
	return true
}

// Opener is the tab that opened tab, when tab is a popup its session
// adopted.
func (r *Registry) Opener(tab int) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.opener[tab]
	return o, ok
}

// Use makes an owned tab the session's current one (most recently used).
// It reports whether the current tab changed.
func (r *Registry) Use(session string, tab int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner[tab] != session {
		return false
	}
	o := r.sessions[session]
	if n := len(o.tabs); n > 0 && o.tabs[n-1] == tab {
		return false
	}
	o.tabs = append(slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab }), tab)
	return true
}

// Release removes tab from its session, remembering why. It returns the
// session that owned it and how the tab had come to it.
func (r *Registry) Release(tab int, reason string) (session string, kind Kind, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	session, ok = r.owner[tab]
	if !ok {
		if reason == ReasonClosed { // it left earlier, and now it closed
			for _, o := range r.sessions {
				for i := range o.gone {
					if o.gone[i].tab == tab && o.gone[i].kind == Opened && o.gone[i].reason == ReasonUngrouped {
						o.gone[i].reason = ReasonClosed
					}
				}
			}
		}
		return "", Opened, false
	}
	kind = r.kind[tab]
	delete(r.owner, tab)
	delete(r.kind, tab)
	delete(r.since, tab)
	delete(r.opener, tab)
	o := r.sessions[session]
	o.tabs = slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab })
	if len(o.gone) == maxGone {
		o.gone = slices.Delete(o.gone, 0, 1)
	}
	o.gone = append(o.gone, goneTab{tab: tab, reason: reason, kind: kind})
	return session, kind, true
}

// Replace gives now, the tab Chrome put in old's place, to old's session:
// it takes old's place in the session's order, as the same kind (opened or
// shared), and old is remembered as replaced by now. It returns the
// session; ok is false (nothing changes) when no session owns old, or
// another session owns now.
func (r *Registry) Replace(old, now int) (session string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	session, ok = r.owner[old]
	if !ok || old == now {
		return "", false
	}
	if cur, taken := r.owner[now]; taken && cur != session {
		return "", false
	}
	kind, since := r.kind[old], r.since[old]
	delete(r.owner, old)
	delete(r.kind, old)
	delete(r.since, old)
	r.owner[now], r.kind[now], r.since[now] = session, kind, since
	o := r.sessions[session]
	o.tabs = slices.DeleteFunc(o.tabs, func(t int) bool { return t == now })
	o.tabs[slices.Index(o.tabs, old)] = now
	o.gone = slices.DeleteFunc(o.gone, func(g goneTab) bool { return g.tab == now || g.tab == old })
	if len(o.gone) == maxGone {
		o.gone = slices.Delete(o.gone, 0, 1)
	}
	o.gone = append(o.gone, goneTab{tab: old, reason: ReasonReplaced, kind: kind, by: now})
	return session, true
}

// Held is a tab a session held when it ended.
type Held struct {
	Tab  int
	Kind Kind
}

// EndSession forgets the session and returns the tabs it owned and its
// groups.
func (r *Registry) EndSession(session string) ([]Held, map[browsers.Slot]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if o == nil {
		return nil, nil
	}
	delete(r.sessions, session)
	out := make([]Held, 0, len(o.tabs))
	for _, t := range o.tabs {
		out = append(out, Held{Tab: t, Kind: r.kind[t]})
		delete(r.owner, t)
		delete(r.kind, t)
		delete(r.since, t)
		delete(r.opener, t)
	}
	return out, o.groups
}

// SetGroup records the session's Chrome tab group in a browser (NoGroup
// forgets it).
func (r *Registry) SetGroup(session string, slot browsers.Slot, group int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.session(session)
	if group == NoGroup {
		delete(o.groups, slot)
		delete(o.groupSince, slot)
		return
	}
	r.seq++
	o.groups[slot], o.groupSince[slot] = group, r.seq
}

// Group returns the session's tab group in a browser, or NoGroup.
func (r *Registry) Group(session string, slot browsers.Slot) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.sessions[session]; o != nil {
		if g, ok := o.groups[slot]; ok {
			return g
		}
	}
	return NoGroup
}

// groupSlots returns the browsers in which the session has a group.
func (r *Registry) groupSlots(session string) []browsers.Slot {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if o == nil {
		return nil
	}
	out := make([]browsers.Slot, 0, len(o.groups))
	for s := range o.groups {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Groups returns the session's group in each browser.
func (r *Registry) Groups(session string) map[browsers.Slot]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[browsers.Slot]int{}
	if o := r.sessions[session]; o != nil {
		for s, g := range o.groups {
			out[s] = g
		}
	}
	return out
}

// GroupOwner returns the session whose tab group in slot's browser is
// group.
func (r *Registry) GroupOwner(slot browsers.Slot, group int) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, o := range r.sessions {
		if g, ok := o.groups[slot]; ok && g == group {
			return id, true
		}
	}
	return "", false
}

// Owner returns the session owning tab.
func (r *Registry) Owner(tab int) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.owner[tab]
	return s, ok
}

// Kind returns how an owned tab came to its session.
func (r *Registry) Kind(tab int) (Kind, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.kind[tab]
	return k, ok
}

// Owned reports whether any session owns tab.
func (r *Registry) Owned(tab int) bool {
	_, ok := r.Owner(tab)
	return ok
}

// Tabs returns the session's tabs, current (most recently used) first.
func (r *Registry) Tabs(session string) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if o == nil {
		return nil
	}
	out := slices.Clone(o.tabs)
	slices.Reverse(out)
	return out
}

// AllOwned returns every owned tab.
func (r *Registry) AllOwned() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]int, 0, len(r.owner))
	for t := range r.owner {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// InUse reports whether a tab or a tab group of some session is in slot's
// browser: the browser keeps its slot (and its tab ids) while it is away.
func (r *Registry) InUse(slot browsers.Slot) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t := range r.owner {
		if browsers.SlotOf(t) == slot {
			return true
		}
	}
	for _, o := range r.sessions {
		if _, ok := o.groups[slot]; ok {
			return true
		}
	}
	return false
}

// Sessions returns the ids of the sessions that own tabs or groups.
func (r *Registry) Sessions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.sessions))
	for id, o := range r.sessions {
		if len(o.tabs) > 0 || len(o.groups) > 0 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Lookup resolves the tab a call addresses: tab (> 0) if the session owns
// it, else its current tab when tab is 0. It returns the tab, or the
// reason it cannot (see the Why values).
func (r *Registry) Lookup(session string, tab int) (int, Why) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if tab == 0 {
		if o == nil || len(o.tabs) == 0 {
			w := Why{Kind: WhyNoTab}
			if o != nil && len(o.gone) > 0 {
				g := o.gone[len(o.gone)-1]
				w.Last, w.Reason, w.Shared = g.tab, g.reason, g.kind == Shared
			}
			return 0, w
		}
		return o.tabs[len(o.tabs)-1], Why{}
	}
	if owner, ok := r.owner[tab]; ok {
		if owner == session {
			return tab, Why{}
		}
		return 0, Why{Kind: WhyOther}
	}
	if o != nil {
		for i := len(o.gone) - 1; i >= 0; i-- {
			if g := o.gone[i]; g.tab == tab {
				return 0, Why{Kind: WhyGone, Reason: g.reason, Shared: g.kind == Shared, By: g.by}
			}
		}
	}
	return 0, Why{Kind: WhyNotOwned}
}

// Why says why Lookup found no tab.
type Why struct {
	Kind   int
	Reason string // for WhyGone, and WhyNoTab with Last: ReasonClosed, ReasonUngrouped, …
	// Shared: the tab was the user's, shared with the session (WhyGone;
	// for WhyNoTab, the last tab the session lost).
	Shared bool
	// Last is, for WhyNoTab, the tab the session lost last (0: it never
	// had one).
	Last int
	By   int // for ReasonReplaced: the tab that replaced it
}

// The kinds of Why.
const (
	WhyOK       = iota
	WhyNoTab    // the session owns no tab and none was named
	WhyOther    // another session owns it
	WhyGone     // the session owned it; it closed or left the group
	WhyNotOwned // no session owns it (the user's tab, or unknown)
)
