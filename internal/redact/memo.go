package redact

// memo remembers, during one scan of one string, where runs of a byte set
// end and which detectors already failed on a run. Without it a string like
// "sk-sk-sk-…" or "eyJ-eyJ-…" would re-read the same long run from every
// candidate start: quadratic. With it every run is read once.
//
// A failure is safe to reuse: a later candidate inside the same run ends at
// the same byte (same boundary verdict) with a shorter body (still too
// short, still not mixed). Entries are replaced round-robin. keyValue is
// never called with a nil *memo; the run helpers accept one and then cache
// nothing.
type memo struct {
	runs    [4]runEntry
	fails   [8]failEntry
	nr      int
	nf      int
	kvUntil int // key-value names starting before this were judged already

	decodedUntil int // values starting before this were URL-decoded already
}

type runEntry struct {
	set       *[256]bool
	from, end int
}

type failEntry struct {
	label string
	set   *[256]bool
	end   int
}

// runEnd returns the end of the maximal run of set starting at body.
func (m *memo) runEnd(s string, body int, set *[256]bool) int {
	if m != nil {
		for _, r := range m.runs {
			if r.set == set && body >= r.from && body <= r.end {
				return r.end
			}
		}
	}
	j := body
	for j < len(s) && set[s[j]] {
		j++
	}
	if m != nil {
		m.runs[m.nr%len(m.runs)] = runEntry{set, body, j}
		m.nr++
	}
	return j
}

// failed reports whether label already failed on the run of set ending at
// end.
func (m *memo) failed(label string, set *[256]bool, end int) bool {
	if m == nil {
		return false
	}
	for _, f := range m.fails {
		if f.end == end && f.set == set && f.label == label {
			return true
		}
	}
	return false
}

// fail records that label failed on the run of set ending at end.
func (m *memo) fail(label string, set *[256]bool, end int) {
	if m == nil {
		return
	}
	m.fails[m.nf%len(m.fails)] = failEntry{label, set, end}
	m.nf++
}
