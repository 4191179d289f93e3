//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// The agent panel (extension/sidepanel.html) driven in real Chromium: it
// opens in a tab of the test browser, an agent's gated call waits for it,
// and a trusted click on its buttons decides. Screenshots of each state go
// to out/e2e/panel/ for a human to look at.

const panelURL = "chrome-extension://efmkjhahfhlpnniaiinagccopblhbdkc/sidepanel.html"

// panel is the panel page under test.
type panel struct {
	t     testing.TB
	s     cdproto.Session
	wait  time.Duration // bound of each waitFor
	close func()        // closes its tab
}

// openPanel opens the panel in a tab of the chain's browser through its
// DevTools port, sized like a side panel: the test acts as the user does,
// from outside. (The extension never debugs its own pages, so no agent's
// path reaches the panel; the chain must start with RemoteDebugging.)
func openPanel(t *testing.T, ctx context.Context, c *Chain) *panel {
	t.Helper()
	if _, err := os.Stat(filepath.Join(c.Browser.UserDataDir, "DevToolsActivePort")); err != nil {
		t.Fatal("openPanel drives the panel through DevTools: start the chain with ChainOptions{RemoteDebugging: true}")
	}
	return openPanelDirect(t, ctx, c)
}

func newPanel(t testing.TB, ctx context.Context, s cdproto.Session) *panel {
	_, err := cdproto.Call(ctx, s, emulation.SetDeviceMetricsOverride,
		emulation.SetDeviceMetricsOverrideParams{Width: 420, Height: 1000, DeviceScaleFactor: 1})
	require.NoError(t, err)
	p := &panel{t: t, s: s, wait: 25 * time.Second}
	// A new tab may still show its initial about:blank, whose context dies
	// with the navigation: poll (a browser process, no signal) until the
	// panel's own document has loaded.
	eventually(t, 15*time.Second, "panel page loaded", func() bool {
		var loaded bool
		err := p.eval(ctx, `location.href === '`+panelURL+`' && document.readyState === 'complete'`, &loaded)
		return err == nil && loaded
	})
	return p
}

