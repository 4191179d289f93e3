package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// perTab are the stores the daemon keeps per tab: a tab that leaves its
// session (closed by the agent or the user, or with its session) takes its
// entry in each with it.
var perTab = []string{"capture.tabs", "tabs.urls", "tabs.attach", "actions.tabs", "snapshot.tabs", "snapshot.navigations",
	"snapshot.refs", "snapshot.child_tabs", "observe.capture_locks", "observe.feed_tabs", "observe.feed_children",
	"recorder.tabs", "cdp.subscriptions", "browsers.tabs_in_flight", "capture.entries", "capture.console", "capture.network",
	"capture.navigation", "capture.action", "capture.open_requests", "capture.error_groups"}

// perSession are the stores the daemon keeps per MCP session: a session
// that ends takes its entry in each with it.
var perSession = []string{"session.sessions", "session.results", "mcpserver.sse_sessions", "mcpserver.sse_streams",
	"export.sessions", "export.actions", "export.calls", "approval.pending", "approval.grants",
	"safety.redaction_counters", "recorder.sessions", "recorder.recordings", "snapshot.history", "tabs.sessions",
	"tabs.watched", "tabs.opening"}

func storeLens(r memory.Report) map[string]int {
	out := map[string]int{}
	for _, s := range r.Stores {
		out[s.Name] = s.Len
	}
	return out
}

// workTab makes the calls of the soak on a tab, so that every per-tab
// store holds something for it.
func workTab(c *client, tab int, page string) {
	for _, call := range soakCalls(tab, page) {
		key := call[0].(string)
		tool, _, _ := strings.Cut(key, ".")
		c.ok(tool, call[1].(map[string]any))
	}
	c.ok("interact", map[string]any{"what": "click", "tab_id": tab, "selector": "#terms"})
}

// TestE2EClosedTabsAndEndedSessionsLeaveNothing: tabs worked with every
// kind of call, then closed by the agent (close_tab), by the user (in the
// browser) and with their session (which ends): afterwards no store of the
// daemon keeps anything for them, and an ended session keeps nothing
// either. Only what a living session holds is left.
func TestE2EClosedTabsAndEndedSessionsLeaveNothing(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	page := r.url("pages/form.html")
	before := storeLens(r.Server.Memory())

	a := r.client(t, "stays")
	agentClosed, userClosed := a.newTab(page), a.newTab(page)
	workTab(a, agentClosed, page)
	workTab(a, userClosed, page)
	b := r.client(t, "ends")
	ended := b.newTab(page)
	workTab(b, ended, page)
	during := storeLens(r.Server.Memory())
	for _, name := range []string{"capture.tabs", "snapshot.tabs", "actions.tabs", "observe.capture_locks", "export.sessions", "session.results"} {
		require.Positive(t, during[name], "%s holds nothing while the tabs work: the test no longer covers it", name)
	}

	a.ok("interact", map[string]any{"what": "close_tab", "tab_id": agentClosed})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := r.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": userClosed}) // the user closes it
	require.NoError(t, err)
	require.NoError(t, b.cs.Close()) // HTTP DELETE: the session ends, its tab closes
	eventually(t, 15*time.Second, "every tab released", func() bool { return r.Server.Tabs().Registry().Held() == 0 })
	// A session that ends releases synchronously; tab removal events are
	// the browser's: wait for the per-tab stores to empty, bounded.
	var after map[string]int
	eventually(t, 15*time.Second, "per-tab stores empty", func() bool {
		after = storeLens(r.Server.Memory())
		for _, name := range perTab {
			if after[name] > 0 {
				return false
			}
		}
		return true
	})
	for _, name := range perTab {
		require.Zero(t, after[name], "%s still holds %d for tabs that are gone", name, after[name])
	}
	// One session lives on (a): per-session stores hold at most its
	// entries; what b held is gone.
	for _, name := range perSession {
		bound := before[name] + 1
		switch name {
		case "export.actions", "export.calls", "session.results", "mcpserver.sse_streams", "snapshot.history":
			bound = during[name] - 1 // b's share is gone
		}
		require.LessOrEqual(t, after[name], bound, "%s holds %d after a session ended (during: %d)", name, after[name], during[name])
	}
	for _, s := range r.Server.Memory().Stores {
		require.False(t, s.Over(), "%s holds %d, cap %d", s.Name, s.Len, s.Cap)
	}
}

// soakCalls is one round of an agent's mixed calls: mode key → arguments.
func soakCalls(tab int, page string) [][2]any {
	t := map[string]any{"tab_id": tab}
	with := func(m map[string]any) map[string]any {
		for k, v := range t {
			m[k] = v
		}
		return m
	}
	return [][2]any{
		{"observe.page", with(map[string]any{"what": "page"})},
		{"observe.snapshot", with(map[string]any{"what": "snapshot", "interactive_only": true})},
		{"interact.type", with(map[string]any{"what": "type", "selector": "#name", "text": "Ada", "clear": true})},
		{"interact.click", with(map[string]any{"what": "click", "selector": "#terms"})},
		{"interact.execute_js", with(map[string]any{"what": "execute_js", "script": "document.title.length"})},
		{"observe.logs", with(map[string]any{"what": "logs"})},
		{"observe.screenshot", with(map[string]any{"what": "screenshot"})},
		{"observe.network_waterfall", with(map[string]any{"what": "network_waterfall"})},
		{"interact.navigate", with(map[string]any{"what": "navigate", "url": page})},
		{"configure.health", map[string]any{"what": "health"}},
	}
}
