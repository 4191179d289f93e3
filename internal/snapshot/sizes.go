package snapshot

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the snapshotter's stores (the daemon's memory report): the
// tabs with ref tables and their refs, and the previous snapshots kept
// for diffs. held is the tabs sessions own; refsPerTab bounds nothing on
// its own (a ref lives keepGenerations snapshots), so refs are reported
// against held times the refs of a large page.
func (s *Snapshotter) Sizes(held int) []memory.Store {
	s.mu.Lock()
	tabs := make([]*tabRefs, 0, len(s.tabs))
	for _, t := range s.tabs {
		tabs = append(tabs, t)
	}
	navs := len(s.navs)
	s.mu.Unlock()
	refs := 0
	for _, t := range tabs {
		t.mu.Lock()
		refs += len(t.refs)
		t.mu.Unlock()
	}
	s.hist.mu.Lock()
	hist := len(s.hist.last)
	s.hist.mu.Unlock()
	return []memory.Store{
		{Name: "snapshot.tabs", Len: len(tabs), Cap: held},
		{Name: "snapshot.navigations", Len: navs, Cap: held},
		{Name: "snapshot.refs", Len: refs, Cap: maxRefsReported * held},
		{Name: "snapshot.history", Len: hist, Cap: maxHistory},
	}
}

// maxRefsReported is what the report counts a tab's ref table against:
// keepGenerations snapshots of a page of a thousand elements.
const maxRefsReported = keepGenerations * 1000

// Sizes reports the child sessions tracked; held is the tabs sessions own.
func (c *Children) Sizes(held int) []memory.Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	return []memory.Store{{Name: "snapshot.child_tabs", Len: len(c.tabs), Cap: held}}
}
