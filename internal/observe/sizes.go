package observe

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Forget drops what the observer keeps of a tab that left its session: its
// capture lock (a capture still running keeps its own).
func (o *Observer) Forget(tab int) {
	o.shots.mu.Lock()
	delete(o.shots.tabs, tab)
	o.shots.mu.Unlock()
}

// Sizes reports the observer's and the feed's per-tab state (the daemon's
// memory report); held is the tabs sessions own.
func (o *Observer) Sizes(held int) []memory.Store {
	o.shots.mu.Lock()
	shots := len(o.shots.tabs)
	o.shots.mu.Unlock()
	return []memory.Store{{Name: "observe.capture_locks", Len: shots, Cap: held}}
}

// Sizes reports the feed's per-tab state; held is the tabs sessions own.
func (f *Feed) Sizes(held int) []memory.Store {
	f.mu.Lock()
	defer f.mu.Unlock()
	children := 0
	for _, t := range f.tabs {
		children += len(t.children)
	}
	return []memory.Store{
		{Name: "observe.feed_tabs", Len: len(f.tabs), Cap: held},
		{Name: "observe.feed_children", Len: children, Cap: maxChildren * held},
	}
}
