//go:build linux

package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"
)

// TestE2EDrawnAsDotsIsMasked: a type=text field and a block the page
// draws as dots (-webkit-text-security, how sites show a PIN) read ••••
// in snapshot, get_value and get_text, like a password field, and the
// screenshot masks them: on this page, painted for its password field,
// both are black in the image.
func TestE2EDrawnAsDotsIsMasked(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "masked-dots")
	tab := a.newTab(r.url("pages/trust/prompts.html"))

	snap := a.observe("snapshot", map[string]any{"tab_id": tab})
	require.NotContains(t, snap.Text, "4321", "the PIN drawn as dots")
	require.NotContains(t, snap.Text, "9876", "the text drawn as dots")
	require.NotContains(t, snap.Text, "hunter2-secret")
	require.Contains(t, snap.Text, "••••")

	v := a.ok("interact", map[string]any{"what": "get_value", "selector": "#pin", "tab_id": tab})
	require.Equal(t, "••••", v.Data["value"], v.Text)
	x := a.ok("interact", map[string]any{"what": "get_text", "selector": "#dots", "tab_id": tab})
	require.Equal(t, "••••", x.Data["value"], x.Text)
	require.NotContains(t, v.Text+x.Text, "4321")

	shot := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
	require.GreaterOrEqual(t, shot.Data["masked_elements"].(float64), float64(3), "the password field and both dotted elements: %s", shot.Text)
	img := inlinePNG(t, shot)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	yes := true
	for _, id := range []string{"pw", "pin", "dots"} {
		res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes,
			Expression: `(() => { const r = document.getElementById('` + id + `').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, devicePixelRatio]; })()`})
		require.NoError(t, err)
		var box []float64
		require.NoError(t, jsonUnmarshal(res.Result.Value, &box))
		require.Greater(t, darkShare(img, box), 0.98, "#%s is black in the image", id)
	}
}

// TestE2EScriptResultIsRedactedBeforeItIsCut: a token that straddles the
// cut of execute_js's message (200 characters) or of its value (the size
// cap) never shows a first part: the result is redacted whole, then cut.
func TestE2EScriptResultIsRedactedBeforeItIsCut(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "masked-cut")
	tab := a.newTab(r.url("pages/trust/prompts.html"))
	const tail = "Zq3KxT9wLm2VbN8cR4yH6uJ1pE5sD7fG0aQe" // ghp_ + this is a GitHub token
	for _, pad := range []int{180, 185, 190, 64*1024 - 20} {
		script := "'a'.repeat(" + strconv.Itoa(pad) + ") + ' ghp_' + '" + tail + " and more text after it'"
		res := a.ok("interact", map[string]any{"what": "execute_js", "script": script, "tab_id": tab})
		all := res.Text + mustJSON(t, res.Data)
		for k := 4; k <= len(tail); k++ {
			require.NotContains(t, all, "ghp_"+tail[:k], "pad %d: a first part of the token shows", pad)
		}
		require.Contains(t, all, "[REDACTED:", "pad %d: the token was redacted", pad)
	}
}
