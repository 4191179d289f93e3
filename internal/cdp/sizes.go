package cdp

// SubscriptionsPerTab is what the memory report counts a tab's
// subscriptions against: they live as long as the call that waits on them
// (an action watches a handful of methods), and a tab that leaves its
// session ends them all (its target's Close).
const SubscriptionsPerTab = 32

// Subscriptions is how many subscriptions the router holds.
func (r *Router) Subscriptions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, subs := range r.subs {
		n += len(subs)
	}
	return n
}
