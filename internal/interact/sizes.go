package interact

import (
	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

// Sizes reports what the targets keep for snapshots and actions (the
// daemon's memory report); held is the tabs sessions own.
func (x *Interact) Sizes(held int) []memory.Store {
	out := snapshot.Sizes(x.tabs.Targets(), held)
	return append(out, actions.Sizes(x.tabs.Targets(), held)...)
}
