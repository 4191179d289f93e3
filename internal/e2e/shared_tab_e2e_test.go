//go:build linux

package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
)

// gatedPolicy asks the user before every mutating call (no allow rule).
const gatedPolicy = `{"version":1,"rules":[]}`

// Issue 17: the user's own tab, opened outside Gasoline, is not the
// agent's to see; moved into the agent's tab group it is shared: the agent
// lists it, reads what the page logs from then on and nothing from before,
// and a click waits for the user's approval, whose prompt says it is the
// user's own tab. Sharing survives a service-worker restart. Moved out of
// the group, it is taken back at once: a call in flight ends with
// tab_not_shared, later calls too (with the ask to share it again), and
// its buffers are released.
func TestE2ESharedTab(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true, Policy: gatedPolicy})
	port := devtoolsPort(t, r.Browser.UserDataDir)
	a := r.client(t, "claude-e2e")

	// The agent's own tab (it makes the agent's group); opening it is
	// approved as the user would in the panel.
	opened := make(chan answer, 1)
	go func() { opened <- a.call("interact", map[string]any{"what": "new_tab", "timeout_ms": 60000}) }()
	approveNext(t, r)
	require.False(t, (<-opened).IsError)
	group := int(a.observe("tabs", nil).Data["group_id"].(float64))
	require.NotEqual(t, -1, group)

	url := r.url("pages/tabs/users.html")
	users := openUserTab(t, port, url)
	id := strconv.Itoa(users)
	require.Nil(t, tabIn(a.observe("tabs", nil), users), "the user's tab is not the agent's to see")
	require.NotContains(t, a.observe("tabs", nil).Text, url)
	require.Equal(t, "tab_not_owned", a.call("observe", map[string]any{"what": "logs", "tab_id": users}).code())

	// The user drags it into the agent's group.
	moveToGroup(t, port, users, group)
	listed := a.until("tabs", nil, 15*time.Second, func(x answer) bool { return tabIn(x, users) != nil })
	require.Equal(t, "user", tabIn(listed, users)["shared_by"], listed.Text)
	require.Contains(t, listed.Text, id+" "+url)
	require.Contains(t, listed.Text, "the user's own tab, shared with you")

	// What the page logs from now on is read; nothing from before.
	pageEval(t, port, url, `later('one')`)
	logs := a.until("logs", map[string]any{"tab_id": users}, 15*time.Second, func(x answer) bool { return hasText(x, "after-share: one") })
	require.False(t, hasText(logs, "before-share"), "a message from before the share was read: %s", logs.Text)
	errs := a.observe("errors", map[string]any{"tab_id": users})
	require.Contains(t, errs.Text, "after-share: one")
	require.NotContains(t, errs.Text, "before-share", "an error from before the share was read")
	require.Equal(t, url, a.observe("page", map[string]any{"tab_id": users}).Data["url"])

	// A click waits for the user, and the prompt says whose tab it is.
	click := a.call("interact", map[string]any{"what": "click", "selector": "#go", "tab_id": users, "timeout_ms": 1000})
	require.Equal(t, "approval_required", click.code(), click.Text)
	pending := r.Server.Approvals().Pending("")
	require.Len(t, pending, 1)
	require.Contains(t, pending[0].Target, fmt.Sprintf("on your own tab %d", users))
	require.Contains(t, pending[0].Target, "which you shared with this agent")

	// A service-worker restart keeps it shared (the group is the truth).
	old := r.Server.Extensions().Current()
	restartExtension(t, port)
	eventually(t, 30*time.Second, "the restarted extension connected", func() bool {
		l := r.Server.Extensions().Current()
		return l != nil && l != old
	})
	pageEval(t, port, url, `later('two')`)
	a.until("logs", map[string]any{"tab_id": users}, 20*time.Second, func(x answer) bool { return hasText(x, "after-share: two") })
	require.Equal(t, "user", tabIn(a.observe("tabs", nil), users)["shared_by"])

	// A call in flight on the tab when the user takes it back ends at once.
	inflight := make(chan answer, 1)
	go func() {
		inflight <- a.call("interact", map[string]any{"what": "wait_for", "text": "never on this page", "tab_id": users, "timeout_ms": 120000})
	}()
	a.until("pending_commands", nil, 15*time.Second, func(x answer) bool {
		return slices.ContainsFunc(list(x, "commands"), func(c map[string]any) bool { return c["what"] == "wait_for" && c["status"] == "pending" })
	})
	taken := time.Now()
	moveToGroup(t, port, users, -1)
	select {
	case got := <-inflight:
		require.Equal(t, "tab_not_shared", got.code(), got.Text)
		require.Less(t, time.Since(taken), 60*time.Second, "it ended long before its budget")
	case <-time.After(90 * time.Second):
		t.Fatal("the call in flight did not end when the user took the tab back")
	}
	later := a.call("observe", map[string]any{"what": "logs", "tab_id": users})
	require.Equal(t, "tab_not_shared", later.code(), later.Text)
	next := later.Data["next_action"].(map[string]any)
	require.Contains(t, next["ask_user"], "share tab "+id)
	require.Nil(t, tabIn(a.observe("tabs", nil), users))
	require.NotContains(t, r.Server.Capture().Tabs(), users, "its buffers are released")
	require.Contains(t, chromeTabs(t, port), users, "the user's tab stays open")
}

