package actions

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the engine's per-tab state (the daemon's memory report);
// held is the tabs sessions own.
func (e *Engine) Sizes(held int) []memory.Store {
	e.mu.Lock()
	defer e.mu.Unlock()
	return []memory.Store{{Name: "actions.tabs", Len: len(e.tabs), Cap: held}}
}
