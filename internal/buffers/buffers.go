// Package buffers serves configure clear: it empties the capture buffers
// (internal/capture) of the calling session's tabs — all of them, or one:
// console, errors, network, websocket, actions. Cursors stay valid across
// a clear (sequence numbers are never reused) and readers are not told
// they missed what was cleared.
package buffers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Config configures configure clear. All fields are required.
type Config struct {
	Store *capture.Store
	Tabs  *tabs.Registry
}

// Register serves configure clear on m.
func Register(m *mcpserver.Server, cfg Config) {
	m.Handle("configure", "clear", func(ctx context.Context, c *mcpserver.Call) (any, error) { return clearBuffers(cfg, c) })
}

// Names maps the buffer argument to what it empties.
var Names = map[string]capture.Buffers{
	"all": capture.AllBuffers(),
	// console: console messages, and the errors they were (their groups).
	"console": {Console: true},
	// errors: uncaught exceptions and every error group; observe errors
	// starts over, console messages stay in logs.
	"errors":    {Exceptions: true, ErrorGroups: true},
	"network":   {Network: true},
	"websocket": {WebSockets: true},
	// actions: what observe actions lists: actions and navigations.
	"actions": {Actions: true, Navigations: true},
}

// Result is configure clear's answer.
type Result struct {
	Buffer  string      `json:"buffer"`
	Tabs    []TabResult `json:"tabs"`
	Cleared int         `json:"cleared"` // entries dropped in all
}

// TabResult is what one tab lost, by kind.
type TabResult struct {
	TabID   int            `json:"tab_id"`
	Cleared map[string]int `json:"cleared"`
}

func clearBuffers(cfg Config, c *mcpserver.Call) (any, error) {
	name := c.Args.Buffer
	if name == "" {
		name = "all"
	}
	set, ok := Names[name]
	if !ok {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "buffer must be one of %s", strings.Join(slices.Sorted(maps.Keys(Names)), ", "))
	}
	res := Result{Buffer: name, Tabs: []TabResult{}}
	for _, tab := range cfg.Tabs.Tabs(c.Session.ID()) {
		got := cfg.Store.Clear(tab, set)
		for _, n := range got {
			res.Cleared += n
		}
		res.Tabs = append(res.Tabs, TabResult{TabID: tab, Cleared: got})
	}
	var b strings.Builder
	if len(res.Tabs) == 0 {
		fmt.Fprintf(&b, "this session has no tab: nothing to clear")
		return mcpserver.Result(b.String(), res)
	}
	fmt.Fprintf(&b, "cleared %s buffers of %d tabs: %d entries", name, len(res.Tabs), res.Cleared)
	for _, t := range res.Tabs {
		fmt.Fprintf(&b, "\ntab %d:", t.TabID)
		if len(t.Cleared) == 0 {
			b.WriteString(" nothing held")
		}
		for _, k := range slices.Sorted(maps.Keys(t.Cleared)) {
			fmt.Fprintf(&b, " %d %s", t.Cleared[k], k)
		}
	}
	b.WriteString("\ncursors from earlier answers stay valid")
	return mcpserver.Result(b.String(), res)
}
