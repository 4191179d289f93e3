//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// gateClicksPolicy lets the agent open tabs on the test site without
// asking, and gates everything else (the default for mutating modes).
const gateClicksPolicy = `{"version":1,"rules":[{"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"}]}`

// paidCount reads the page's counter directly over CDP (not through the
// agent's tools).
func paidCount(t testing.TB, ctx context.Context, c *Chain, tab int) string {
	yes := true
	res, err := cdproto.Call(ctx, c.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression: `document.getElementById('count').textContent`, ReturnByValue: &yes})
	require.NoError(t, err)
	return string(res.Result.Value)
}

// clickAsync calls interact click on #pay in the background.
func clickAsync(a *client, tab int) <-chan answer {
	out := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{
			"what": "click", "selector": "#pay", "tab_id": tab, "timeout_ms": 60000}})
		ans := answer{Raw: res}
		if err != nil {
			ans.Text, ans.IsError = err.Error(), true
		} else {
			ans.IsError = res.IsError
			raw := mustJSONB(res.StructuredContent)
			ans.Data = map[string]any{}
			_ = jsonUnmarshal(raw, &ans.Data)
		}
		out <- ans
	}()
	return out
}

// TestE2EGatedClickApprovedInPanel: a gated click waits; the user approves
// it in the extension's panel (driven with trusted input in the test
// browser) and the click happens once; a denied click leaves the page
// untouched.
func TestE2EGatedClickApprovedInPanel(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: gateClicksPolicy, RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	a := mcpClient(t, c.Server.Port(), c.Server.Token(), "safety-e2e")
	tab := a.newTab(c.PageURL("pages/secrets/pay.html"))
	require.Equal(t, `"0"`, paidCount(t, ctx, c, tab))
	p := openPanel(t, ctx, c)

	done := clickAsync(a, tab)
	f := p.prompt(ctx, "interact.click")
	require.Contains(t, f["action"], "interact.click", "the prompt says which mode: %v", f)
	require.Contains(t, f["target"], "click ", "and what it does: %v", f)
	require.Contains(t, f["origin"], "http://127.0.0.1:", "and where: %v", f)
	require.Equal(t, `"0"`, paidCount(t, ctx, c, tab), "nothing happens before the user's yes")
	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .approve-once`)
	res := <-done
	require.False(t, res.IsError, "%v %s", res.Data, res.Text)
	require.Equal(t, `"1"`, paidCount(t, ctx, c, tab), "the approved click happened once")

	done = clickAsync(a, tab)
	f = p.prompt(ctx, "interact.click")
	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .deny`)
	res = <-done
	require.True(t, res.IsError)
	require.Equal(t, approval.CodeDenied, res.Data["code"], "%v", res.Data)
	require.Equal(t, `"1"`, paidCount(t, ctx, c, tab), "a denied click leaves the page untouched")

	// The redaction counters reach the panel's status (panel.status
	// "redaction"): a number of redacted values and of blocked outputs.
	a.call("observe", map[string]any{"what": "logs", "tab_id": tab, "text": "Bearer abcdefghijklmnopqrstuvwxyz0123"})
	p.waitFor(ctx, "redaction counters shown", `(() => {
	  const v = (l) => [...document.querySelectorAll('#status dt')].find((dt) => dt.textContent === l)?.nextElementSibling?.textContent;
	  return /^\d+$/.test(v('Values redacted')) && /^\d+$/.test(v('Outputs blocked'));
	})()`)

	// A secret the page prints in its console is redacted by the native
	// host (the source stage) and the host reports the count: the panel's
	// "Values redacted" (panel.status redaction.redacted_count) goes up,
	// and the session owning the tab sees it under by_stage.source.
	sourceBefore := sourceRedacted(t, a)
	redactedBefore := p.counter(ctx, "Values redacted")
	yes := true
	_, err := cdproto.Call(ctx, c.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression: `console.log('planted token ' + 'ghp_Zq3KxT9wLm2VbN8' + 'cR4yH6uJ1pE5sD7fG0aQe')`, ReturnByValue: &yes})
	require.NoError(t, err)
	p.waitFor(ctx, "the source-stage count in Values redacted", `(() => { const dt = [...document.querySelectorAll('#status dt')].find((d) => d.textContent === 'Values redacted');
	  return dt && Number(dt.nextElementSibling.textContent) > `+strconv.Itoa(redactedBefore)+`; })()`)
	eventually(t, 10*time.Second, "the tab's session counts the source stage", func() bool { return sourceRedacted(t, a) > sourceBefore })
	logs := a.observe("logs", map[string]any{"tab_id": tab, "text": "planted token"})
	require.Contains(t, logs.Text+mustJSON(t, logs.Data), "planted token [REDACTED:github_token]")
	p.close()
}

