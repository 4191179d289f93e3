package observe

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the observer's per-tab state, held in the targets (the
// daemon's memory report); held is the tabs sessions own.
func (o *Observer) Sizes(held int) []memory.Store {
	return []memory.Store{{Name: "observe.capture_locks", Len: shotPart.Count(o.cfg.Tabs.Targets()), Cap: held}}
}
