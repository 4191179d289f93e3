package capture

import (
	"sort"
	"sync"
	"sync/atomic"
)

// Sized is the constraint on what a [Ring] holds: an entry that reports the
// approximate number of bytes it keeps alive and that can be stamped with the
// sequence number the ring gives it. Both methods work on values, so an entry
// is copied into the ring and never shared with the caller.
type Sized[T any] interface {
	// Size returns the approximate number of bytes the entry retains,
	// including its own struct.
	Size() int
	// WithSeq returns a copy of the entry carrying seq.
	WithSeq(seq uint64) T
}

// slot is one kept entry with its bookkeeping.
type slot[T any] struct {
	v    T
	seq  uint64
	size int
}

// ringMinCap is the first allocation of a ring's buffer; it doubles up to the
// entry limit, so an idle tab does not pay for its full capacity.
const ringMinCap = 16

// Ring is a bounded FIFO of entries with monotonically increasing cursors.
// Every appended entry gets the next sequence number (starting at 1). When
// the entry count or the approximate byte total would pass its limit, the
// oldest entries are evicted and counted. Sequence numbers are never reused,
// so a cursor stays meaningful after the entries around it are evicted.
//
// A Ring is safe for concurrent use. Append is its only mutation.
type Ring[T Sized[T]] struct {
	maxEntries int
	maxBytes   int64

	mu      sync.Mutex
	buf     []slot[T] // circular; len(buf) grows up to maxEntries
	head    int       // index of the oldest kept entry
	n       int       // number of kept entries
	bytes   int64     // sum of kept sizes
	last    uint64    // sequence number of the newest appended entry
	evicted uint64    // entries appended but no longer kept
	cleared uint64    // sequence number of the newest entry Clear dropped
	// total, when set, is the store-wide count of bytes kept that this
	// ring's bytes are part of (Options.MaxBytes); detach unsets it.
	total *atomic.Int64
}

// NewRing returns an empty ring that keeps at most maxEntries entries
// (values below 1 mean 1) and at most maxBytes bytes of entries (values
// below 1 mean no byte limit).
func NewRing[T Sized[T]](maxEntries int, maxBytes int64) *Ring[T] {
	return &Ring[T]{maxEntries: max(maxEntries, 1), maxBytes: maxBytes}
}

// Append stores v, stamped with the next sequence number, and returns that
// number. It evicts the oldest entries to make room. An entry larger than
// the byte limit on its own is counted as evicted at once: its sequence
// number is used up, and readers see it as missed.
func (r *Ring[T]) Append(v T) uint64 {
	size := v.Size()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last++
	seq := r.last
	if r.maxBytes > 0 && int64(size) > r.maxBytes {
		r.evicted++
		return seq
	}
	before := r.bytes
	defer func() { r.count(r.bytes - before) }()
	for r.n > 0 && (r.n >= r.maxEntries || r.maxBytes > 0 && r.bytes+int64(size) > r.maxBytes) {
		old := &r.buf[r.head]
		r.bytes -= int64(old.size)
		*old = slot[T]{} // drop references for the collector
		r.head = (r.head + 1) % len(r.buf)
		r.n--
		r.evicted++
	}
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = slot[T]{v: v.WithSeq(seq), seq: seq, size: size}
	r.n++
	r.bytes += int64(size)
	return seq
}

// grow doubles the buffer (up to maxEntries) and lays the entries out from
// index 0. Called with r.mu held and r.n == len(r.buf) < r.maxEntries.
func (r *Ring[T]) grow() {
	c := min(max(2*len(r.buf), ringMinCap), r.maxEntries)
	buf := make([]slot[T], c)
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}

// Since returns up to limit entries (limit < 1: no limit) appended after the
// cursor afterCursor, oldest first. next is the cursor to pass on the
// following call. truncated reports that more entries follow. missed counts
// the entries after afterCursor that were evicted before they could be read.
// A cursor of 0 reads from the oldest kept entry; a cursor the ring never
// issued (larger than the newest sequence number, for example from a ring
// that was replaced) is treated as 0.
func (r *Ring[T]) Since(afterCursor uint64, limit int) (entries []T, next uint64, truncated bool, missed uint64) {
	return r.Scan(afterCursor, limit, nil)
}

// Scan is [Ring.Since] that returns only the entries for which keep reports
// true (keep == nil keeps all). Entries that keep rejects are passed over,
// not counted as missed; truncated reports that a kept entry follows.
// keep runs with the ring locked and must not call back into the ring.
func (r *Ring[T]) Scan(afterCursor uint64, limit int, keep func(T) bool) (entries []T, next uint64, truncated bool, missed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	after := afterCursor
	if after > r.last {
		after = 0
	}
	start := sort.Search(r.n, func(i int) bool { return r.at(i).seq > after })
	end := start // one past the last index of the window (after, next]
	for i := start; i < r.n; i++ {
		s := r.at(i)
		if keep != nil && !keep(s.v) {
			continue
		}
		if limit > 0 && len(entries) == limit {
			// The window closes at the last returned entry; entries
			// passed over after it are read on the next call.
			truncated = true
			break
		}
		if entries == nil {
			c := r.n - i
			if limit > 0 {
				c = min(c, limit)
			}
			entries = make([]T, 0, c)
		}
		entries = append(entries, s.v)
		next, end = s.seq, i+1
	}
	if !truncated {
		next, end = r.last, r.n
	}
	// Entries up to r.cleared were dropped by Clear, not missed.
	base := max(after, min(r.cleared, next))
	missed = (next - base) - uint64(end-start)
	return entries, next, truncated, missed
}

// at returns the i-th kept entry, oldest first. Called with r.mu held.
func (r *Ring[T]) at(i int) *slot[T] {
	return &r.buf[(r.head+i)%len(r.buf)]
}

// RingStats is a snapshot of a ring's counters.
type RingStats struct {
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	Evicted uint64 `json:"evicted"`
	Last    uint64 `json:"last_cursor"`
}

// count adds delta to the store-wide byte count. Called with r.mu held.
func (r *Ring[T]) count(delta int64) {
	if r.total != nil && delta != 0 {
		r.total.Add(delta)
	}
}

// countIn makes the ring's bytes part of total from now on.
func (r *Ring[T]) countIn(total *atomic.Int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total = total
	r.count(r.bytes)
}

// detach takes the ring's bytes out of the store-wide count, for good (its
// tab was dropped: an append still under way counts nowhere).
func (r *Ring[T]) detach() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count(-r.bytes)
	r.total = nil
}

// evictOldest drops the oldest kept entry, counted as evicted (readers see
// it as missed), and reports whether there was one.
func (r *Ring[T]) evictOldest() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return false
	}
	old := &r.buf[r.head]
	r.bytes -= int64(old.size)
	r.count(-int64(old.size))
	*old = slot[T]{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.evicted++
	return true
}

// Stats returns the ring's counters.
func (r *Ring[T]) Stats() RingStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RingStats{Entries: r.n, Bytes: r.bytes, Evicted: r.evicted, Last: r.last}
}

// Evicted returns how many entries were appended and are no longer kept.
func (r *Ring[T]) Evicted() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.evicted
}

// Len returns the number of kept entries.
func (r *Ring[T]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}
