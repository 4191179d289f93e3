//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Tab closed, tab dragged out of the group, extension restarted, native
// host killed, daemon restarted: each is recovered from or reported with a
// structured error, and nothing hangs.
func TestE2ERelayRecovery(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true})
	devtools := devtoolsPort(t, r.Browser.UserDataDir)
	a := r.client(t, "recovering")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	t.Run("tab closed", func(t *testing.T) {
		tab := a.newTab(r.url("pages/relay/console.html"))
		_, err := r.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": tab})
		require.NoError(t, err)
		untilError(t, a, map[string]any{"what": "page", "tab_id": tab}, "tab_closed")
		require.Equal(t, "no_tab", a.call("observe", map[string]any{"what": "page"}).code())
	})

	t.Run("dragged out of the group", func(t *testing.T) {
		tab := a.newTab(r.url("pages/relay/console.html"))
		sw := dialCDP(t, findTarget(t, devtools, "service_worker", "chrome-extension://").WSURL)
		_, err := sw.call(ctx, "Runtime.evaluate", map[string]any{"expression": fmt.Sprintf("chrome.tabs.ungroup(%d)", tab), "awaitPromise": true})
		require.NoError(t, err)
		x := untilError(t, a, map[string]any{"what": "page", "tab_id": tab}, "tab_not_owned")
		require.Contains(t, x.Text, "moved it out")
		_, open := tabGroups(t, r)[tab]
		require.True(t, open, "the user's tab stays open")
	})

	t.Run("extension restarted", func(t *testing.T) {
		tab := a.newTab(r.url("pages/relay/console.html"))
		a.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })
		shot := map[string]any{"what": "screenshot", "tab_id": tab}
		a.ok("observe", shot) // the worker keeps the mask's scripts (cdp.sequence texts)
		old := r.Server.Extensions().Current()
		restartExtension(t, devtools)
		eventually(t, 30*time.Second, "the restarted extension connected", func() bool {
			l := r.Server.Extensions().Current()
			return l != nil && l != old
		})
		// Buffers survive; capture resumes in the tab without duplicating
		// what Chrome replays when Runtime is enabled again.
		require.Len(t, list(a.observe("logs", nil), "entries"), 8)
		a.ok("interact", map[string]any{"what": "navigate", "url": r.url("pages/relay/console.html")})
		logs := a.until("logs", nil, 15*time.Second, func(x answer) bool { return len(list(x, "entries")) >= 16 })
		require.Len(t, list(logs, "entries"), 16, logs.Text)
		require.Equal(t, float64(tab), a.observe("page", nil).Data["tab_id"])
		// The new worker keeps no text: the daemon sends the mask's again.
		require.Equal(t, true, a.ok("observe", shot).Data["masked"])
	})

	t.Run("host killed", func(t *testing.T) {
		hosts := hostPIDs(hostBin)
		require.Len(t, hosts, 1)
		require.NoError(t, syscall.Kill(hosts[0], syscall.SIGKILL))
		// Buffered reads never need the browser.
		require.Len(t, list(a.observe("logs", nil), "entries"), 16)
		// Browser calls fail with a structured, retryable error until the
		// new host connects, then work again.
		deadline := time.Now().Add(30 * time.Second)
		for {
			x := a.call("observe", map[string]any{"what": "page"})
			if !x.IsError {
				break
			}
			require.Equal(t, true, x.Data["retryable"], x.Text)
			require.True(t, time.Now().Before(deadline), "the chain did not recover: %s", x.Text)
			time.Sleep(50 * time.Millisecond) // a new native host connects by itself
		}
	})

	t.Run("daemon restarted", func(t *testing.T) {
		tab := a.observe("page", nil).Data["tab_id"].(float64)
		agentTok := r.Server.Token()
		require.NoError(t, r.StopDaemon())
		t.Cleanup(func() {
			r.Browser.Stop(10 * time.Second) // first: its host would spawn another daemon
			if st, err := state.Read(r.Home); err == nil {
				stopProcess(st.PID) // and wait: its exit writes stopped.json into the home TempDir removes
			}
		})
		// The old session's calls fail at once; nothing waits.
		start := time.Now()
		_, err := a.cs.CallTool(ctx, callParams("observe", map[string]any{"what": "logs"}))
		require.Error(t, err)
		require.Less(t, time.Since(start), 10*time.Second)

		// The native host spawns a new daemon; the extension reconnects.
		eventually(t, 30*time.Second, "a spawned daemon with the extension connected", func() bool {
			h, ok := getHealth(r.Port)
			return ok && h.PID != 0 && h.TransportStatus.Extension == "connected"
		})
		tok, err := creds.Load(r.Home, creds.Agent)
		require.NoError(t, err)
		require.Equal(t, agentTok, tok, "the agent credential survives a daemon restart")
		c := mcpClient(t, r.Port, tok, "after-restart")
		none := c.call("observe", map[string]any{"what": "page"})
		require.Equal(t, "no_tab", none.code(), none.Text)
		old := c.call("observe", map[string]any{"what": "page", "tab_id": tab})
		require.Equal(t, "tab_not_owned", old.code(), "the old session (kept for its client) still holds its tab: %s", old.Text)
		require.Contains(t, old.Text, "another Gasoline session")
		require.NotContains(t, c.observe("tabs", nil).Text, strconv.Itoa(int(tab)), "another session's tab is not listed")
		fresh := c.newTab(r.url("pages/relay/console.html"))
		logs := c.until("logs", map[string]any{"tab_id": fresh}, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })
		require.Len(t, list(logs, "entries"), 8)
	})
}
