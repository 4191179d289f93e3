package memory

// Store is what one of a process's stores holds now, beside the bound it
// is kept under. Every store that grows with use (per tab, per session,
// per call) reports itself, so a daemon that runs for days can show that
// none creeps: Len never passes Cap, Bytes never passes MaxBytes (where
// the store counts bytes).
type Store struct {
	Name string `json:"name"` // package.store, e.g. capture.console
	Len  int    `json:"len"`  // entries held now
	// Cap is the most entries the store holds, across everything it is
	// kept per (a per-tab cap times the tabs kept, …).
	Cap      int   `json:"cap"`
	Bytes    int64 `json:"bytes,omitempty"`     // approximate bytes held now, where counted
	MaxBytes int64 `json:"max_bytes,omitempty"` // their bound
}

// Over reports whether the store holds more than its bounds.
func (s Store) Over() bool {
	return s.Len > s.Cap || (s.MaxBytes > 0 && s.Bytes > s.MaxBytes)
}

// Report is a process's memory: the runtime's view and its stores.
type Report struct {
	Runtime Runtime `json:"runtime"`
	Stores  []Store `json:"stores"`
}

// Brief is a report in few words, for configure health: the runtime's
// figures and the size of each store holding anything (name → entries).
type Brief struct {
	Runtime
	Stores map[string]int `json:"stores"`
}

// Brief returns the report in few words.
func (r Report) Brief() Brief {
	b := Brief{Runtime: r.Runtime, Stores: map[string]int{}}
	for _, s := range r.Stores {
		if s.Len > 0 {
			b.Stores[s.Name] = s.Len
		}
	}
	return b
}
