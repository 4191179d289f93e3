//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// Issue 27, item 4, end to end: a client that presents another client's
// session id — here a second `gasoline-host --mcp --session ID`, as the
// id once shown in the panel allowed — does not join that session: it
// gets a session of its own, sees none of the other's tabs, and the
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

	cmd := exec.Command(hostBin, "--mcp", "--session", id)
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "intruder", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	intruder := &client{t: t, cs: cs}
	tabs := intruder.observe("tabs", nil)
	require.Nil(t, tabIn(tabs, tab), "the intruder sees the victim's tab: %s", tabs.Text)
	r := intruder.call("observe", map[string]any{"what": "page", "tab_id": tab})
	require.True(t, r.IsError, "the intruder read the victim's tab: %s", r.Text)

	var sessions []string
	for _, in := range c.Server.MCPServer().SessionManager().List() {
		if in.Client.Name == "victim" || in.Client.Name == "intruder" {
			sessions = append(sessions, in.ID)
		}
	}
	require.Len(t, sessions, 2, "two sessions, not one shared")
	page := victim.ok("observe", map[string]any{"what": "page"})
	require.Equal(t, float64(tab), page.Data["tab_id"], "the victim goes on with its tab")
}
