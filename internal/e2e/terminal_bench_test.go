//go:build linux

package e2e

import (
	"context"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/stretchr/testify/require"
)

// echoJS arms a measure in the panel: from the next keydown to the moment
// the terminal's screen shows one more "z" than now (the echo, rendered).
const echoJS = `window.__echo = new Promise((resolve) => {
  const rows = document.querySelector('#terminal .xterm-rows');
  const count = () => (rows.textContent.match(/z/g) || []).length;
  const n = count();
  let t0 = 0;
  addEventListener('keydown', () => { t0 = performance.now(); }, { capture: true, once: true });
  const mo = new MutationObserver(() => {
    if (t0 && count() > n) { mo.disconnect(); resolve(performance.now() - t0); }
  });
  mo.observe(rows, { subtree: true, childList: true, characterData: true });
}); true`

// BenchmarkE2ETerminalEcho: keystroke-to-echo in the panel's terminal,
// through the whole chain — xterm.js keydown → panel port → service worker
// → native messaging → gasoline-host → WebSocket → daemon → PTY → the login
// shell's echo → back the same way → xterm.js renders it. Measured in the
// page from the keydown to the DOM showing the character.
func BenchmarkE2ETerminalEcho(b *testing.B) {
	c := StartChainWith(b, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p := openPanelDirect(b, ctx, c)
	p.openTerminal(ctx)
	p.typeTerminal(ctx, "")
	p.typeTerminal(ctx, "echo ready")
	p.waitScreen(ctx, "the shell ready", `^ready$`)

	typed := 0
	echo := func() time.Duration {
		if typed == 40 { // keep the line short: Ctrl+U clears it
			_, err := cdproto.Call(ctx, p.s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: 2 /* Ctrl */, Key: "u", Code: "KeyU", WindowsVirtualKeyCode: 85})
			require.NoError(b, err)
			p.waitFor(ctx, "the line cleared", `!/z/.test(document.querySelector('#terminal .xterm-rows').textContent)`)
			typed = 0
		}
		require.NoError(b, p.eval(ctx, echoJS, nil))
		p.key(ctx, "z", "KeyZ", 90)
		typed++
		var ms float64
		require.NoError(b, p.eval(ctx, `window.__echo`, &ms))
		return time.Duration(ms * float64(time.Millisecond))
	}
	for range 20 { // warm-up
		echo()
	}
	var lat latencies
	b.ResetTimer()
	for b.Loop() {
		lat = append(lat, echo())
	}
	lat.report(b)
}

// BenchmarkE2ETerminalFlood: CDP round trips (Runtime.evaluate 1+1 over the
// extension link) while the panel's terminal floods the same link with
// output (`yes`), beside the same calls on an idle link. The terminal's
// output rides the panel's credit window and yields to CDP in the native
// host's writer, so the two should be close.
func BenchmarkE2ETerminalFlood(b *testing.B) {
	c := StartChainWith(b, hostBin, ChainOptions{RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tab := openTab(b, ctx, c, c.PageURL("pages/title.html"))
	p := openPanelDirect(b, ctx, c)
	p.openTerminal(ctx)
	p.typeTerminal(ctx, "")
	call := func() time.Duration {
		start := time.Now()
		v, err := evaluate(ctx, tab, "1+1")
		require.NoError(b, err)
		require.Equal(b, "2", string(v))
		return time.Since(start)
	}
	const n = 200
	for b.Loop() {
		var idle, flood latencies
		for range 20 { // warm-up
			call()
		}
		for range n {
			idle = append(idle, call())
		}
		p.typeTerminal(ctx, "yes 0123456789abcdefghij")
		p.waitScreen(ctx, "the flood running", `^0123456789abcdefghij$`)
		_, before := c.Server.Terminals().Bytes()
		start := time.Now()
		for range n {
			flood = append(flood, call())
		}
		_, after := c.Server.Terminals().Bytes()
		b.ReportMetric(float64(after-before)/(1<<20)/time.Since(start).Seconds(), "term-MB/s")
		// Ctrl+C ends the flood.
		_, err := cdproto.Call(ctx, p.s, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: 2 /* Ctrl */, Key: "c", Code: "KeyC", WindowsVirtualKeyCode: 67})
		require.NoError(b, err)
		flood.report(b)
		idle.reportAs(b, "idle-")
	}
}
