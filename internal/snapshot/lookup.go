package snapshot

import "strconv"

// WorldName is the name of Gasoline's isolated world in every frame. Code
// that runs its own scripts there (the analyze modes) shares the world,
// and so the walker's element → ref table.
const WorldName = worldName

// RefOfJS declares gasolineRefOf(el): the number of the ref the latest
// snapshot of this document issued for el, or 0 when it issued none. It
// must run in WorldName's world (where the walker keeps its table); pass
// the number to [Snapshotter.Issued] before naming the ref to an agent.
const RefOfJS = `function gasolineRefOf(el) {
  const W = globalThis.__gasoline;
  const n = W && W.ids.get(el);
  return n && W.byN.get(n)?.deref() === el ? n : 0;
}`

// Issued reports whether ref number n (from RefOfJS) is one the tab's
// latest snapshot of its current document issued, so that acting on it
// works; it returns the ref's name (e12).
func (s *Snapshotter) Issued(tab, n int) (string, bool) {
	if n <= 0 {
		return "", false
	}
	t, nav := s.tab(tab)
	t.mu.Lock()
	defer t.mu.Unlock()
	ref := "e" + strconv.Itoa(n)
	if _, err := t.lookup(ref, nav); err != nil {
		return "", false
	}
	return ref, true
}
