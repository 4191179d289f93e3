//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2EEmulate: interact emulate puts the agent's tab under a device, a
// colour scheme, reduced motion, a locale, a timezone and the network
// conditions, as the page itself reports them; observe page says what is
// in force; a detached debugger (Chrome drops every override with it) gets
// them back on the next call; reset returns the page to what it was; bad
// arguments are refused with what to fix, and change nothing.
func TestE2EEmulate(t *testing.T) {
	x := startDevtools(t, "emulate-e2e", ChainOptions{RemoteDebugging: true})
	tab := x.open("mock.html")
	before := js[probe](x.client, probeJS)
	require.NotEqual(t, 393, before.Width)

	a := x.emulate(map[string]any{"device": "iPhone 15", "color_scheme": "dark", "reduced_motion": true,
		"locale": "fr-FR", "timezone": "Asia/Tokyo", "cpu_slowdown": 2})
	assert.Contains(t, a.Text, "iPhone 15 (393×852 @3×, mobile)")
	got := js[probe](x.client, probeJS)
	assert.Equal(t, 393, got.Width)
	assert.Equal(t, 852, got.Height)
	assert.Equal(t, 3.0, got.DPR)
	assert.True(t, got.Dark)
	assert.True(t, got.Reduced)
	assert.Equal(t, "Asia/Tokyo", got.TZ)
	assert.Equal(t, "fr-FR", got.Lang)
	assert.Equal(t, "fr-FR", got.Intl)
	assert.Contains(t, got.UA, "iPhone")
	assert.Equal(t, 5, got.Touch)

	shot := x.observe("screenshot", nil)
	assert.Equal(t, []any{1179.0, 2556.0}, []any{shot.Data["width"], shot.Data["height"]}, "a screenshot is the phone's screen: 393×852 at 3×")
	page := x.observe("page", nil)
	assert.Contains(t, page.Page, "emulating: iPhone 15 (393×852 @3×, mobile), dark colour scheme, reduced motion, locale fr-FR, timezone Asia/Tokyo, CPU 2× slower")
	emu, _ := page.Data["emulation"].(map[string]any)
	require.NotNil(t, emu, page.Text)
	assert.Equal(t, "iPhone 15", emu["device"])

	// Merged: a later call changes only what it names.
	x.emulate(map[string]any{"color_scheme": "light", "network": "offline"})
	got = js[probe](x.client, probeJS)
	assert.Equal(t, 393, got.Width, "the device stays")
	assert.False(t, got.Dark)
	assert.False(t, got.Online)
	failed := js[string](x.client, `fetch('/devtools/items.json').then(() => 'fetched', (e) => e.name)`)
	assert.Equal(t, "TypeError", failed, "offline: the request fails")

	// Chrome drops every override when the debugger detaches (here the
	// extension's idle detach, shortened to a second); the next call
	// puts them back.
	port := devtoolsPort(t, x.Browser.UserDataDir)
	idle := func(ms int) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := x.Link.Call(ctx, "config.set", map[string]any{"idle_detach_ms": ms})
		require.NoError(t, err)
	}
	idle(1000)
	attached := fmt.Sprintf(`chrome.debugger.getTargets().then((ts) => ts.some((t) => t.tabId === %d && t.attached))`, tab)
	eventually(t, 20*time.Second, "the idle debugger detached", func() bool {
		var on bool
		workerEval(t, port, attached, &on)
		return !on
	})
	idle(300000)
	eventually(t, 20*time.Second, "the emulation back after the re-attach", func() bool {
		p := js[probe](x.client, probeJS)
		return p.Width == 393 && !p.Online
	})

	// Bad arguments: refused, with what to do, and nothing changes.
	bad := x.fail("invalid_argument", "emulate", map[string]any{"device": "Nokia 3310"})
	assert.Contains(t, bad.Text, "iPhone 15, iPhone SE, Pixel 8")
	bad = x.fail("invalid_argument", "emulate", map[string]any{"network": "warp speed"})
	assert.Contains(t, bad.Text, "latency_ms/download_kbps/upload_kbps")
	x.fail("invalid_argument", "emulate", map[string]any{"timezone": "Mars/Olympus"})
	x.fail("invalid_argument", "emulate", map[string]any{})
	assert.Equal(t, 393, js[probe](x.client, probeJS).Width)

	// The modes are served, and their guides say what they take.
	served := x.ok("configure", map[string]any{"what": "describe_capabilities"}).Data["served"]
	for _, m := range []string{"interact emulate", "interact route", "interact unroute", "observe routes", "observe downloads", "analyze performance_trace", "generate pdf"} {
		assert.Contains(t, served, m)
	}
	guide := x.ok("configure", map[string]any{"what": "describe_capabilities", "tool": "interact", "mode": "emulate"})
	assert.Contains(t, guide.Text, "Galaxy S24")
	assert.Contains(t, guide.Text, "latency_ms/download_kbps/upload_kbps")

	// Reset: the page is as it was.
	a = x.emulate(map[string]any{"reset": true})
	assert.Contains(t, a.Text, "no emulation in force")
	assert.Equal(t, before, js[probe](x.client, probeJS))
	assert.NotContains(t, x.observe("page", nil).Page, "emulating")
}
