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

// TestE2EScreenshotTooBigEncodedFastIsTakenAgain: a PNG screenshot is
// encoded with Chrome's fast encoder, whose bytes are bigger; a picture
// that is too big to be inline encoded that way (what to_file gets, over
// 1.5 MiB) is captured again, masked again, with the default encoder, and
// comes inline: smaller, with its password field black.
func TestE2EScreenshotTooBigEncodedFastIsTakenAgain(t *testing.T) {
	const maxInline = 1536 << 10
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "shot-encode-e2e")
	tab := a.newTab(r.url("pages/secrets/oversize.html"))
	args := map[string]any{"what": "screenshot", "tab_id": tab, "selector": "#art"}

	file := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab, "selector": "#art", "to_file": true})
	require.Greater(t, file.Data["bytes"], float64(maxInline), "encoded fast, the picture is too big to be inline: %v", file.Data)
	require.NotEmpty(t, file.Data["path"])

	shot := a.ok("observe", args)
	require.Nil(t, shot.Data["path"], "the default encoder's bytes fit inline: %v", shot.Data)
	require.LessOrEqual(t, shot.Data["bytes"], float64(maxInline))
	require.Equal(t, true, shot.Data["masked"])
	require.EqualValues(t, 1, shot.Data["masked_elements"], "%v", shot.Data)
	img := inlinePNG(t, shot)
	require.Equal(t, 4800, img.Bounds().Dy(), "the element whole")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	yes := true
	res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes,
		Expression: `(() => { const a = document.getElementById('art').getBoundingClientRect(), r = document.getElementById('pass').getBoundingClientRect();
		  return [r.left - a.left, r.top - a.top, r.right - a.left, r.bottom - a.top, 1]; })()`})
	require.NoError(t, err)
	var box []float64
	require.NoError(t, jsonUnmarshal(res.Result.Value, &box))
	require.Greater(t, darkShare(img, box), 0.98, "the password field is masked in the image taken again")
}
