package feed

import (
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Sizes reports the tabs whose targets hold the feed's replay fence (the
// daemon's memory report); held is the tabs sessions own.
func Sizes(targets *target.Set, held int) []memory.Store {
	return []memory.Store{{Name: "feed.tabs", Len: feedPart.Count(targets), Cap: held}}
}
