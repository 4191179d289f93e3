package capture

import "sort"

// Timeline returns the tab's entries of every kind after the cursor, in the
// order they were stored: for one tab, the order in which Chrome sent the
// events. Its cursor is the entries' Order, not their Seq. A request or a
// dialog appears when it ends; its Time is when it started.
func (s *Store) Timeline(tabID int, after uint64, limit int) Page[TimelineEntry] {
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
	var all []TimelineEntry
	more := gather(&all, t.console, after, last, limit, func(e ConsoleEntry) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindConsole, Time: e.Time, Console: &e}
	})
	more = gather(&all, t.exceptions, after, last, limit, func(e Exception) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindException, Time: e.Time, Exception: &e}
	}) || more
	more = gather(&all, t.network, after, last, limit, func(e Request) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindNetwork, Time: e.Start, Request: &e}
	}) || more
	more = gather(&all, t.websockets, after, last, limit, func(e WebSocketEvent) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindWebSocket, Time: e.Time, WebSocket: &e}
	}) || more
	more = gather(&all, t.dialogs, after, last, limit, func(e Dialog) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindDialog, Time: e.Time, Dialog: &e}
	}) || more
	more = gather(&all, t.navigations, after, last, limit, func(e Navigation) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindNavigation, Time: e.Time, Navigation: &e}
	}) || more
	more = gather(&all, t.actions, after, last, limit, func(e Action) TimelineEntry {
		return TimelineEntry{Order: e.Order, Kind: KindAction, Time: e.Time, Action: &e}
	}) || more
	sort.Slice(all, func(i, j int) bool { return all[i].Order < all[j].Order })

	p := Page[TimelineEntry]{Next: last}
	if len(all) > limit || more {
		all = all[:min(len(all), limit)]
		p.Truncated, p.Next = true, all[len(all)-1].Order
	}
	p.Entries = all
	// Every order up to last was given to exactly one stored entry, so the
	// orders in (after, Next] not returned were evicted — or cleared
	// ([Store.Clear]), which is not missing them.
	gone := (p.Next - after) - uint64(len(all))
	p.Missed = gone - min(gone, t.clearedIn(after, p.Next))
	return p
}

// gather appends the first limit entries of r whose order is in (after,
// last], and reports whether r holds more.
func gather[T entry[T]](out *[]TimelineEntry, r *Ring[T], after, last uint64, limit int, wrap func(T) TimelineEntry) bool {
	es, _, more, _ := r.Scan(0, limit, func(e T) bool {
		o := e.orderOf()
		return o > after && o <= last
	})
	for _, e := range es {
		*out = append(*out, wrap(e))
	}
	return more
}
