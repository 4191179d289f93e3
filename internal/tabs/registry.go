// Package tabs owns which MCP session may use which browser tab. Every
// session starts with no tab; the tabs it opens join its Chrome tab group
// ("Gasoline · <client>") and are its own until they close, the user drags
// them out of the group, or the session ends (the debugger is then detached;
// the tab stays open). One session can never act on or observe another's
// tab.
//
// The Registry is the routing state: one small locked struct whose
// mutations are Own, Use, Release, EndSession and SetGroup. The Manager
// does the I/O around it over the extension link: opening tabs in the
// group, navigating with bounded waits, closing, enabling capture on
// attach, and detaching when a session ends.
package tabs

import (
	"slices"
	"sync"
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
	ReasonUngrouped = "ungrouped" // the user dragged it out of the group
	ReasonEnded     = "session_end"
)

// Registry records the tabs each session owns. The zero value is not
// usable; call NewRegistry.
type Registry struct {
	mu       sync.Mutex
	owner    map[int]string    // tab → session id
	sessions map[string]*owned // session id → its tabs
}

type owned struct {
	tabs  []int // most recently used last
	group int   // its Chrome tab group, or NoGroup
	gone  []goneTab
}

type goneTab struct {
	tab    int
	reason string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{owner: map[int]string{}, sessions: map[string]*owned{}}
}

func (r *Registry) session(id string) *owned {
	o := r.sessions[id]
	if o == nil {
		o = &owned{group: NoGroup}
		r.sessions[id] = o
	}
	return o
}

// Own gives tab to session and makes it the session's current tab. It
// reports false when another session owns the tab (nothing changes).
func (r *Registry) Own(session string, tab int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.owner[tab]; ok && cur != session {
		return false
	}
	r.owner[tab] = session
	o := r.session(session)
	o.tabs = append(slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab }), tab)
	o.gone = slices.DeleteFunc(o.gone, func(g goneTab) bool { return g.tab == tab })
	return true
}

// Use makes an owned tab the session's current one (most recently used).
func (r *Registry) Use(session string, tab int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner[tab] != session {
		return
	}
	o := r.sessions[session]
	o.tabs = append(slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab }), tab)
}

// Release removes tab from its session, remembering why. It returns the
// session that owned it.
func (r *Registry) Release(tab int, reason string) (session string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	session, ok = r.owner[tab]
	if !ok {
		if reason == ReasonClosed { // it left earlier, and now it closed
			for _, o := range r.sessions {
				for i := range o.gone {
					if o.gone[i].tab == tab && o.gone[i].reason == ReasonUngrouped {
						o.gone[i].reason = ReasonClosed
					}
				}
			}
		}
		return "", false
	}
	delete(r.owner, tab)
	o := r.sessions[session]
	o.tabs = slices.DeleteFunc(o.tabs, func(t int) bool { return t == tab })
	if len(o.gone) == maxGone {
		o.gone = slices.Delete(o.gone, 0, 1)
	}
	o.gone = append(o.gone, goneTab{tab: tab, reason: reason})
	return session, true
}

// EndSession forgets the session and returns the tabs it owned.
func (r *Registry) EndSession(session string) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if o == nil {
		return nil
	}
	delete(r.sessions, session)
	for _, t := range o.tabs {
		delete(r.owner, t)
	}
	return o.tabs
}

// SetGroup records the session's Chrome tab group.
func (r *Registry) SetGroup(session string, group int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.session(session).group = group
}

// Group returns the session's tab group, or NoGroup.
func (r *Registry) Group(session string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.sessions[session]; o != nil {
		return o.group
	}
	return NoGroup
}

// Owner returns the session owning tab.
func (r *Registry) Owner(tab int) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.owner[tab]
	return s, ok
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

// Lookup resolves the tab a call addresses: tab (> 0) if the session owns
// it, else its current tab when tab is 0. It returns the tab, or the
// reason it cannot (see the Why values).
func (r *Registry) Lookup(session string, tab int) (int, Why) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.sessions[session]
	if tab == 0 {
		if o == nil || len(o.tabs) == 0 {
			why := Why{Kind: WhyNoTab}
			if o != nil && len(o.gone) > 0 { // it had tabs: say what became of the last
				g := o.gone[len(o.gone)-1]
				why.Tab, why.Reason = g.tab, g.reason
			}
			return 0, why
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
			if o.gone[i].tab == tab {
				return 0, Why{Kind: WhyGone, Reason: o.gone[i].reason}
			}
		}
	}
	return 0, Why{Kind: WhyNotOwned}
}

// Why says why Lookup found no tab.
type Why struct {
	Kind   int
	Reason string // for WhyGone, and WhyNoTab with Tab: ReasonClosed, ReasonUngrouped
	Tab    int    // for WhyNoTab: the session's last tab, when it had one
}

// The kinds of Why.
const (
	WhyOK       = iota
	WhyNoTab    // the session owns no tab and none was named
	WhyOther    // another session owns it
	WhyGone     // the session owned it; it closed or left the group
	WhyNotOwned // no session owns it (the user's tab, or unknown)
)
