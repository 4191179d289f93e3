//go:build linux

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
)

// approveAsked waits for the first pending approval request, checks its
// words, and approves it once as the user would.
func approveAsked(t *testing.T, x *dt, want ...string) approval.Request {
	t.Helper()
	eventually(t, 15*time.Second, "an approval request", func() bool { return len(x.Server.Approvals().Pending("")) > 0 })
	req := x.Server.Approvals().Pending("")[0]
	for _, w := range want {
		assert.Contains(t, req.Target, w)
	}
	_, err := x.Server.Approvals().Approve(req.RequestID, approval.Decision{Kind: approval.Once})
	require.NoError(t, err)
	return req
}

// asked runs one interact call that needs the user, approving it once
// its prompt says what it will do.
func (x *dt) asked(t *testing.T, what string, args map[string]any, want ...string) answer {
	t.Helper()
	m := map[string]any{"what": what, "timeout_ms": 60000}
	for k, v := range args {
		m[k] = v
	}
	done := make(chan answer, 1)
	go func() { done <- x.call("interact", m) }()
	approveAsked(t, x, want...)
	a := <-done
	require.False(t, a.IsError, a.Text)
	return a
}

// TestE2EDevtoolsSharedTab: on the tab the user shared, emulation and a
// route each wait for the user, whose prompt says exactly what changes on
// their own tab; approved, the page (seen through Chromium's own DevTools,
// not Gasoline) is under them; when the agent's session ends, the tab is
// handed back and the emulation, the route and the interception are gone
// from it, and Gasoline keeps nothing of the tab.
func TestE2EDevtoolsSharedTab(t *testing.T) {
	x := startDevtools(t, "shared-devtools", ChainOptions{RemoteDebugging: true, Policy: gatedPolicy})
	port := devtoolsPort(t, x.Browser.UserDataDir)
	x.asked(t, "new_tab", nil) // the agent's own tab makes its group
	group := int(x.observe("tabs", nil).Data["group_id"].(float64))

	url := x.url("pages/devtools/mock.html")
	users := openUserTab(t, port, url)
	before := pageValue[probe](t, port, "devtools/mock.html", probeJS)
	moveToGroup(t, port, users, group)
	x.until("tabs", nil, 15*time.Second, func(a answer) bool { return tabIn(a, users) != nil })

	own := fmt.Sprintf("on your own tab %d", users)
	x.asked(t, "emulate", map[string]any{"tab_id": users, "device": "iPhone 15", "network": "fast_4g"},
		"change the device and network conditions: set iPhone 15 (393×852 @3×, mobile), network fast_4g", own, "which you shared with this agent")
	x.asked(t, "route", map[string]any{"tab_id": users, "url_pattern": "*/devtools/items.json", "body": `{"items":[{"name":"Mocked"}]}`},
		`answer the page's requests matching "*/devtools/items.json" → answer 200, Content-Type: application/json with 29 bytes: {"items":[{"name":"Mocked"}]}`, own)
	assert.Equal(t, 393, pageValue[probe](t, port, "devtools/mock.html", probeJS).Width)
	assert.Equal(t, items{"status 200", []string{"Mocked"}}, pageValue[items](t, port, "devtools/mock.html", itemsJS))

	// The session ends: the user's tab is handed back as it was.
	require.NoError(t, x.cs.Close())
	eventually(t, 15*time.Second, "the tab handed back", func() bool {
		return !x.Server.Tabs().Registry().Owned(users) && chromeTabs(t, port)[users].GroupID == -1
	})
	eventually(t, 15*time.Second, "the emulation gone", func() bool {
		return pageValue[probe](t, port, "devtools/mock.html", probeJS) == before
	})
	assert.Equal(t, items{"status 200", []string{"Real one", "Real two"}}, pageValue[items](t, port, "devtools/mock.html", itemsJS), "the route is gone")
	assert.Zero(t, x.Server.DevTools().Tabs(), "no state kept for the session's tabs")
}