// sourceRedacted is the source stage's redacted count in the session's own
// counters (configure {what:"redaction", op:"get"}).
func sourceRedacted(t *testing.T, a *client) float64 {
	t.Helper()
	got := a.ok("configure", map[string]any{"what": "redaction", "op": "get"})
	sess, _ := got.Data["counters"].(map[string]any)
	stages, _ := sess["by_stage"].(map[string]any)
	src, _ := stages["source"].(map[string]any)
	n, _ := src["redacted"].(float64)
	return n
}

// TestE2EScreenshotMasks: password and card inputs and the policy's
// mask_selectors are black in the screenshot; an ordinary input is not.
// The pixels are checked inside each field's box.
func TestE2EScreenshotMasks(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "redaction.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"version":"mask-test/1","mask_selectors":[".private-note"]}`), 0o600))
	t.Setenv(redact.EnvPolicy, pol)
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "mask-e2e")
	tab := a.newTab(r.url("pages/secrets/pay.html"))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	shot := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
	require.Equal(t, true, shot.Data["masked"])
	require.EqualValues(t, 3, shot.Data["masked_elements"], "card, password and the policy's selector: %v", shot.Data)
	img := inlinePNG(t, shot)

	yes := true
	for id, masked := range map[string]bool{"card": true, "pass": true, "note": true, "plain": false} {
		res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes,
			Expression: `(() => { const r = document.getElementById('` + id + `').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, devicePixelRatio]; })()`})
		require.NoError(t, err)
		var box []float64
		require.NoError(t, jsonUnmarshal(res.Result.Value, &box))
		dark := darkShare(img, box)
		if masked {
			require.Greater(t, dark, 0.98, "#%s must be masked (dark share %.2f)", id, dark)
		} else {
			require.Less(t, dark, 0.5, "#%s must stay visible (dark share %.2f)", id, dark)
		}
	}
	// The mask is gone from the page afterwards.
	res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes,
		Expression: `document.getElementById('__gasoline_mask') === null`})
	require.NoError(t, err)
	require.Equal(t, "true", string(res.Result.Value))
}

// TestE2EScreenshotMasksEveryDocument: the mask reaches a password field
// in an open shadow root, one in a same-origin frame, and the card and
// password fields of a cross-site frame (out of process: masked in its own
// session, its ordinary field still visible); a cross-origin frame in the
// page's own process (same site, another port), out of reach, is black
// whole; the page's ordinary input stays visible, and nothing of the mask
// is left in any document afterwards.
func TestE2EScreenshotMasksEveryDocument(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	sibling := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(RepoRoot(), "testdata"))))
	t.Cleanup(sibling.Close)
	port := sibling.Listener.Addr().(*net.TCPAddr).Port
	a := r.client(t, "mask-frames-e2e")
	tab := a.newTab(r.url("pages/secrets/framed.html?port=" + strconv.Itoa(port)))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	yes := true
	eval := func(expr string, v any) {
		t.Helper()
		res, err := cdproto.Call(ctx, r.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{ReturnByValue: &yes, Expression: expr})
		require.NoError(t, err)
		require.Nil(t, res.ExceptionDetails, "%s", expr)
		require.NoError(t, jsonUnmarshal(res.Result.Value, v))
	}
	// Both frames loaded (the load event waits for them) and the cross-site
	// one is attached as a child session, which is how Gasoline reaches it.
	eventually(t, 10*time.Second, "the cross-site frame's session", func() bool {
		for _, c := range r.Server.Children(tab) {
			if c.Type == "iframe" {
				return true
			}
		}
		return false
	})

	shot := a.ok("observe", map[string]any{"what": "screenshot", "tab_id": tab})
	require.EqualValues(t, 4, shot.Data["masked_elements"], "the shadow root's and the same-origin frame's password fields, the cross-site frame's card and password: %v", shot.Data)
	require.EqualValues(t, 1, shot.Data["masked_frames"], "the same-site frame on another port: %v", shot.Data)
	require.Contains(t, shot.Text, "1 cross-origin frame(s) painted black")
	img := inlinePNG(t, shot)

	// card-frame.html puts its fields 300x40 at y = 0, 50 and 100.
	const box = `((r, dx, dy, w, h) => [r.left + dx, r.top + dy, r.left + dx + (w ?? r.width), r.top + dy + (h ?? r.height), devicePixelRatio])`
	inCross := func(y int) string {
		return box + `(document.getElementById('cross').getBoundingClientRect(), 0, ` + strconv.Itoa(y) + `, 300, 40)`
	}
	for name, c := range map[string]struct {
		expr   string
		masked bool
	}{
		"shadow root password": {box + `(document.querySelector('x-secret').shadowRoot.getElementById('spass').getBoundingClientRect(), 0, 0)`, true},
		"same-origin frame password": {`(() => { const f = document.getElementById('same').getBoundingClientRect();
		  return ` + box + `(document.getElementById('same').contentDocument.getElementById('fpass').getBoundingClientRect(), f.left, f.top); })()`, true},
		"cross-site frame card":     {inCross(0), true},
		"cross-site frame password": {inCross(50), true},
		"cross-site frame ordinary": {inCross(100), false},
		"same-site frame, whole":    {box + `(document.getElementById('sibling').getBoundingClientRect(), 0, 0)`, true},
		"ordinary input":            {box + `(document.getElementById('plain').getBoundingClientRect(), 0, 0)`, false},
	} {
		var b []float64
		eval(c.expr, &b)
		dark := darkShare(img, b)
		if c.masked {
			require.Greater(t, dark, 0.98, "%s must be masked (dark share %.2f)", name, dark)
		} else {
			require.Less(t, dark, 0.5, "%s must stay visible (dark share %.2f)", name, dark)
		}
	}
	var left int
	eval(`(() => { let n = document.querySelectorAll('#__gasoline_mask, [data-gasoline-opaque], [data-gasoline-inside]').length;
	  n += document.querySelector('x-secret').shadowRoot.querySelectorAll('#__gasoline_mask').length;
	  n += document.getElementById('same').contentDocument.querySelectorAll('#__gasoline_mask').length;
	  return n; })()`, &left)
	require.Zero(t, left, "the mask is gone from every document afterwards")
}

