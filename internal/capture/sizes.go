package capture

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the store holds against its bounds (the daemon's
// memory report): the tabs with buffers, every entry and its bytes against
// the store-wide cap, each kind's entries and bytes across the tabs,
// requests in flight and error groups. Counts are capped per tab times
// MaxTabs; bytes per tab and kind, and by MaxBytes in all.
func (s *Store) Sizes() []memory.Store {
	st := s.Stats()
	o := &s.opts
	n := o.MaxTabs
	out := []memory.Store{{Name: "capture.tabs", Len: st.Tabs, Cap: n}}
	lims := [numKinds]Limits{o.Console, o.Exceptions, o.Network, o.WebSockets, o.Dialogs, o.Navigations, o.Actions}
	all := memory.Store{Name: "capture.entries", Bytes: s.bytes.Load(), MaxBytes: o.MaxBytes}
	var kinds []memory.Store
	for k, name := range kindNames {
		ks := st.Kinds[name]
		all.Len += ks.Entries
		all.Cap += lims[k].MaxEntries * n
		kinds = append(kinds, memory.Store{Name: "capture." + name, Len: ks.Entries, Cap: lims[k].MaxEntries * n,
			Bytes: ks.Bytes, MaxBytes: min(lims[k].MaxBytes*int64(n), o.MaxBytes)})
	}
	out = append(append(out, all), kinds...)
	return append(out,
		memory.Store{Name: "capture.open_requests", Len: st.OpenRequests, Cap: o.MaxOpenRequests * n},
		memory.Store{Name: "capture.error_groups", Len: st.ErrorGroups, Cap: o.MaxErrorGroups * n},
	)
}
