package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Two MCP clients at once, each in its own tabs and tab group: no
// cross-talk, no access to the other's tab, and one client's tab closing
// mid-call fails that call only.
func TestE2ERelayTwoClients(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "client-a")
	b := r.client(t, "client-b")

	var tabA, tabB int
	var wg sync.WaitGroup
	wg.Go(func() { tabA = a.newTab(r.url("pages/relay/console.html")) })
	wg.Go(func() { tabB = b.newTab(r.url("pages/relay/network.html")) })
	wg.Wait()
	require.NotZero(t, tabA)
	require.NotZero(t, tabB)

	// Each in its own group.
	groups := tabGroups(t, r)
	require.NotEqual(t, -1, groups[tabA])
	require.NotEqual(t, -1, groups[tabB])
	require.NotEqual(t, groups[tabA], groups[tabB])

	// No cross-talk: A's console is A's; B's requests are B's.
	la := a.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })
	require.Len(t, list(la, "entries"), 8)
	b.until("network_waterfall", nil, 15*time.Second, func(x answer) bool { return len(list(x, "requests")) == 6 })
	lb := b.observe("logs", nil)
	require.False(t, hasText(lb, "hello relay"), "B sees none of A's console: %s", lb.Text)
	require.Empty(t, list(a.observe("network_waterfall", map[string]any{"url": "/api/echo"}), "requests"))

	// A cannot observe or act on B's tab.
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"observe", map[string]any{"what": "logs", "tab_id": tabB}},
		{"observe", map[string]any{"what": "screenshot", "tab_id": tabB}},
		{"observe", map[string]any{"what": "page", "tab_id": tabB}},
		{"interact", map[string]any{"what": "close_tab", "tab_id": tabB}},
		{"interact", map[string]any{"what": "navigate", "tab_id": tabB, "url": r.url("pages/relay/console.html")}},
		{"interact", map[string]any{"what": "switch_tab", "tab_id": tabB}},
	} {
		x := a.call(call.tool, call.args)
		require.True(t, x.IsError, "%v: %s", call.args, x.Text)
		require.Equal(t, "tab_not_owned", x.code(), x.Text)
		require.Equal(t, "observe", x.Data["next_action"].(map[string]any)["tool"])
	}
	// A lists its own tab and nothing of B's (nor of the user's).
	mine := a.observe("tabs", nil)
	require.Len(t, list(mine, "tabs"), 1)
	require.NotContains(t, mine.Text, strconv.Itoa(tabB))
	require.Equal(t, "invalid_argument", a.call("observe", map[string]any{"what": "tabs", "all": true}).code(),
		"no argument lists tabs outside the session's group")

	// A's tab closes while A's navigate waits for a load that never comes:
	// that call fails with tab_closed; B goes on.
	nav := make(chan answer, 1)
	go func() {
		nav <- a.call("interact", map[string]any{"what": "navigate", "url": r.url("api/slow"), "timeout_ms": 30000})
	}()
	select {
	case <-r.slowHit:
	case <-time.After(15 * time.Second):
		t.Fatal("the slow page was never requested")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := r.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": tabA}) // the user closes it
	require.NoError(t, err)
	got := <-nav
	require.True(t, got.IsError, got.Text)
	require.Equal(t, "tab_closed", got.code(), got.Text)
	require.Contains(t, got.Text, "while waiting for load")

	require.Len(t, list(b.observe("network_waterfall", nil), "requests"), 6, "B is unaffected")
	b.ok("interact", map[string]any{"what": "navigate", "url": r.url("pages/relay/console.html")})
	again := a.call("observe", map[string]any{"what": "page"})
	require.Equal(t, "no_tab", again.code(), again.Text)
	gone := a.call("observe", map[string]any{"what": "logs", "tab_id": tabA})
	require.Equal(t, "tab_closed", gone.code(), gone.Text)

	// B's session ends (HTTP DELETE): the tab it opened closes with it.
	require.NoError(t, b.cs.Close())
	eventually(t, 10*time.Second, "B's tab closed with its session", func() bool {
		_, open := tabGroups(t, r)[tabB]
		return !r.Server.Tabs().Registry().Owned(tabB) && !open
	})
}

// A client closes its own tab while its navigate waits: the same client's
// two calls, concurrently.
func TestE2ERelayCloseDuringNavigate(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "client-a")
	tab := a.newTab(r.url("pages/relay/console.html"))
	nav := make(chan answer, 1)
	go func() {
		nav <- a.call("interact", map[string]any{"what": "navigate", "url": r.url("api/slow"), "wait_until": "domcontentloaded"})
	}()
	<-r.slowHit
	closed := a.ok("interact", map[string]any{"what": "close_tab", "tab_id": tab})
	require.Equal(t, float64(tab), closed.Data["closed"])
	got := <-nav
	require.Equal(t, "tab_closed", got.code(), got.Text)
}

// tabGroups maps every tab to its group id, read from the extension.
func tabGroups(t testing.TB, r *relay) map[int]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	raw, err := r.Link.Call(ctx, "tabs.query", struct{}{})
	require.NoError(t, err)
	var q struct {
		Tabs []struct {
			ID      int `json:"id"`
			GroupID int `json:"group_id"`
		} `json:"tabs"`
	}
	require.NoError(t, json.Unmarshal(raw, &q))
	out := map[int]int{}
	for _, tb := range q.Tabs {
		out[tb.ID] = tb.GroupID
	}
	return out
}
