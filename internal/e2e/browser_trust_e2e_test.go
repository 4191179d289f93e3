//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/scheme"
)

// Issue 27: the browser is no way around the user. An agent with nothing
// but its MCP tools cannot open a local file (the approver credential
// above all), Gasoline's own panel, another extension's page, a
// javascript:, view-source: or data: URL — whatever the policy allows —
// and a tab that goes to such a page stops being drivable.

// offLimits are the addresses an agent tries, with why each matters.
func offLimits(c *Chain) map[string]string {
	token := filepath.Join(c.Home, "credentials", "approver.token")
	return map[string]string{
		"file://" + token:                     "the approver credential",
		"file://" + filepath.Dir(token) + "/": "a directory listing",
		panelURL:                              "Gasoline's own panel (Approve buttons, the terminal)",
		"chrome-extension://abcdefghijklmnopabcdefghijklmnop/options.html":   "another extension's page",
		"javascript:document.getElementById('out').textContent='script ran'": "a script in the page's name",
		"view-source:" + c.PageURL("pages/trust/prompts.html"):               "the page's source",
		"data:text/html,<p id=out>made up</p>":                               "a page made up in the address",
		"chrome://settings/":                                                 "a browser page",
	}
}

// TestE2EAgentStaysOnTheWeb: under a policy that allows every call on the
// test site without asking, navigate and new_tab to each off-limits
// address are refused before anything is asked, with an error that says
// why and never quotes the address; nothing opened, nothing ran, nothing
// read.
func TestE2EAgentStaysOnTheWeb(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: localDevPolicy})
	a := mcpClient(t, c.Port, c.Server.Token(), "trust-web")
	tab := a.newTab(c.PageURL("pages/trust/prompts.html"))
	approver := c.Server.Credential(creds.Approver)
	tabsBefore := len(list(a.observe("tabs", nil), "tabs"))
	for u, what := range offLimits(c) {
		for _, mode := range []string{"navigate", "new_tab"} {
			args := map[string]any{"what": mode, "url": u, "timeout_ms": 5000}
			if mode == "navigate" {
				args["tab_id"] = tab
			}
			r := a.call("interact", args)
			require.True(t, r.IsError, "%s to %s (%s) was not refused: %s", mode, u, what, r.Text)
			require.Equal(t, scheme.Code, r.code(), "%s to %s: %s", mode, u, r.Text)
			require.Contains(t, r.Text, "nothing the user approves or grants changes that", "the error says a grant does not help")
			require.NotContains(t, r.Text, "approver.token", "the error never quotes the address")
		}
	}
	require.Empty(t, list(a.observe("approvals", nil), "pending"), "nothing was put to the user")
	require.Len(t, list(a.observe("tabs", nil), "tabs"), tabsBefore, "no tab was opened")
	require.Equal(t, "", pageText(t, c, tab, "out"), "the javascript: URL did not run")
	snap := a.observe("snapshot", map[string]any{"tab_id": tab})
	require.Contains(t, snap.Text, "Payments", "the tab still shows its page")
	require.NotContains(t, snap.Text, approver)
}

