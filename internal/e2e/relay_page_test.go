package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func TestE2ERelayDialog(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-dialog")
	tab := a.newTab(r.url("pages/relay/dialog.html"))

	pg := a.until("page", nil, 15*time.Second, func(x answer) bool { return len(list(x, "open_dialogs")) == 1 })
	require.Equal(t, "blocked", pg.Data["load_state"])
	require.Contains(t, pg.Text, "hello from relay")
	shot := a.call("observe", map[string]any{"what": "screenshot"})
	require.True(t, shot.IsError)
	require.Equal(t, "dialog_open", shot.code())

	h := a.ok("interact", map[string]any{"what": "handle_dialog", "accept": false})
	require.Equal(t, "alert", h.Data["type"])
	logs := a.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:after-alert") })
	require.Len(t, list(logs, "entries"), 1, "the page went on after the dialog")
	tl := a.observe("timeline", map[string]any{"tab_id": tab})
	require.Contains(t, tl.Text, `dialog alert "hello from relay" accepted=false`)
	none := a.call("interact", map[string]any{"what": "handle_dialog", "accept": true})
	require.Equal(t, "no_dialog", none.code(), none.Text)
}

func TestE2ERelayStorage(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-storage")
	a.newTab(r.url("pages/relay/storage.html"))
	st := a.observe("storage", nil)
	local := st.Data["local_storage"].(map[string]any)
	require.Equal(t, 2.0, local["count"], st.Text)
	require.Equal(t, 1.0, st.Data["session_storage"].(map[string]any)["count"])
	names := map[string]bool{}
	for _, ck := range list(st, "cookies") {
		names[ck["name"].(string)] = true
		require.NotContains(t, ck, "value")
	}
	require.Equal(t, map[string]bool{"sid": true, "pref": true}, names)
	require.NotContains(t, st.Text, "cookie-value-secret", "cookie values are never returned")
	require.NotContains(t, st.Raw.StructuredContent, "cookie-value-secret")
	require.Contains(t, st.Text, `theme = "dark"`)
	other := a.call("observe", map[string]any{"what": "storage", "origin": "https://elsewhere.example"})
	require.Equal(t, "invalid_argument", other.code(), other.Text)
}

