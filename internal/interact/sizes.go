package interact

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports what is kept per tab for snapshots and actions (the
// daemon's memory report); held is the tabs sessions own.
func (x *Interact) Sizes(held int) []memory.Store {
	out := x.snaps.Sizes(held)
	out = append(out, x.children.Sizes(held)...)
	return append(out, x.eng.Sizes(held)...)
}
