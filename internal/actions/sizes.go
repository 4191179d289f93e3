package actions

import (
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Sizes reports the tabs whose targets hold an action queue (the daemon's
// memory report); held is the tabs sessions own.
func Sizes(targets *target.Set, held int) []memory.Store {
	return []memory.Store{{Name: "actions.tabs", Len: tabPart.Count(targets), Cap: held}}
}
