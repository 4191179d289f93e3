package devtools

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// Words says in full what a call of one of these gated modes does, for
// the approval prompt (gate.Config.Words); "" for the gate's own modes.
// The gate adds the tab ("on your own tab 7 (…), which you shared").
func (m *Manager) Words(c *mcpserver.Call) string {
	switch c.Mode.Key() {
	case "interact.emulate":
		return "change the device and network conditions: " + emulateRequest(&c.Args).Text()
	case "interact.route":
		return "answer the page's requests matching " + routeText(routeSpec(&c.Args))
	case "interact.unroute":
		if p := c.Args.URLPattern; p != "" {
			return fmt.Sprintf("stop answering the page's requests matching %q (requests go to the network again)", p)
		}
		return "remove every route (requests go to the network again)"
	case "analyze.performance_trace":
		if d := c.Args.DurationMS; d > 0 {
			return fmt.Sprintf("record a performance trace of the next %d ms (no reload)", d)
		}
		return "reload the page and record a performance trace of the load"
	}
	return ""
}
