package capture

import (
	"slices"
	"sort"
	"strings"

	"github.com/chromedp/cdproto/page"
)

// Bounds of an action's short fields (its text fields take MaxTextBytes,
// URLs MaxURLBytes).
const (
	maxSelector = 1024
	maxTarget   = 256
	maxKeys     = 64
)

// AddAction stores an action of a tab (see [Action]): its time and the
// tab's page URL are filled in, its fields cut to the store's limits, and
// it passes the Redactor like every entry. It returns the stored entry, and
// false when the redactor refused it.
func (s *Store) AddAction(tabID int, a Action) (Action, bool) {
	t := s.tabFor(tabID)
	o := t.opts
	c := &a.Truncated
	a.Type = limit(a.Type, maxShortText, c)
	a.Source = limit(a.Source, maxShortText, c)
	a.Selector = limit(a.Selector, maxSelector, c)
	a.Target = limit(a.Target, maxTarget, c)
	a.Value = limit(a.Value, o.MaxTextBytes, c)
	a.Masked = limit(a.Masked, maxShortText, c)
	a.Keys = limit(a.Keys, maxKeys, c)
	a.Button = limit(a.Button, maxShortText, c)
	a.Frame = limit(a.Frame, o.MaxURLBytes, c)
	a.Time = o.Now()
	t.mu.Lock()
	a.URL = t.pageURL
	t.mu.Unlock()
	defer s.trim()
	return store(t, t.actions, kAction, a)
}

// Activity returns the tab's actions and main-frame navigations (load
// milestones left out) after the cursor, oldest first: what observe
// actions lists. Its cursor is the timeline's (entries' Order).
func (s *Store) Activity(tabID int, after uint64, limit int) Page[TimelineEntry] {
	t := s.get(tabID)
	if t == nil {
		return Page[TimelineEntry]{}
	}
	limit = clampLimit(limit)
	t.mu.Lock()
	last := t.order
	t.mu.Unlock()
	if after > last {
		after = 0 // a cursor this tab never issued
	}
	// Each window is complete only up to its last order when its ring
	// holds more; the merged page stops at the smaller bound.
	bound := last
	var acts, navs []TimelineEntry
	if gather(&acts, t.actions, after, last, limit, func(e Action) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindAction, Time: e.Time, Action: &e}
	}) {
		bound = min(bound, acts[len(acts)-1].Order)
	}
	if gather(&navs, t.navigations, after, last, limit, func(e Navigation) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindNavigation, Time: e.Time, Navigation: &e}
	}) {
		bound = min(bound, navs[len(navs)-1].Order)
	}
	all := acts
	for _, n := range navs {
		if n.Navigation.Event == "navigated" || n.Navigation.Event == "same_document" {
			all = append(all, n)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Order < all[j].Order })
	all = slices.DeleteFunc(all, func(e TimelineEntry) bool { return e.Order > bound })
	if len(all) > limit {
		all = all[:limit]
		bound = all[limit-1].Order
	}
	p := Page[TimelineEntry]{Entries: all, Next: bound, Truncated: bound < last}
	return p
}

// onSameDocument records Page.navigatedWithinDocument of the main frame
// (history.pushState, a fragment) as a same_document navigation; the
// current document stays.
func (t *tab) onSameDocument(p []byte) error {
	var ev page.EventNavigatedWithinDocument
	if err := decode(p, &ev); err != nil {
		return err
	}
	t.mu.Lock()
	main := t.mainFrame != "" && string(ev.FrameID) == t.mainFrame
	t.mu.Unlock()
	if !main {
		return nil
	}
	n := Navigation{Event: "same_document"}
	n.URL = limit(strings.Clone(ev.URL), t.opts.MaxURLBytes, &n.Truncated)
	n.Type = limit(string(ev.NavigationType), maxShortText, &n.Truncated)
	n.Time = t.opts.Now()
	t.mu.Lock()
	t.pageURL = n.URL
	t.mu.Unlock()
	store(t, t.navigations, kNavigation, n)
	return nil
}