func TestE2ERelayPageTabsScreenshot(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-page")
	first := a.newTab(r.url("pages/relay/console.html"))
	second := a.newTab(r.url("pages/relay/vitals.html"))

	pg := a.observe("page", nil) // the current tab: the newest
	require.Equal(t, float64(second), pg.Data["tab_id"])
	require.Equal(t, "relay: vitals", pg.Data["title"])
	require.Equal(t, "complete", pg.Data["load_state"])
	require.NotNil(t, pg.Data["viewport"])
	require.Len(t, list(pg, "frames"), 1)

	tabs := a.observe("tabs", nil)
	require.Len(t, list(tabs, "tabs"), 2, tabs.Text)
	require.Equal(t, float64(second), tabs.Data["current_tab"])
	require.NotContains(t, tabs.Text, "about:blank", "the user's own tab is not the agent's to see")
	require.Len(t, list(tabs, "browsers"), 1, tabs.Text)

	a.ok("interact", map[string]any{"what": "switch_tab", "tab_id": first})
	require.Equal(t, "relay: console", a.observe("page", nil).Data["title"])

	for _, tc := range []struct {
		args   map[string]any
		format string
		decode func([]byte) (image.Image, error)
	}{
		{map[string]any{"tab_id": second}, "png", func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
		{map[string]any{"tab_id": second, "format": "jpeg", "quality": 50}, "jpeg", func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }},
		{map[string]any{"tab_id": second, "full_page": true}, "png", func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
		{map[string]any{"tab_id": second, "selector": "#hero"}, "png", func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
	} {
		shot := a.observe("screenshot", tc.args)
		var img *mcp.ImageContent
		for _, c := range shot.Raw.Content {
			if ic, ok := c.(*mcp.ImageContent); ok {
				img = ic
			}
		}
		require.NotNil(t, img, "%v: %s", tc.args, shot.Text)
		require.Equal(t, "image/"+tc.format, img.MIMEType)
		m, err := tc.decode(img.Data)
		require.NoError(t, err)
		require.Equal(t, shot.Data["width"], float64(m.Bounds().Dx()))
		if tc.args["selector"] != nil {
			require.Less(t, m.Bounds().Dy(), 400, "the element only") // #hero is 300 px tall
		}
	}
	long := a.newTab(r.url("pages/relay/long.html"))
	full := a.observe("screenshot", map[string]any{"tab_id": long, "full_page": true, "format": "jpeg"})
	require.GreaterOrEqual(t, full.Data["height"], 3000.0, full.Text)
	require.Equal(t, true, full.Data["masked"])
	below := a.observe("screenshot", map[string]any{"tab_id": long, "selector": "#bottom"})
	require.Equal(t, 1000.0, below.Data["height"], "an element below the fold")
	file := a.observe("screenshot", map[string]any{"tab_id": second, "to_file": true})
	path, _ := file.Data["path"].(string)
	require.True(t, strings.HasPrefix(path, r.Home), path)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	missing := a.call("observe", map[string]any{"what": "screenshot", "tab_id": second, "selector": "#nope"})
	require.Equal(t, "element_not_found", missing.code())
}

func TestE2ERelayVitals(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-vitals")
	tab := a.newTab(r.url("pages/relay/vitals.html"))
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	// The agent's tab opens in the background, emulated focused and
	// visible before anything loads (tabs.Open): its page paints and is
	// measured as a shown page's is, with nobody looking at it (before, a
	// hidden page reported no FCP or LCP until the user showed the tab).
	// LCP and the layout shift first: input ends LCP and marks shifts as
	// expected.
	painted := a.until("vitals", nil, 15*time.Second, func(x answer) bool { return x.Data["lcp_ms"] != nil && x.Data["cls"].(float64) > 0 })
	require.Equal(t, "visible", painted.Data["visibility"], "emulated visible: %s", painted.Text)
	require.NotNil(t, painted.Data["ttfb_ms"])
	require.NotContains(t, painted.Text, "Chrome does not paint background tabs")
	raw, err := r.Link.Call(ctx, "tabs.get", map[string]int{"tab_id": tab})
	require.NoError(t, err)
	var got struct {
		Tab struct{ Active bool } `json:"tab"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	require.False(t, got.Tab.Active, "nobody showed the tab")
	require.Equal(t, "div", painted.Data["lcp_element"])
	require.NotNil(t, painted.Data["fcp_ms"])
	// A trusted click for INP, through the relay (what interact click will do).
	s := r.Server.CDP(tab)
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		_, err := cdproto.Call(ctx, s, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: 30, Y: 20, Button: input.MouseButtonLeft, ClickCount: 1})
		require.NoError(t, err)
	}
	// The click handler works ~120 ms; its event timing entry follows the
	// pointer events'.
	v := a.until("vitals", nil, 15*time.Second, func(x answer) bool { d, _ := x.Data["inp_ms"].(float64); return d >= 100 })
	t.Log(v.Text)
	require.Equal(t, "visible", v.Data["visibility"])
	require.Equal(t, 1.0, v.Data["interactions"])
}

func TestE2ERelayWorkersAndFrames(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-workers")
	a.newTab(r.url("pages/relay/workers.html"))
	logs := a.until("logs", nil, 20*time.Second, func(x answer) bool {
		return hasText(x, "from the worker") && hasText(x, "from the oopif") && hasText(x, "relay:worker-done")
	})
	t.Log(logs.Text)
	pg := a.observe("page", nil)
	require.Len(t, list(pg, "frames"), 2, pg.Text)
	wf := a.until("network_waterfall", map[string]any{"url": "from=worker"}, 15*time.Second, func(x answer) bool { return len(list(x, "requests")) == 1 })
	id := list(wf, "requests")[0]["id"]
	body := a.observe("network_bodies", map[string]any{"request_id": id})
	require.Contains(t, list(body, "bodies")[0]["response_body"], `"name":"one"`, "a worker's request body comes from its child session")
}
