package capture

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what the store holds against its bounds (the daemon's
// memory report): the tabs with buffers, each kind's entries and bytes
// across them, requests in flight and error groups. Caps are per tab
// times MaxTabs.
func (s *Store) Sizes() []memory.Store {
	st := s.Stats()
	o := &s.opts
	n := o.MaxTabs
	out := []memory.Store{{Name: "capture.tabs", Len: st.Tabs, Cap: n}}
	lims := [numKinds]Limits{o.Console, o.Exceptions, o.Network, o.WebSockets, o.Dialogs, o.Navigations, o.Actions}
	for k, name := range kindNames {
		ks := st.Kinds[name]
		out = append(out, memory.Store{Name: "capture." + name, Len: ks.Entries, Cap: lims[k].MaxEntries * n,
			Bytes: ks.Bytes, MaxBytes: lims[k].MaxBytes * int64(n)})
	}
	return append(out,
		memory.Store{Name: "capture.open_requests", Len: st.OpenRequests, Cap: o.MaxOpenRequests * n},
		memory.Store{Name: "capture.error_groups", Len: st.ErrorGroups, Cap: o.MaxErrorGroups * n},
	)
}
