package snapshot

import (
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Sizes reports what the targets keep for snapshots (the daemon's memory
// report): the tabs with ref tables, their refs and the previous snapshots
// kept for diffs. held is the tabs sessions own; refs are reported against
// held times the refs of a large page (a ref lives keepGenerations
// snapshots).
func Sizes(targets *target.Set, held int) []memory.Store {
	tabs, refs, hist := 0, 0, 0
	refsPart.Each(targets, func(t *tabRefs) {
		tabs++
		t.mu.Lock()
		refs += len(t.refs)
		hist += len(t.prev)
		t.mu.Unlock()
	})
	return []memory.Store{
		{Name: "snapshot.tabs", Len: tabs, Cap: held},
		{Name: "snapshot.refs", Len: refs, Cap: maxRefsReported * held},
		{Name: "snapshot.history", Len: hist, Cap: maxHistory * held},
	}
}

// maxRefsReported is what the report counts a tab's ref table against:
// keepGenerations snapshots of a page of a thousand elements.
const maxRefsReported = keepGenerations * 1000
