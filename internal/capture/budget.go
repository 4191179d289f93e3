package capture

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// The store-wide byte cap (Options.MaxBytes). Each tab's buffers are
// capped by count and bytes, but a tab's caps add up to ~25 MiB and a
// store keeps MaxTabs tabs: the store as a whole keeps at most MaxBytes
// of entries, and past it the least recently active tab's largest buffer
// gives up its oldest entries first (readers see them as missed, as any
// eviction).

// budgeted is what the store-wide cap needs of a ring, whatever it holds.
type budgeted interface {
	countIn(total *atomic.Int64)
	detach()
	evictOldest() bool
	Stats() RingStats
}

func (t *tab) rings() []budgeted {
	return []budgeted{t.console, t.exceptions, t.network, t.websockets, t.dialogs, t.navigations, t.actions}
}

// countIn makes the tab's bytes part of the store's count.
func (t *tab) countIn(total *atomic.Int64) {
	for _, r := range t.rings() {
		r.countIn(total)
	}
}

// detach takes a dropped tab's bytes out of the store's count.
func (t *tab) detach() {
	for _, r := range t.rings() {
		r.detach()
	}
}

// evictOne drops the oldest entry of the tab's largest buffer; false when
// the tab holds nothing.
func (t *tab) evictOne() bool {
	var big budgeted
	var most int64
	for _, r := range t.rings() {
		if b := r.Stats().Bytes; b > most {
			big, most = r, b
		}
	}
	return big != nil && big.evictOldest()
}

// trim evicts until the store keeps at most MaxBytes, from the least
// recently active tabs first. One trim runs at a time; a call that finds
// one running returns (the running one brings the count down).
func (s *Store) trim() {
	if s.bytes.Load() <= s.opts.MaxBytes || !s.trimming.TryLock() {
		return
	}
	defer s.trimming.Unlock()
	s.mu.Lock()
	tabs := make([]*tab, 0, len(s.tabs))
	for _, t := range s.tabs {
		tabs = append(tabs, t)
	}
	s.mu.Unlock()
	slices.SortFunc(tabs, func(a, b *tab) int { return cmp.Compare(a.lastUse.Load(), b.lastUse.Load()) })
	for _, t := range tabs {
		for s.bytes.Load() > s.opts.MaxBytes {
			if !t.evictOne() {
				break
			}
			s.trimmed.Add(1)
		}
	}
}
