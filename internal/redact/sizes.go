package redact

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the engine's cache of key-name verdicts (the daemon's
// memory report): it fills with the names the engine meets, up to
// keyCacheMax.
func (e *Engine) Sizes() []memory.Store {
	n := 0
	if e != nil {
		e.mu.Lock()
		n = int(e.nkey)
		e.mu.Unlock()
	}
	return []memory.Store{{Name: "redact.key_cache", Len: n, Cap: keyCacheMax}}
}
