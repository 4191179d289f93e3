//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/stretchr/testify/require"
)

// The side panel's states and its conversation view in real Chromium. The
// page is opened through Chromium's DevTools port (openPanelDirect), driven
// with trusted input, checked in its DOM, and photographed in each state:
// the PNGs go to $GASOLINE_SHOTS, else out/e2e/sidepanel/ (ignored by git).

var shotsOnce sync.Once

// shotsDir is where the side panel's screenshots go; logged once per run.
func shotsDir(t testing.TB) string {
	dir := os.Getenv("GASOLINE_SHOTS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "out", "e2e", "sidepanel")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	shotsOnce.Do(func() { t.Logf("side panel screenshots: %s", dir) })
	return dir
}

// fullShot saves the whole panel page, however long, as name.
func (p *panel) fullShot(ctx context.Context, name string) {
	p.t.Helper()
	var size struct{ W, H float64 }
	require.NoError(p.t, p.eval(ctx, `(() => { const r = document.scrollingElement;
	  return {w: window.innerWidth, h: Math.max(r.scrollHeight, window.innerHeight)}; })()`, &size))
	yes := true
	res, err := cdproto.Call(ctx, p.s, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: &yes,
		Clip: &page.Viewport{X: 0, Y: 0, Width: size.W, Height: size.H, Scale: 1}})
	require.NoError(p.t, err)
	path := filepath.Join(shotsDir(p.t), name)
	require.NoError(p.t, os.WriteFile(path, res.Data, 0o644))
	p.t.Logf("screenshot %s", path)
}

// viewShot saves the viewport as name, scrolled so selector's element is
// at the top: a detail at full size.
func (p *panel) viewShot(ctx context.Context, name, selector string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	require.NoError(p.t, p.eval(ctx, `document.querySelector(`+string(sel)+`).scrollIntoView({block: 'start'})`, nil))
	res, err := cdproto.Call(ctx, p.s, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	require.NoError(p.t, err)
	path := filepath.Join(shotsDir(p.t), name)
	require.NoError(p.t, os.WriteFile(path, res.Data, 0o644))
	p.t.Logf("screenshot %s", path)
}

// text is the text of the first element matching selector ("" if none).
func (p *panel) text(ctx context.Context, selector string) string {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	var out string
	require.NoError(p.t, p.eval(ctx, `document.querySelector(`+string(sel)+`)?.textContent ?? ''`, &out))
	return out
}

// typeMessage focuses the chat box and types text as the user would.
func (p *panel) typeMessage(ctx context.Context, text string) {
	p.t.Helper()
	p.waitFor(ctx, "the chat box enabled", `!document.getElementById('chat-input').disabled`)
	p.click(ctx, "#chat-input")
	_, err := cdproto.Call(ctx, p.s, input.InsertText, input.InsertTextParams{Text: text})
	require.NoError(p.t, err)
}

// pressEnter sends a trusted Enter key to the focused element.
func (p *panel) pressEnter(ctx context.Context) {
	p.t.Helper()
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		_, err := cdproto.Call(ctx, p.s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13})
		require.NoError(p.t, err)
	}
}

// statusRow is the value next to label in the status card.
func (p *panel) statusRow(ctx context.Context, label string) string {
	p.t.Helper()
	var out string
	require.NoError(p.t, p.eval(ctx, `(() => { const dts = [...document.querySelectorAll('#status dt')];
	  const dt = dts.find((d) => d.textContent === '`+label+`'); return dt ? dt.nextElementSibling.textContent : ''; })()`, &out))
	return out
}

// The panel opened while the native host cannot start: connecting, then
// past its threshold an error naming the fix; once the host is back it
// is degraded (no agent), then ready when an MCP client connects.
func TestE2ESidePanelStates(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	manifests := filepath.Join(c.Browser.UserDataDir, "NativeMessagingHosts")
	require.NoError(t, os.Rename(manifests, manifests+".off"))
	hosts := hostPIDs(hostBin)
	require.Len(t, hosts, 1)
	require.NoError(t, syscall.Kill(hosts[0], syscall.SIGKILL))

	p := openPanelDirect(t, ctx, c)
	p.waitState(ctx, "connecting")
	require.Equal(t, "Connecting", p.text(ctx, "#badge"))
	var disabled bool
	require.NoError(t, p.eval(ctx, `document.getElementById('chat-input').disabled && document.getElementById('chat-send').disabled`, &disabled))
	require.True(t, disabled, "no chat while connecting")
	p.fullShot(ctx, "01-connecting.png")

	p.waitState(ctx, "error")
	require.Equal(t, "gasoline-host doctor", p.text(ctx, "#fix-cmd"))
	require.Contains(t, p.text(ctx, "#composer-hint"), "once Gasoline is connected")
	p.fullShot(ctx, "02-error.png")

	require.NoError(t, os.Rename(manifests+".off", manifests))
	p.wait = 45 * time.Second // the extension's backoff may be at 16 s by now
	p.waitState(ctx, "degraded")
	p.waitFor(ctx, "no agent said", `document.getElementById('detail').textContent.includes('no agent is connected')`)
	p.fullShot(ctx, "03-degraded-no-agent.png")

	mcpClient(t, c.Server.Port(), c.Server.Token(), "sidepanel-e2e")
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "sessions shown", `document.getElementById('status').textContent.includes('1 http')`)
	require.Equal(t, "new", p.statusRow(ctx, "Conversation"))
	p.fullShot(ctx, "04-ready.png")
	p.close()
}
