package export

// ring keeps the last n values appended, in order. Its array grows by
// doubling up to n and is then reused: appending to a full ring
// overwrites the oldest value and allocates nothing. (Trimming a slice to
// its last n on every append copied all n values, twice, per call: a
// fifth of everything a busy daemon allocated.)
type ring[T any] struct {
	buf  []T
	head int // index of the oldest value once full
	n    int // values kept
}

func (r *ring[T]) add(v T, limit int) {
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = v
		r.n++
		return
	}
	if len(r.buf) < limit {
		grown := make([]T, min(max(2*len(r.buf), 16), limit))
		r.copyTo(grown)
		r.buf, r.head = grown, 0
		r.buf[r.n] = v
		r.n++
		return
	}
	r.buf[r.head] = v // full: the oldest goes
	r.head = (r.head + 1) % len(r.buf)
}

// values returns a copy of the values, oldest first.
func (r *ring[T]) values() []T {
	if r.n == 0 {
		return nil
	}
	out := make([]T, r.n)
	r.copyTo(out)
	return out
}

func (r *ring[T]) copyTo(dst []T) {
	for i := range r.n {
		dst[i] = r.buf[(r.head+i)%len(r.buf)]
	}
}

func (r *ring[T]) len() int { return r.n }
