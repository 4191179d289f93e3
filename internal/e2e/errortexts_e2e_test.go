package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Error texts that say what happened and name only tools the agent has
// (issue 18 item 8).
func TestE2EErrorTexts(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "error-texts")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	t.Run("tab closed from outside", func(t *testing.T) {
		tab := a.newTab(r.url("pages/title.html"))
		_, err := r.Link.Call(ctx, "tabs.close", map[string]int{"tab_id": tab})
		require.NoError(t, err)
		untilError(t, a, map[string]any{"what": "page", "tab_id": tab}, "tab_closed")
		x := a.call("observe", map[string]any{"what": "page"})
		require.Equal(t, "no_tab", x.code(), x.Text)
		require.Contains(t, x.Text, "tab "+strconv.Itoa(tab)+" was closed")
		require.NotContains(t, x.Text, "no tab yet")
		require.Equal(t, "new_tab", dig(x.Data, "next_action", "arguments", "what"))
	})

	t.Run("crashed tab", func(t *testing.T) {
		tab := a.newTab(r.url("pages/title.html"))
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		r.Link.Call(cctx, "cdp.send", map[string]any{"tab_id": tab, "method": "Page.crash", "params": map[string]any{}}) // no answer: the page is gone
		ccancel()
		x := untilError(t, a, map[string]any{"what": "page", "tab_id": tab}, "tab_unloaded")
		require.Contains(t, x.Text, "crashed")
		require.Contains(t, x.Text, "interact refresh")
		require.NotContains(t, x.Text, "tabs.reload")
		require.NotContains(t, x.Text, "cdp.send")
		require.Equal(t, "refresh", dig(x.Data, "next_action", "arguments", "what"))
		require.Equal(t, float64(tab), dig(x.Data, "next_action", "arguments", "tab_id"))
		refreshed := a.call("interact", map[string]any{"what": "refresh", "tab_id": tab})
		require.False(t, refreshed.IsError, "interact refresh on a crashed tab: %s", refreshed.Text)
		page := a.observe("page", map[string]any{"tab_id": tab})
		require.True(t, strings.HasSuffix(page.Data["url"].(string), "pages/title.html"), page.Text)
	})
}

// The host answers a daemon message over the link's limit with
// message_too_large, as PROTOCOL.md says, and the link carries on.
func TestE2EMessageTooLarge(t *testing.T) {
	c := StartChain(t, hostBin)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, err := c.Link.Call(ctx, "ping", map[string]string{"echo": strings.Repeat("x", protocol.MaxMessage)})
	var pe *protocol.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, protocol.CodeMessageTooLarge, pe.Code, pe.Message)
	res, err := c.Link.Call(ctx, "ping", map[string]string{"echo": "small"})
	require.NoError(t, err, "the link carries on")
	require.Contains(t, string(res), "small")
}

// dig walks nested maps.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
