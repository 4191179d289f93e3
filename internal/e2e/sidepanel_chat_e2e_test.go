//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// The panel's conversation against the daemon's real agent (the local,
// no-network provider): the user types in the panel, the agent's tool
// calls, evidence and answer come back as panel.event pushes through the
// service worker, an MCP client's gated call is approved in the panel, the
// redaction counters move, the export downloads, and a conversation the
// daemon no longer has says so.

// A secret the page leaks into its console and its failing request; no
// screen, export or DOM may show it.
const chatSecret = "ghp_Zq3KxT9wLm2VbN8cR4yH6uJ1pE5sD7fG0aQe"

// brokenShop serves a page whose script logs an error carrying the secret
// and keeps calling an API that fails with 500.
func brokenShop(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<title>Broken shop</title><h1>Checkout</h1><button id="pay">Pay now</button>
<script>
  console.error('payment failed for token ` + chatSecret + `');
  const pay = () => fetch('/api/pay?api_key=` + chatSecret + `', {method: 'POST'}).catch(() => {});
  pay(); setInterval(pay, 400);
</script>`))
	})
	mux.HandleFunc("/api/pay", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":"card processor unavailable"}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// openPanelWith opens the panel through DevTools like openPanelDirect and
// also returns the browser-wide session (downloads).
func openPanelWith(t *testing.T, ctx context.Context, c *Chain) (*panel, devSession) {
	t.Helper()
	br := devSession{d: dialDevTools(t, ctx, c.Browser.UserDataDir)}
	created, err := cdproto.Call(ctx, br, target.CreateTarget, target.CreateTargetParams{URL: panelURL})
	require.NoError(t, err)
	yes := true
	att, err := cdproto.Call(ctx, br, target.AttachToTarget, target.AttachToTargetParams{TargetID: created.TargetID, Flatten: &yes})
	require.NoError(t, err)
	p := newPanel(t, ctx, devSession{d: br.d, id: string(att.SessionID)})
	p.close = func() {
		_, err := cdproto.Call(ctx, br, target.CloseTarget, target.CloseTargetParams{TargetID: created.TargetID})
		require.NoError(t, err)
	}
	return p, br
}

// entries lists the conversation's entries as {kind, text}.
func (p *panel) entries(ctx context.Context) []struct{ Kind, Text string } {
	p.t.Helper()
	var out []struct{ Kind, Text string }
	require.NoError(p.t, p.eval(ctx, `[...document.querySelectorAll('#conversation > li')].map((li) =>
	  ({kind: li.dataset.kind, text: li.textContent}))`, &out))
	return out
}

// counter reads a numeric status row ("Values redacted").
func (p *panel) counter(ctx context.Context, label string) int {
	p.t.Helper()
	n, err := strconv.Atoi(p.statusRow(ctx, label))
	require.NoError(p.t, err, "%s: %q", label, p.statusRow(ctx, label))
	return n
}

// waitTurn waits until the turn ended (the composer is free again) with
// at least n assistant replies.
func (p *panel) waitTurn(ctx context.Context, n int) {
	p.t.Helper()
	p.waitFor(ctx, "the agent's answer", `document.querySelectorAll('#conversation > li[data-kind="assistant"]').length >= `+
		strconv.Itoa(n)+` && !document.getElementById('chat-send').disabled`)
}

func TestE2ESidePanelChat(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	shop := brokenShop(t)
	cs := mcpClient(t, c.Server.Port(), c.Server.Token(), "sidepanel-e2e").cs

	// The user's tab, then the panel (opened as a tab here, it works on
	// the web page the user was on).
	raw, err := c.Link.Call(ctx, "tabs.create", map[string]any{"url": shop.URL + "/shop", "active": true, "wait_until": "load"})
	require.NoError(t, err)
	var created struct {
		Tab tab `json:"tab"`
	}
	require.NoError(t, json.Unmarshal(raw, &created))
	shopTab := created.Tab.ID
	p, br := openPanelWith(t, ctx, c)
	// Anything the panel throws from now on is a failure.
	require.NoError(t, p.eval(ctx, `window.__panel_errors = [];
	  addEventListener('error', (e) => __panel_errors.push(String(e.message)));
	  addEventListener('unhandledrejection', (e) => __panel_errors.push(String(e.reason)))`, nil))
	t.Cleanup(func() {
		if t.Failed() {
			p.fullShot(context.Background(), "zz-failed-chat.png")
			for _, e := range p.entries(context.Background()) {
				t.Logf("entry %s: %.300s", e.Kind, e.Text)
			}
		}
	})
	downloads := t.TempDir()
	_, err = cdproto.Call(ctx, br, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
	require.NoError(t, err)

	p.waitState(ctx, "ready")
	p.waitFor(ctx, "providers listed", `[...document.querySelectorAll('#provider option')].some((o) => o.value === 'local')`)
	require.Equal(t, "local (healthy)", p.statusRow(ctx, "Model provider"))
	redactedBefore := p.counter(ctx, "Values redacted")

	// First message, sent with Enter.
	p.typeMessage(ctx, "Why does checkout fail?")
	p.pressEnter(ctx)
	p.waitFor(ctx, "the message shown", `document.querySelector('#conversation > li[data-kind="user"] .text')?.textContent === 'Why does checkout fail?'`)
	require.Equal(t, "", p.text(ctx, "#chat-input"), "the box is cleared")
	p.waitTurn(ctx, 1)
	conv := p.statusRow(ctx, "Conversation")
	require.True(t, strings.HasPrefix(conv, "conv_"), "conversation %q", conv)

	require.Equal(t, "gasoline-redact/2 · 0 redacted · 0 blocked", strings.TrimPrefix(p.text(ctx, "#redaction"), "Redaction "))

	// The first turn's observe attached the tab: wait until the daemon
	// captured the page's error and failing requests (the page keeps
	// failing), so the next triage has evidence.
	eventually(t, 15*time.Second, "the page's failures captured", func() bool {
		failed := c.Server.Capture().Network(shopTab, capture.NetworkQuery{FailedOnly: true})
		return len(c.Server.Capture().Errors(shopTab)) > 0 && len(failed.Entries) > 0
	})

	// Second message, sent with the button, with a secret the user pasted:
	// the daemon redacts it before anything else sees it, the panel shows
	// its redacted echo, and the counters move.
	p.typeMessage(ctx, "Check again, please. My token is "+chatSecret)
	p.click(ctx, "#chat-send")
	p.waitTurn(ctx, 2)
	p.waitFor(ctx, "evidence cards", `document.querySelector('#conversation > li[data-kind="evidence"]')`)
	p.waitFor(ctx, "the redacted echo", `[...document.querySelectorAll('#conversation > li[data-kind="user"] .text')].some((e) =>
	  e.textContent === 'Check again, please. My token is [REDACTED:github_token]')`)
	p.waitFor(ctx, "the conversation's redacted count up", `/ · [1-9]\d* redacted · 0 blocked$/.test(document.getElementById('redaction').textContent)`)
	p.waitFor(ctx, "the daemon's redacted count up", `(() => { const dt = [...document.querySelectorAll('#status dt')].find((d) => d.textContent === 'Values redacted');
	  return dt && Number(dt.nextElementSibling.textContent) > `+strconv.Itoa(redactedBefore)+`; })()`)

	es := p.entries(ctx)
	kinds := map[string]int{}
	for _, e := range es {
		kinds[e.Kind]++
		require.NotContains(t, e.Text, chatSecret, "a %s entry shows the secret", e.Kind)
	}
	require.Equal(t, 2, kinds["user"], "%v", es)
	require.Equal(t, 2, kinds["assistant"], "%v", es)
	require.GreaterOrEqual(t, kinds["tool_call"], 2, "%v", es)
	require.GreaterOrEqual(t, kinds["tool_result"], 2, "%v", es)
	require.Equal(t, "user", es[0].Kind, "in order: %v", es)
	require.Equal(t, "assistant", es[len(es)-1].Kind, "in order: %v", es)
	require.Contains(t, es[len(es)-1].Text, "Local triage")
	var failedReq bool
	require.NoError(t, p.eval(ctx, `[...document.querySelectorAll('#conversation > li.evidence-network .title, #conversation > li.evidence-error .title')].length > 0`, &failedReq))
	require.True(t, failedReq, "an error or network evidence card: %v", es)
	p.waitFor(ctx, "the redaction indicator", `!document.getElementById('redaction').hidden`)
	var html string
	require.NoError(t, p.eval(ctx, `document.documentElement.outerHTML`, &html))
	require.NotContains(t, html, chatSecret)
	p.fullShot(ctx, "05-conversation-evidence.png")
	p.viewShot(ctx, "05b-conversation-second-turn.png", `#conversation > li[data-kind="user"] ~ li[data-kind="user"]`)

	// An MCP agent's gated call waits for the panel; the user approves.
	opened := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{
			"what": "new_tab", "url": shop.URL + "/shop?again=1", "timeout_ms": 60000}})
		if err == nil && res.IsError {
			raw, _ := json.Marshal(res)
			err = &toolError{string(raw)}
		}
		opened <- err
	}()
	f := p.prompt(ctx, "interact.new_tab")
	require.Contains(t, f["target"], shop.URL)
	p.waitState(ctx, "needs_approval")
	p.fullShot(ctx, "06-needs-approval.png")
	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .approve-once`)
	require.NoError(t, <-opened, "the approved call runs")
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "approval in the activity", `[...document.querySelectorAll('#timeline .event .what')].some((e) => e.textContent === 'Approved')`)
	p.fullShot(ctx, "07-after-approve.png")

	// Export: a redacted JSON file, offered through a blob URL. The page's
	// viewport is set to a size nothing defaults to: the export reads it
	// from the tab over the link while the link serves the panel's request.
	_, err = cdproto.Call(ctx, c.Server.CDP(shopTab), emulation.SetDeviceMetricsOverride,
		emulation.SetDeviceMetricsOverrideParams{Width: 1111, Height: 777, DeviceScaleFactor: 1})
	require.NoError(t, err)
	p.click(ctx, "#export")
	p.waitFor(ctx, "the export link", `document.getElementById('export-link').href.startsWith('blob:')`)
	var exported string
	require.NoError(t, p.eval(ctx, `fetch(document.getElementById('export-link').href).then((r) => r.text())`, &exported))
	require.Contains(t, exported, conv)
	require.NotContains(t, exported, chatSecret)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(exported), &doc))
	var replay struct {
		Replay struct {
			Viewport struct{ Width, Height int } `json:"viewport"`
		} `json:"replay"`
	}
	require.NoError(t, json.Unmarshal([]byte(exported), &replay))
	require.Equal(t, struct{ Width, Height int }{1111, 777}, replay.Replay.Viewport, "the tab's real viewport, not the default")
	name := p.text(ctx, "#export-link")
	require.Regexp(t, `^gasoline-export-.*\.json$`, name)
	eventually(t, 15*time.Second, "the export downloaded", func() bool {
		b, err := os.ReadFile(filepath.Join(downloads, name))
		return err == nil && string(b) == exported
	})
	p.viewShot(ctx, "07b-export.png", `#conversation > li:last-child`)
	_, err = cdproto.Call(ctx, p.s, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
	require.NoError(t, err)
	p.viewShot(ctx, "07c-dark.png", `#conversation > li[data-kind="user"] ~ li[data-kind="user"]`)
	_, err = cdproto.Call(ctx, p.s, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}})
	require.NoError(t, err)
	var pageErrors []string
	require.NoError(t, p.eval(ctx, `window.__panel_errors`, &pageErrors))
	require.Empty(t, pageErrors, "the panel threw")

	// A conversation the daemon does not have (as after a restart): the
	// reopened panel says it was lost and starts fresh.
	require.NoError(t, p.eval(ctx, `chrome.storage.session.set({'panel.conversation': {conversation_id: 'conv_gone'}})`, nil))
	p.reload(ctx)
	p.waitFor(ctx, "the loss said", `!document.getElementById('conversation-lost').hidden`)
	require.Equal(t, "This conversation was lost (the daemon restarted). A new one starts with your next message.",
		p.text(ctx, "#conversation-lost"))
	require.Equal(t, "new", p.statusRow(ctx, "Conversation"))
	p.waitState(ctx, "ready")
	p.fullShot(ctx, "08-conversation-lost.png")
	p.close()
}

// reload reloads the panel page and waits for the new document.
func (p *panel) reload(ctx context.Context) {
	p.t.Helper()
	require.NoError(p.t, p.eval(ctx, `window.__before_reload = true`, nil))
	_, err := cdproto.Call(ctx, p.s, page.Reload, page.ReloadParams{})
	require.NoError(p.t, err)
	eventually(p.t, 15*time.Second, "panel reloaded", func() bool {
		var fresh bool
		err := p.eval(ctx, `!window.__before_reload && document.readyState === 'complete'`, &fresh)
		return err == nil && fresh
	})
}

type toolError struct{ s string }

func (e *toolError) Error() string { return "tool error: " + e.s }
