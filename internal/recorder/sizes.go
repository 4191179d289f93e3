package recorder

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the recorder keeps (the daemon's memory report): per
// tab, and per session its recent interact calls and its recording. held
// is the tabs sessions own.
func (r *Recorder) Sizes(held int) []memory.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	return []memory.Store{
		{Name: "recorder.tabs", Len: len(r.tabs), Cap: held},
		{Name: "recorder.sessions", Len: len(r.calls), Cap: maxSessions},
		{Name: "recorder.recordings", Len: len(r.recs), Cap: maxRecordings},
	}
}