// TestE2EOffLimitsTabStopsBeingDrivable: a page that redirects to a file,
// to Gasoline's panel or to a data: page reads nothing; a tab the user (or
// anything but the agent) sends to Gasoline's panel is detached by the
// extension, and every call on it but close_tab is refused before anything
// is asked; the extension itself refuses to debug the panel.
func TestE2EOffLimitsTabStopsBeingDrivable(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: localDevPolicy, RemoteDebugging: true})
	a := mcpClient(t, c.Port, c.Server.Token(), "trust-redirect")
	approver := c.Server.Credential(creds.Approver)
	token := filepath.Join(c.Home, "credentials", "approver.token")
	redirects := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := map[string]string{"/file": "file://" + token, "/panel": panelURL, "/data": "data:text/html,<p>made up</p>"}[r.URL.Path]
		http.Redirect(w, r, to, http.StatusFound)
	}))
	defer redirects.Close()
	// The redirect server is on 127.0.0.1 too: the policy lets the agent
	// go there without asking. Chrome refuses the redirect to a file and
	// to data:; the one to the panel leaves the tab on it (blocked), and
	// from then no call works on that tab.
	for _, path := range []string{"/file", "/panel", "/data"} {
		tab := a.newTab(c.PageURL("pages/trust/prompts.html"))
		r := a.call("interact", map[string]any{"what": "navigate", "tab_id": tab, "url": redirects.URL + path, "timeout_ms": 10000})
		t.Logf("navigate to a redirect to %s: %s", path, r.Text)
		require.NotContains(t, r.Text+mustJSON(t, r.Data), approver)
		if !r.IsError {
			require.True(t, strings.HasPrefix(r.Data["url"].(string), "http://"), "it stayed on the web: %s", r.Text)
		}
		snap := a.call("observe", map[string]any{"what": "snapshot", "tab_id": tab})
		require.NotContains(t, snap.Text, approver, "after a redirect to %s", path)
		require.False(t, !snap.IsError && strings.Contains(snap.Text, "Approve once"), "the panel was read")
		if path == "/panel" {
			// A call racing the news of the redirect may fail as detached
			// (the extension let go of the tab); from then on, refused.
			untilError(t, a, map[string]any{"what": "snapshot", "tab_id": tab}, scheme.Code)
		}
	}

	// Something else sends the agent's tab to Gasoline's panel (the user
	// at the address bar; here the browser's own tabs API).
	tab2 := a.newTab(c.PageURL("pages/trust/prompts.html"))
	workerEval(t, devtoolsPort(t, c.Browser.UserDataDir), `chrome.tabs.update(`+strconv.Itoa(tab2)+`, {url: '`+panelURL+`'}).then(() => true)`, nil)
	r := untilError(t, a, map[string]any{"what": "snapshot", "tab_id": tab2}, scheme.Code)
	require.Contains(t, r.Text, "an extension's page")
	require.Contains(t, r.Text, "close_tab")
	for _, args := range []map[string]any{
		{"what": "click", "selector": "text=Approve once", "tab_id": tab2},
		{"what": "execute_js", "script": "document.title", "tab_id": tab2},
		{"what": "get_text", "selector": "body", "tab_id": tab2},
		{"what": "navigate", "url": c.PageURL("pages/trust/prompts.html"), "tab_id": tab2},
	} {
		args["timeout_ms"] = 5000
		x := a.call("interact", args)
		require.True(t, x.IsError, "%v ran on the panel: %s", args, x.Text)
		require.Equal(t, scheme.Code, x.code(), "%v: %s", args, x.Text)
	}
	require.Empty(t, list(a.observe("approvals", nil), "pending"), "nothing was put to the user")

	// The extension will not debug it either, asked directly.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := c.Link.Call(ctx, "cdp.send", map[string]any{"tab_id": tab2, "method": "Runtime.evaluate", "params": map[string]any{"expression": "1"}})
	require.Error(t, err, "the extension debugged its own panel")
	require.Contains(t, err.Error(), "restricted_page")
	// close_tab never reads or drives the page: it is not refused (the
	// panel's origin is no origin the policy allows, so it asks).
	x := a.call("interact", map[string]any{"what": "close_tab", "tab_id": tab2, "timeout_ms": 200})
	require.NotEqual(t, scheme.Code, x.code(), x.Text)
}

// TestE2EPanelIsNoAgentsPage: the panel the user has open is no tab of
// the agent's, its address is refused to navigate and new_tab, and the
// extension refuses to attach its debugger to it.
func TestE2EPanelIsNoAgentsPage(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: localDevPolicy, RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	a := mcpClient(t, c.Port, c.Server.Token(), "trust-panel")
	p := openPanelDirect(t, ctx, c)
	defer p.close()
	p.waitState(ctx, "ready")
	for _, tb := range list(a.observe("tabs", nil), "tabs") {
		require.NotContains(t, tb["url"], "chrome-extension://", "the agent sees the panel")
	}
	r := a.call("interact", map[string]any{"what": "new_tab", "url": panelURL})
	require.Equal(t, scheme.Code, r.code(), r.Text)
	raw, err := c.Link.Call(ctx, "tabs.query", map[string]any{})
	require.NoError(t, err)
	var q struct {
		Tabs []struct {
			ID  int    `json:"id"`
			URL string `json:"url"`
		} `json:"tabs"`
	}
	require.NoError(t, json.Unmarshal(raw, &q))
	found := false
	for _, tb := range q.Tabs {
		if tb.URL == panelURL {
			found = true
			_, err := c.Link.Call(ctx, "cdp.attach", map[string]any{"tab_id": tb.ID})
			require.Error(t, err, "the extension attached to its own panel")
			require.Contains(t, err.Error(), "restricted_page")
		}
	}
	require.True(t, found, "the panel's tab is in the browser")
}
