package watch

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the watcher keeps (the daemon's memory report): the
// dedupe keys, the recent envelopes and the fire times of the last minute.
func (w *Watcher) Sizes() []memory.Store {
	w.mu.Lock()
	defer w.mu.Unlock()
	return []memory.Store{
		{Name: "watch.dedupe_keys", Len: len(w.seen), Cap: maxKeys},
		{Name: "watch.recent", Len: len(w.recent), Cap: maxRecent},
		{Name: "watch.fired", Len: len(w.fired), Cap: MaxRateLimit},
	}
}