// eval runs expression in the panel and decodes its JSON value into out.
func (p *panel) eval(ctx context.Context, expression string, out any) error {
	yes := true
	res, err := cdproto.Call(ctx, p.s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expression, ReturnByValue: &yes, AwaitPromise: &yes, UserGesture: &yes})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("panel threw: %s", res.ExceptionDetails.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// waitFor waits until the JS condition holds in the panel: a promise in the
// page re-checks it on every DOM change (the panel renders each second).
func (p *panel) waitFor(ctx context.Context, what, cond string) {
	p.t.Helper()
	wctx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	js := `new Promise((resolve) => {
	  const ok = () => { try { return !!(` + cond + `); } catch { return false; } };
	  if (ok()) return resolve(true);
	  const mo = new MutationObserver(() => { if (ok()) { mo.disconnect(); resolve(true); } });
	  mo.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
	})`
	if err := p.eval(wctx, js, nil); err != nil {
		var now struct{ State, Detail string }
		p.eval(ctx, `({state: document.body.dataset.state, detail: document.getElementById('detail').textContent})`, &now)
		p.t.Fatalf("panel: %s: %v (state %q: %s)", what, err, now.State, now.Detail)
	}
}

func (p *panel) waitState(ctx context.Context, state string) {
	p.t.Helper()
	p.waitFor(ctx, "state "+state, `document.body.dataset.state === '`+state+`'`)
}

// click presses and releases the left button at the centre of selector's
// element: a trusted click, as the user's.
func (p *panel) click(ctx context.Context, selector string) {
	p.t.Helper()
	var at struct{ X, Y float64 }
	sel, _ := json.Marshal(selector)
	require.NoError(p.t, p.eval(ctx, `(() => { const e = document.querySelector(`+string(sel)+`);
	  e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
	  return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, &at), selector)
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		_, err := cdproto.Call(ctx, p.s, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: at.X, Y: at.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1})
		require.NoError(p.t, err)
	}
}

// shot saves a screenshot of the panel under out/e2e/panel/.
func (p *panel) shot(ctx context.Context, name string) {
	p.t.Helper()
	require.NoError(p.t, p.eval(ctx, `window.scrollTo(0, 0)`, nil))
	res, err := cdproto.Call(ctx, p.s, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	require.NoError(p.t, err)
	dir := filepath.Join(RepoRoot(), "out", "e2e", "panel")
	require.NoError(p.t, os.MkdirAll(dir, 0o755))
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, name), res.Data, 0o644))
}

// promptFields reads the first prompt whose action is action.
func (p *panel) prompt(ctx context.Context, action string) map[string]string {
	p.t.Helper()
	p.waitFor(ctx, "a prompt for "+action, `[...document.querySelectorAll('.prompt [data-field="action"]')].some((e) => e.textContent === '`+action+`')`)
	var out map[string]string
	require.NoError(p.t, p.eval(ctx, `(() => {
	  const li = [...document.querySelectorAll('.prompt')].find((e) => e.querySelector('[data-field="action"]').textContent === '`+action+`');
	  const out = {id: li.dataset.requestId, site: String(!li.querySelector('.site').hidden)};
	  for (const f of li.querySelectorAll('[data-field]')) out[f.dataset.field] = f.textContent;
	  return out; })()`, &out))
	return out
}

// setPolicy calls the gated configure {what:"policy", op:"set"} in the
// background; the result arrives on the channel once the user decided.
func setPolicy(ctx context.Context, cs *mcp.ClientSession, rules []any) <-chan map[string]any {
	out := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{
			"what": "policy", "op": "set", "timeout_ms": 30000, "rules": map[string]any{"rules": rules}}})
		m := map[string]any{}
		if err != nil {
			m["transport_error"] = err.Error()
		} else {
			raw, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(raw, &m)
			m["is_error"] = res.IsError
		}
		out <- m
	}()
	return out
}

func TestE2EPanelApprovals(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	p := openPanel(t, ctx, c)
	var behavior struct {
		OpenPanelOnActionClick bool `json:"openPanelOnActionClick"`
	}
	require.NoError(t, p.eval(ctx, `chrome.sidePanel.getPanelBehavior()`, &behavior))
	require.True(t, behavior.OpenPanelOnActionClick, "the toolbar button opens the panel")
	p.waitState(ctx, "degraded") // the daemon answers; no agent yet
	p.waitFor(ctx, "no agent said", `document.getElementById('detail').textContent.includes('no agent is connected')`)
	p.shot(ctx, "01-degraded-no-agent.png")

	cs := mcpClient(t, c.Server.Port(), c.Server.Token(), "panel-e2e").cs
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "sessions shown", `document.getElementById('status').textContent.includes('1 http')`)
	p.shot(ctx, "02-ready.png")

	// A gated click on a web page, as the tab manager will ask it: the
	// prompt offers "approve for this site"; the user approves 30 minutes.
	clicked := make(chan error, 1)
	go func() {
		_, err := c.Server.Approvals().Require(ctx, approval.Request{
			SessionID: "sess_demo", Action: "interact.click", Class: policy.Mutating,
			Scope:  approval.Scope{TabID: 7, Origin: "https://shop.example"},
			Target: `button "Pay now" on https://shop.example/checkout`, Reason: "the agent called interact.click",
		}, time.Minute)
		clicked <- err
	}()
	f := p.prompt(ctx, "interact.click")
	require.Equal(t, `button "Pay now" on https://shop.example/checkout`, f["target"])
	require.Equal(t, "tab:7", f["tab"])
	require.Equal(t, "https://shop.example", f["origin"])
	require.Regexp(t, `^an MCP client \(session s_[0-9a-f]{12}\)$`, f["who"], "a session is named by a handle, never its id")
	require.Regexp(t, `^[0-5]:\d\d$`, f["timeLeft"])
	require.Equal(t, "true", f["site"])
	p.waitState(ctx, "needs_approval")
	p.shot(ctx, "03-needs-approval-click.png")
	sel := `.prompt[data-request-id="` + f["id"] + `"]`
	require.NoError(t, p.eval(ctx, `(() => { const i = document.querySelector('`+sel+` .minutes'); i.focus(); i.select(); })()`, nil))
	_, err := cdproto.Call(ctx, p.s, input.InsertText, input.InsertTextParams{Text: "30"})
	require.NoError(t, err)
	p.click(ctx, sel+` .approve-site`)
	require.NoError(t, <-clicked, "the waiting call runs once the user approved")
	grants := c.Server.Approvals().Grants("sess_demo")
	require.Len(t, grants, 1)
	require.WithinDuration(t, time.Now().Add(30*time.Minute), grants[0].ExpiresAt, time.Minute)
	p.waitState(ctx, "ready")

	// An agent changes the policy through MCP: approve once.
	done := setPolicy(ctx, cs, []any{})
	f = p.prompt(ctx, "configure.policy")
	require.Equal(t, "not tied to a tab", f["tab"])
	require.Equal(t, "false", f["site"], "no site to grant: no page")
	require.Regexp(t, `^panel-e2e \(session s_[0-9a-f]{12}\)$`, f["who"], "the client asks, named by its handle")
	p.shot(ctx, "04-needs-approval-policy.png")
	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .approve-once`)
	res := <-done
	require.Equal(t, false, res["is_error"], "%v", res)
	file, _ := res["file"].(string)
	before, err := os.ReadFile(file)
	require.NoError(t, err, "the approved change was saved")
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "approval in the timeline", `[...document.querySelectorAll('#timeline .event')].some((e) =>
	  e.querySelector('.what').textContent === 'Approved' && e.querySelector('.text').textContent.startsWith('configure.policy — once'))`)
	p.shot(ctx, "05-after-approve.png")

	// A second change (a tightening: an agent may only ask for those): the
	// user denies; the call fails and nothing changes.
	done = setPolicy(ctx, cs, []any{map[string]any{"effect": "deny", "class": "sensitive", "action": "interact.upload", "origin": "*"}})
	f = p.prompt(ctx, "configure.policy")
	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .deny`)
	res = <-done
	require.Equal(t, true, res["is_error"], "%v", res)
	require.Equal(t, approval.CodeDenied, res["code"], "%v", res)
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "a denied change leaves the policy untouched")
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "denial in the timeline", `document.querySelector('#timeline .event.denied .text')?.textContent.startsWith('configure.policy')`)
	p.shot(ctx, "06-after-deny.png")
	p.close()
}
