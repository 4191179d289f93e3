//go:build linux

package e2e

import (
	"context"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/stretchr/testify/require"
)

// TestE2EScreenshotHoldLingersThenEnds: captures of a background tab in a
// row share the screencast that holds it painting (each asks for it; one
// that finds it open goes on), a performance trace right after them gets a
// hold of its own, and after the last call the hold ends with no further
// call: a new screencast can start in the tab.
func TestE2EScreenshotHoldLingersThenEnds(t *testing.T) {
	x := startDevtools(t, "shot-hold-e2e", ChainOptions{})
	tab := x.newTab(x.url("pages/secrets/pay.html"))
	for range 3 {
		shot := x.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
		require.EqualValues(t, 2, shot.Data["masked_elements"], "card and password: %v", shot.Data)
		inlinePNG(t, shot)
	}
	r, a := x.trace(map[string]any{"tab_id": tab, "duration_ms": 500})
	require.NotEmpty(t, r.Path, a.Text)
	shot := x.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
	require.EqualValues(t, 2, shot.Data["masked_elements"], "%v", shot.Data)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	hold := page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, MaxWidth: 8, MaxHeight: 8, EveryNthFrame: 1 << 30}
	eventually(t, 20*time.Second, "the hold ends after the last capture", func() bool {
		if _, err := cdproto.Call(ctx, x.Server.CDP(tab), page.StartScreencast, hold); err != nil {
			return false
		}
		_, err := cdproto.Call(ctx, x.Server.CDP(tab), page.StopScreencast, cdproto.Empty{})
		require.NoError(t, err)
		return true
	})
}
