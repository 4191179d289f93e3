//go:build linux

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/hold"
)

// TestE2EClickSettlesInABackgroundTab: a click that opens a dialog fading
// in after its backdrop (Bootstrap's way) answers once both fades ended,
// in the agent's background tab too. Chrome draws a background tab about
// once a second, so the fades did not end before the click's bound: the
// click answered with them still running. The tab is now held painting
// while it settles.
func TestE2EClickSettlesInABackgroundTab(t *testing.T) {
	x := startInteract(t, "settle-background")
	x.open("fade-dialog.html?ms=120")
	for i := range 3 {
		if i > 0 {
			x.act("refresh", nil)
		}
		x.act("click", map[string]any{"selector": "#open"})
		assert.Equal(t, 0.0, js[float64](x.client, `document.getAnimations().length`), "click %d: every fade ended before the answer", i)
		assert.Equal(t, "1", js[string](x.client, `getComputedStyle(document.getElementById('dialog')).opacity`), "click %d: the dialog is fully drawn", i)
	}
}

// TestE2ECapturesShareAHeldTab: while something else holds a tab painting
// (a trace, a click waiting for what it set moving: internal/hold),
// captures of it leave the screencast running and do not stall; once it
// is let go, captures hold the tab themselves again. Masks hold in both.
func TestE2ECapturesShareAHeldTab(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "hold-shared")
	tab := a.newTab(r.url("pages/form.html"))
	shoot := func(when string) {
		t.Helper()
		shot := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
		assert.GreaterOrEqual(t, shot.Data["masked_elements"].(float64), 1.0, "%s: the password field is masked: %s", when, shot.Text)
		inlinePNG(t, shot)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	release, err := hold.Paint(ctx, r.Server.Tabs().Target(tab), r.Server.CDP(tab))
	require.NoError(t, err)
	for range 3 {
		shoot("held by another")
	}
	release()
	for range 3 {
		shoot("after")
	}
	// And a capture holding the tab itself keeps Paint waiting until it
	// ends: both complete.
	done := make(chan error, 1)
	go func() {
		rel, err := hold.Paint(context.WithoutCancel(ctx), r.Server.Tabs().Target(tab), r.Server.CDP(tab))
		if err == nil {
			rel()
		}
		done <- err
	}()
	shoot("beside a Paint")
	require.NoError(t, <-done)
	shoot("last")
}
