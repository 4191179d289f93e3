package cdp

import "github.com/gasoline-mcp/gasoline/internal/memory"

// subscriptionsPerTab is what the report counts a tab's subscriptions
// against: they live as long as the call that waits on them (an action
// watches a handful of methods), and a tab that leaves its session ends
// them all (Forget).
const subscriptionsPerTab = 32

// Sizes reports the router's subscriptions (the daemon's memory report);
// held is the tabs sessions own.
func (r *Router) Sizes(held int) []memory.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, subs := range r.subs {
		n += len(subs)
	}
	return []memory.Store{{Name: "cdp.subscriptions", Len: n, Cap: subscriptionsPerTab * (held + 1)}}
}