// The same through the panel's buttons: "Share this tab with …" lists the
// connected agent by client name; Share gives it the tab, Stop sharing
// takes it back.
func TestE2ESharedTabPanelButtons(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true})
	port := devtoolsPort(t, r.Browser.UserDataDir)
	a := r.client(t, "codex-e2e")
	url := r.url("pages/tabs/users.html")
	users := openUserTab(t, port, url)
	workerEval(t, port, fmt.Sprintf("chrome.tabs.update(%d, {active: true}).then(() => true)", users), nil)

	ctx := t.Context()
	p := openPanel(t, ctx, r.Chain)
	p.waitState(ctx, "ready")
	p.waitFor(ctx, "the offer to share", `document.getElementById('share-card').dataset.mode === 'offer'
	  && [...document.querySelectorAll('#share-with option')].some((o) => o.textContent === 'codex-e2e')`)
	p.shot(ctx, "20-share-offer.png")
	require.NoError(t, p.eval(ctx, `(() => { const s = document.getElementById('share-with');
	  s.value = [...s.options].find((o) => o.textContent === 'codex-e2e').value; return true; })()`, nil))
	p.click(ctx, "#share-button")
	p.waitFor(ctx, "shared", `document.getElementById('share-card').dataset.mode === 'shared'
	  && document.getElementById('share-state').textContent.startsWith('Shared with codex-e2e')`)
	p.shot(ctx, "21-shared.png")
	listed := a.until("tabs", nil, 15*time.Second, func(x answer) bool { return tabIn(x, users) != nil })
	require.Equal(t, "user", tabIn(listed, users)["shared_by"])
	require.Equal(t, tabIn(listed, users)["id"], listed.Data["current_tab"], "the shared tab is the agent's current tab")
	require.Equal(t, chromeTabs(t, port)[users].GroupID, int(listed.Data["group_id"].(float64)), "Share moved it into the agent's group")
	pageEval(t, port, url, `later('panel')`)
	a.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "after-share: panel") })

	p.click(ctx, "#unshare-button")
	p.waitFor(ctx, "offered again", `document.getElementById('share-card').dataset.mode === 'offer'`)
	gone := a.call("observe", map[string]any{"what": "logs", "tab_id": users})
	require.Equal(t, "tab_not_shared", gone.code(), gone.Text)
	require.Equal(t, -1, chromeTabs(t, port)[users].GroupID, "Stop sharing took it out of the group")
	require.True(t, strings.Contains(a.observe("tabs", nil).Text, "0 tabs in this session"))
	p.close()
}

// approveNext approves once, as the user in the panel would, the first
// request that waits (bounded wait for it).
func approveNext(t *testing.T, r *relay) {
	t.Helper()
	eventually(t, 15*time.Second, "an approval request", func() bool { return len(r.Server.Approvals().Pending("")) > 0 })
	_, err := r.Server.Approvals().Approve(r.Server.Approvals().Pending("")[0].RequestID, approval.Decision{Kind: approval.Once})
	require.NoError(t, err)
}
