//go:build linux

package e2e

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 27, item 4, end to end: a client that presents another client's
// session id over the relay's link — the id the panel once showed — without the
// resume key only the victim's relay holds does not join that session:
// it gets a session of its own, cannot read the other's tab, and the
// other goes on undisturbed.
func TestE2EJoinedSessionRefused(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: localDevPolicy})
	victim, _ := stdioMCP(t, c.Home, c.Port, "victim")
	tab := victim.newTab(c.PageURL("pages/form.html"))
	var id string
	for _, in := range c.Server.MCPServer().SessionManager().List() {
		if in.Client.Name == "victim" {
			id = in.ID
		}
	}
	require.NotEmpty(t, id)

	// The intruder speaks the relay's link itself, as any program holding the
	// agent credential can, presenting the victim's id (and a made-up
	// resume key, and none).
	for _, key := range []string{"", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		ws := dialLink(t, c.Port, c.Server.Token(), id, key)
		require.Empty(t, ws.answer.Error)
		require.NotEqual(t, id, ws.answer.Session, "the intruder was given the victim's session")
		require.False(t, ws.answer.Resumed)
		rpc := ws.rpc
		rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"intruder","version":"1"}}}`)
		rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		got := rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"page","tab_id":` + strconv.Itoa(tab) + `}}}`)
		require.Contains(t, got, `"isError":true`, "the intruder read the victim's tab: %s", got)
		ws.c.Close()
	}

	var sessions []string
	for _, in := range c.Server.MCPServer().SessionManager().List() {
		if in.Client.Name == "victim" || in.Client.Name == "intruder" {
			sessions = append(sessions, in.ID)
		}
	}
	require.GreaterOrEqual(t, len(sessions), 2, "sessions of their own, not one shared")
	page := victim.ok("observe", map[string]any{"what": "page"})
	require.Equal(t, float64(tab), page.Data["tab_id"], "the victim goes on with its tab")
}