// inlinePNG decodes a screenshot answer's inline PNG image.
func inlinePNG(t *testing.T, shot answer) image.Image {
	t.Helper()
	var img image.Image
	for _, ct := range shot.Raw.Content {
		if ic, ok := ct.(*mcp.ImageContent); ok {
			var err error
			img, err = png.Decode(bytes.NewReader(ic.Data))
			require.NoError(t, err)
		}
	}
	require.NotNil(t, img, "the screenshot is inline")
	return img
}

// darkShare is the share of near-black pixels inside box (CSS pixels,
// inset by 3 px), scaled by the device pixel ratio box[4].
func darkShare(img image.Image, box []float64) float64 {
	s := box[4]
	var dark, all int
	for y := int((box[1] + 3) * s); y < int((box[3]-3)*s); y++ {
		for x := int((box[0] + 3) * s); x < int((box[2]-3)*s); x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			all++
			if r < 0x1000 && g < 0x1000 && b < 0x1000 {
				dark++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(dark) / float64(all)
}

// BenchmarkE2EApprovalRoundTrip times a gated click end to end with the
// human taken out: a subscriber approves each request the moment it is
// announced, so the figure is request → decision delivered → click
// executed → answer (goal: p95 ≤ 15 ms). The same click with the policy
// allowing it is timed alongside, for the gate's own cost.
func BenchmarkE2EApprovalRoundTrip(b *testing.B) {
	c := StartChainWith(b, hostBin, ChainOptions{Policy: gateClicksPolicy})
	a := mcpClient(b, c.Server.Port(), c.Server.Token(), "approval-bench")
	tab := a.newTab(c.PageURL("pages/secrets/pay.html"))
	events, stop := c.Server.Approvals().Subscribe()
	approver := make(chan struct{})
	requested := make(chan time.Time, 1024) // when each request reached the "user"
	go func() {
		defer close(approver)
		for ev := range events {
			if ev.Type == approval.Requested {
				requested <- time.Now()
				c.Server.Approvals().Approve(ev.Request.RequestID, approval.Decision{Kind: approval.Once})
			}
		}
	}()
	defer func() { stop(); <-approver }()
	click := map[string]any{"what": "click", "selector": "#pay", "tab_id": tab, "timeout_ms": 15000}
	a.ok("interact", click) // warm: attach, first snapshot
	ms := func(l latencies, p int) float64 { return float64(l[len(l)*p/100].Microseconds()) / 1000 }
	run := func(b *testing.B) {
		var lat, fromRequest latencies
		for b.Loop() {
			for len(requested) > 0 {
				<-requested // earlier calls' announcements
			}
			t0 := time.Now()
			a.ok("interact", click)
			t1 := time.Now()
			lat = append(lat, t1.Sub(t0))
			select {
			case tr := <-requested: // request announced → decision → click done → answer
				fromRequest = append(fromRequest, t1.Sub(tr))
			default:
			}
		}
		slices.Sort(lat)
		b.ReportMetric(ms(lat, 50), "p50-ms")
		b.ReportMetric(ms(lat, 95), "p95-ms")
		if len(fromRequest) > 0 {
			slices.Sort(fromRequest)
			b.ReportMetric(ms(fromRequest, 50), "request-to-done-p50-ms")
			b.ReportMetric(ms(fromRequest, 95), "request-to-done-p95-ms")
		}
	}
	b.Run("gated", run)
	// The same click allowed by the policy: the action's own cost.
	require.NoError(b, os.WriteFile(filepath.Join(c.Home, "policy.json"), []byte(localDevPolicy), 0o600))
	b.Run("allowed", run)
}

func mustJSONB(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
