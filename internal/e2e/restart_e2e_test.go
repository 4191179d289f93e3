//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

// stdioMCP starts gasoline-mcp (what mcp-config prints; it starts
// gasoline-host daemon from beside itself when none runs) for the daemon
// of home and port and connects an MCP client (the official go-sdk)
// through it; the command is returned so a test can end it as a client
// would, or kill it.
func stdioMCP(t *testing.T, home string, port int, name string) (*client, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(slimBin)
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+home, "GASOLINE_PORT="+strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}, cmd
}

// untilOK repeats a call until it succeeds (bounded): after a restart the
// relay, the daemon and the extension come back in their own time, and
// every error on the way is retryable.
func untilOK(t *testing.T, c *client, tool string, args map[string]any, bound time.Duration) answer {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := c.cs.CallTool(ctx, callParams(tool, args))
		cancel()
		if err == nil && !res.IsError {
			return c.call(tool, args)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %v: no success within %s; last: %v %s", tool, args, bound, err, toolText(res))
		}
		time.Sleep(50 * time.Millisecond) // the chain reconnects by itself; nothing to wait on
	}
}

func toolText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// Issue 18, item 2: the daemon is SIGKILLed under a stdio client that has
// its own tab and a tab the user shared. The native host and the relay
// bring up a new daemon, which restores the session (sessions.json) and
// its tabs (tabs.json), checks them against the browser's groups, and the
// same client goes on with its old tab as current and the user's tab
// still shared. Then the client ends (stdin EOF): the tab it opened
// closes, the user's tab stays open and leaves the group (item 6).
func TestE2EDaemonKilledUnderStdio(t *testing.T) {
	home, port := t.TempDir(), FreePort(t)
	require.NoError(t, os.WriteFile(filepath.Join(home, "policy.json"), []byte(localDevPolicy), 0o600))
	t.Cleanup(func() { // after the browser stops (its host would start another daemon)
		if st, err := state.Read(home); err == nil {
			stopProcess(st.PID) // and wait: its exit writes stopped.json into the home TempDir removes
		}
	})
	pages := ServeTestdata(t)
	udd := t.TempDir()
	Install(t, hostBin, udd)
	testbrowser.Start(t, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  udd,
		Env:          []string{"GASOLINE_HOME=" + home, "GASOLINE_PORT=" + strconv.Itoa(port)},
		ExtraArgs:    []string{"--remote-debugging-port=0"},
	})
	eventually(t, 30*time.Second, "the extension connected through a spawned daemon", func() bool {
		h, ok := getHealth(port)
		return ok && h.TransportStatus.Extension == "connected"
	})
	devtools := devtoolsPort(t, udd)

	c, cmd := stdioMCP(t, home, port, "stdio-restart")
	mine := c.newTab(pages.URL + "/pages/relay/console.html")
	c.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })
	group := int(c.observe("tabs", nil).Data["group_id"].(float64))
	url := pages.URL + "/pages/tabs/users.html"
	users := openUserTab(t, devtools, url)
	moveToGroup(t, devtools, users, group)
	c.until("tabs", nil, 15*time.Second, func(x answer) bool { return tabIn(x, users) != nil })
	c.ok("interact", map[string]any{"what": "switch_tab", "tab_id": mine})
	// Two calls handed to the client to collect later: one finishes before
	// the daemon dies, one is still running when it does.
	finished := c.ok("observe", map[string]any{"what": "logs", "background": true}).Data["correlation_id"].(string)
	running := c.ok("interact", map[string]any{"what": "wait_for", "text": "never on this page", "background": true, "timeout_ms": 120000}).Data["correlation_id"].(string)
	c.until("pending_commands", nil, 15*time.Second, func(x answer) bool {
		return slices.ContainsFunc(list(x, "commands"), func(m map[string]any) bool { return m["correlation_id"] == finished && m["status"] == "complete" })
	})

	before, err := state.Read(home)
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(before.PID, syscall.SIGKILL))

	page := untilOK(t, c, "observe", map[string]any{"what": "page"}, 60*time.Second)
	require.Equal(t, float64(mine), page.Data["tab_id"], "the same client goes on with its old tab: %s", page.Text)
	after, err := state.Read(home)
	require.NoError(t, err)
	require.NotEqual(t, before.PID, after.PID, "a new daemon answers")
	got := c.ok("observe", map[string]any{"what": "command_result", "correlation_id": finished})
	require.Contains(t, got.Text, "relay:console-done", "the result a client had not collected survives the restart")
	require.NotEmpty(t, list(answer{Data: got.Data["result"].(map[string]any)}, "entries"))
	lost := c.call("observe", map[string]any{"what": "command_result", "correlation_id": running})
	require.True(t, lost.IsError)
	require.Equal(t, "command_lost", lost.Data["error"].(map[string]any)["code"], lost.Text)
	tabs := untilOK(t, c, "observe", map[string]any{"what": "tabs"}, 30*time.Second)
	require.Equal(t, "user", tabIn(tabs, users)["shared_by"], "the user's tab is still shared: %s", tabs.Text)
	pageEval(t, devtools, url, `later('after the restart')`)
	c.until("logs", map[string]any{"tab_id": users}, 20*time.Second, func(x answer) bool { return hasText(x, "after-share: after the restart") })
	c.ok("interact", map[string]any{"what": "navigate", "url": pages.URL + "/pages/relay/network.html"})

	// The client ends: stdin reaches its end (Close waits for the relay).
	require.NoError(t, c.cs.Close())
	require.True(t, cmd.ProcessState.Success(), "the relay exits cleanly at the end of stdin")
	eventually(t, 20*time.Second, "the session's tab closed, the user's stayed", func() bool {
		now := chromeTabs(t, devtools)
		_, open := now[mine]
		u, kept := now[users]
		return !open && kept && u.GroupID == -1
	})
}

// Issue 18, item 6, the other ends of a session: a stdio client that
// vanishes (SIGKILL: no end of stdin) leaves its session degraded; when
// its TTL runs out, the tab it opened closes — the user's shared tab does
// not.
func TestE2ESessionExpiryClosesItsTabs(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true, SessionTTL: 3 * time.Second})
	port := devtoolsPort(t, r.Browser.UserDataDir)
	c, cmd := stdioMCP(t, r.Home, r.Port, "vanishing")
	mine := c.newTab(r.url("pages/relay/console.html"))
	group := int(c.observe("tabs", nil).Data["group_id"].(float64))
	url := r.url("pages/tabs/users.html")
	users := openUserTab(t, port, url)
	moveToGroup(t, port, users, group)
	c.until("tabs", nil, 15*time.Second, func(x answer) bool { return tabIn(x, users) != nil })

	require.NoError(t, cmd.Process.Kill()) // the client's transport reaps it
	eventually(t, 30*time.Second, "the expired session's tab closed, the user's handed back", func() bool {
		now := chromeTabs(t, port)
		_, open := now[mine]
		u, kept := now[users]
		require.True(t, kept, "the user's tab stays open")
		return !open && u.GroupID == -1
	})
	require.False(t, r.Server.Tabs().Registry().Owned(users))
}
