//go:build linux

package e2e

import (
	"context"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"
)

// TestE2EScreenshotWatchesAPageWithNothingToMask: a page with no sensitive
// field is captured without painting the mask (no style element is ever
// put into it: the frame the style change costs is saved); a password
// field that appears while it is captured — and stays, or is gone again
// before the check — makes Gasoline discard that image and capture again
// with the mask painted, and the field that stayed is black in the image;
// so does a field the page draws as dots (-webkit-text-security), whether
// it appears or an existing field's style turns to dots for a moment.
func TestE2EScreenshotWatchesAPageWithNothingToMask(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "mask-watch-e2e")
	yes := true
	eval := func(ctx context.Context, tab int, expr string, v any) {
		t.Helper()
		res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes, Expression: expr})
		require.NoError(t, err)
		require.Nil(t, res.ExceptionDetails, "%s", expr)
		require.NoError(t, jsonUnmarshal(res.Result.Value, v))
	}
	for _, c := range []struct {
		appear       string
		styles, mask int // style elements the page saw put in, masked_elements
	}{
		{"", 0, 0},         // nothing to mask: watched, never painted
		{"stay", 1, 1},     // a field appeared and stayed: painted on the second capture
		{"flash", 1, 0},    // a field came and went during the capture: painted anyway
		{"dots", 1, 1},     // a field drawn as dots appeared and stayed
		{"restyle", 1, -1}, // a field drawn as dots for a moment: painted (masked or not, as the retry finds it)
	} {
		t.Run("appear="+c.appear, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			tab := a.newTab(r.url("pages/secrets/appear.html?appear=" + c.appear))
			shot := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
			require.Equal(t, true, shot.Data["masked"])
			if c.mask >= 0 {
				require.EqualValues(t, c.mask, shot.Data["masked_elements"], "%v", shot.Data)
			}
			var styles int
			eval(ctx, tab, `window.maskStyles`, &styles)
			require.Equal(t, c.styles, styles, "mask style elements put into the page")
			var left int
			eval(ctx, tab, `document.querySelectorAll('#__gasoline_mask').length + (globalThis[Symbol.for('gasoline.watch')] ? 1 : 0)`, &left)
			require.Zero(t, left, "nothing of the mask or the watch is left in the page")
			img := inlinePNG(t, shot)
			var box []float64
			eval(ctx, tab, `(() => { const r = document.getElementById('plain').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, devicePixelRatio]; })()`, &box)
			require.Less(t, darkShare(img, box), 0.5, "the ordinary field stays visible")
			if c.appear == "stay" || c.appear == "dots" {
				eval(ctx, tab, `(() => { const r = document.getElementById('late').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, devicePixelRatio]; })()`, &box)
				require.Greater(t, darkShare(img, box), 0.98, "the password field that appeared is masked")
			}
		})
	}
}
