package actions

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/hold"
)

// An agent's tab is a background tab, and Chrome draws a background tab
// about once a second. What waits for a drawn frame then waits that
// second: a mouse move (Chrome delivers it with the page's next frame: a
// hover took 1,016 ms p50, 16.5 held; a drag makes six moves or more), a
// transition a click set moving (it never ends before the click's bound),
// a frame click retried after the next drawn frame. Such steps hold the
// tab painting first (internal/hold: a screencast that sends no frames,
// shared with captures and traces), from then until the action ends; the
// tab then draws at the display's rate. Actions that wait for no frame (a
// click in the main frame, typing) never take it: two round trips saved.

// painting holds the tab painting until the action ends (once per
// action). Best effort: a tab it cannot hold before ctx ends (a capture
// holds it) is acted on as it is.
func (a *act) painting(ctx context.Context) {
	if a.unpaint != nil {
		return
	}
	if release, err := hold.Paint(ctx, a.e.cfg.Target(a.tab), a.s); err == nil {
		a.unpaint = release
	}
}
