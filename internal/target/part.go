package target

// partKey names one kind of per-tab state.
type partKey struct{ name string }

// Part is one kind of per-tab state a part of the daemon keeps in every
// target (the action queue, the snapshot refs, the action recorder's
// install): made on first use, dropped when the target closes (a value
// with a Close method is closed then). No package keeps a map of tabs.
type Part[T any] struct {
	key  *partKey
	make func(t *Target) *T
}

// NewPart declares a kind of per-tab state; make builds a target's value
// on first use (it must not call back into the target).
func NewPart[T any](name string, make func(t *Target) *T) *Part[T] {
	return &Part[T]{key: &partKey{name}, make: make}
}

// Of returns the target's value, making it on first use. A closed target
// keeps nothing: its callers get a fresh value that is not kept.
func (p *Part[T]) Of(t *Target) *T {
	t.mu.Lock()
	v, ok := t.parts[p.key]
	t.mu.Unlock()
	if ok {
		return v.(*T)
	}
	fresh := p.make(t)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fresh
	}
	if v, ok := t.parts[p.key]; ok { // another caller made it meanwhile
		return v.(*T)
	}
	t.parts[p.key] = fresh
	return fresh
}

// Peek returns the target's value without making one.
func (p *Part[T]) Peek(t *Target) (*T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.parts[p.key]
	if !ok {
		return nil, false
	}
	return v.(*T), true
}

// Count is how many of the set's targets hold a value of the part (the
// daemon's memory report).
func (p *Part[T]) Count(s *Set) int {
	n := 0
	p.Each(s, func(*T) { n++ })
	return n
}

// Each calls fn with the part's value of every target that holds one (in
// no order).
func (p *Part[T]) Each(s *Set, fn func(v *T)) {
	s.Each(func(t *Target) {
		if v, ok := p.Peek(t); ok {
			fn(v)
		}
	})
}
