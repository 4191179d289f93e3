package target

import (
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// Sizes reports the targets and what each keeps of its own (the daemon's
// memory report): the targets, their child sessions and the waiters on
// their events. held is the tabs sessions own: a tab that leaves its
// session has its target closed, and everything in it goes.
func (s *Set) Sizes(held int) []memory.Store {
	targets, children, subs := 0, 0, 0
	s.Each(func(t *Target) {
		targets++
		t.mu.Lock()
		children += len(t.children)
		t.mu.Unlock()
		subs += t.events.Subscriptions()
	})
	return []memory.Store{
		{Name: "target.targets", Len: targets, Cap: held},
		{Name: "target.children", Len: children, Cap: maxChildren * held},
		{Name: "target.subscriptions", Len: subs, Cap: cdp.SubscriptionsPerTab * (held + 1)},
	}
}
