package capture

import (
	"slices"
	"sort"
)

// Buffers names the buffers [Store.Clear] empties.
type Buffers struct {
	Console     bool // console messages and the error groups of console errors
	Exceptions  bool // uncaught exceptions and their error groups
	ErrorGroups bool // every error group (observe errors starts over); entries stay
	Network     bool // finished requests; requests in flight stay and finish later
	WebSockets  bool
	Dialogs     bool // closed dialogs; open ones stay (they block the page)
	Navigations bool
	Actions     bool
}

// AllBuffers names every buffer.
func AllBuffers() Buffers {
	return Buffers{Console: true, Exceptions: true, ErrorGroups: true, Network: true, WebSockets: true, Dialogs: true,
		Navigations: true, Actions: true}
}

// KindErrorGroups keys the error groups in [Store.Clear]'s counts.
const KindErrorGroups = "error_groups"

// maxClearedOrders bounds the timeline orders of cleared entries a tab
// remembers (to tell readers they did not miss them); the oldest go first.
const maxClearedOrders = 1 << 15

// Clear empties the named buffers of a tab and returns how many entries it
// dropped, by kind (error groups under [KindErrorGroups]). Cursors stay
// valid: sequence numbers and timeline orders are never reused, and a
// reader whose cursor is older is not told it missed what was cleared.
// What the tab's current page is, requests in flight and open dialogs are
// kept. A tab without buffers clears nothing.
func (s *Store) Clear(tabID int, b Buffers) map[string]int {
	out := map[string]int{}
	t := s.get(tabID)
	if t == nil {
		return out
	}
	var orders []uint64
	clearRing(t.console, b.Console, KindConsole, out, &orders)
	clearRing(t.exceptions, b.Exceptions, KindException, out, &orders)
	clearRing(t.network, b.Network, KindNetwork, out, &orders)
	clearRing(t.websockets, b.WebSockets, KindWebSocket, out, &orders)
	clearRing(t.dialogs, b.Dialogs, KindDialog, out, &orders)
	clearRing(t.navigations, b.Navigations, KindNavigation, out, &orders)
	clearRing(t.actions, b.Actions, KindAction, out, &orders)
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, g := range t.errors {
		if b.ErrorGroups || b.Console && g.Kind == KindConsole || b.Exceptions && g.Kind == KindException {
			delete(t.errors, k)
			out[KindErrorGroups]++
		}
	}
	t.noteCleared(orders)
	return out
}

// clearRing empties r when on, counting what it dropped under name and
// collecting the dropped entries' timeline orders.
func clearRing[T entry[T]](r *Ring[T], on bool, name string, counts map[string]int, orders *[]uint64) {
	if !on {
		return
	}
	n := r.Clear(func(e T) { *orders = append(*orders, e.orderOf()) })
	if n > 0 {
		counts[name] = n
	}
}

// noteCleared remembers the orders of cleared entries. Called with t.mu
// held.
func (t *tab) noteCleared(orders []uint64) {
	if len(orders) == 0 {
		return
	}
	t.cleared = append(t.cleared, orders...)
	slices.Sort(t.cleared)
	if over := len(t.cleared) - maxClearedOrders; over > 0 {
		t.cleared = append(t.cleared[:0:0], t.cleared[over:]...)
	}
}

// clearedIn counts the cleared entries whose order is in (after, through].
func (t *tab) clearedIn(after, through uint64) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	lo := sort.Search(len(t.cleared), func(i int) bool { return t.cleared[i] > after })
	hi := sort.Search(len(t.cleared), func(i int) bool { return t.cleared[i] > through })
	return uint64(hi - lo)
}

// Clear drops every kept entry, calling visit (when not nil) on each, and
// returns how many it dropped. Sequence numbers go on from where they were;
// [Ring.Since] does not count cleared entries as missed.
func (r *Ring[T]) Clear(visit func(T)) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	for i := range r.n {
		s := r.at(i)
		if visit != nil {
			visit(s.v)
		}
		*s = slot[T]{}
	}
	r.count(-r.bytes)
	r.head, r.n, r.bytes = 0, 0, 0
	r.cleared = r.last
	return n
}
