package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestE2ETabReplaced: Chrome replaces a tab the session owns (here it
// discards it: this Chromium gives the discarded tab a new id and fires
// chrome.tabs.onReplaced). The session owns the new id in the old one's
// place; a call naming the old id says which tab to use; once the tab is
// loaded again (as when the user clicks it), the agent works in it.
func TestE2ETabReplaced(t *testing.T) {
	r := startRelay(t, ChainOptions{RemoteDebugging: true})
	a := r.client(t, "replaced")
	old := a.newTab(r.url("pages/title.html"))
	other := a.newTab(r.url("pages/relay/console.html")) // current, so old is in the background
	require.Equal(t, float64(other), a.observe("page", nil).Data["tab_id"])

	sw := dialCDP(t, findTarget(t, devtoolsPort(t, r.Browser.UserDataDir), "service_worker", "chrome-extension://").WSURL)
	now := int(swEval(t, sw, fmt.Sprintf(`chrome.tabs.discard(%d).then((t) => t.id)`, old)).(float64))
	require.NotEqual(t, old, now, "Chromium discarded tab %d in place: no tabs.onReplaced to test", old)

	tabs := a.observe("tabs", nil)
	ids := []float64{}
	for _, tab := range list(tabs, "tabs") {
		ids = append(ids, tab["id"].(float64))
	}
	require.ElementsMatch(t, []float64{float64(other), float64(now)}, ids, "the session's tabs after the replacement: %s", tabs.Text)
	require.Equal(t, float64(other), tabs.Data["current_tab"], "the current tab stays current")

	gone := a.call("observe", map[string]any{"what": "page", "tab_id": old})
	require.True(t, gone.IsError, gone.Text)
	require.Equal(t, "tab_closed", gone.code(), gone.Text)
	require.Equal(t, float64(now), gone.Data["details"].(map[string]any)["replaced_by"], gone.Text)
	next := gone.Data["next_action"].(map[string]any)
	require.Equal(t, "interact", next["tool"])
	require.Equal(t, map[string]any{"what": "switch_tab", "tab_id": float64(now)}, next["arguments"])

	// Another session cannot take the new tab.
	b := r.client(t, "other")
	require.Equal(t, "tab_not_owned", b.call("observe", map[string]any{"what": "page", "tab_id": now}).code())

	// The user brings the discarded tab back; the agent switches to it
	// and reads it.
	swEval(t, sw, fmt.Sprintf(`chrome.tabs.reload(%d).then(() => new Promise((done) => {
		const check = (id, change) => {
			if (id !== %d || change.status !== 'complete') return;
			chrome.tabs.onUpdated.removeListener(check);
			done(true);
		};
		chrome.tabs.onUpdated.addListener(check);
		chrome.tabs.get(%d).then((t) => t.status === 'complete' && check(%d, t));
	}))`, now, now, now, now))
	a.ok("interact", next["arguments"].(map[string]any))
	pg := a.observe("page", nil)
	require.Equal(t, float64(now), pg.Data["tab_id"])
	require.Equal(t, "Gasoline e2e: title page", pg.Data["title"])
}

// swEval evaluates a promise-valued expression in the extension's service
// worker and returns its value.
func swEval(t *testing.T, sw *directCDP, expr string) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := sw.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	require.NoError(t, err)
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Nil(t, res.ExceptionDetails, "%s: %s", expr, res.ExceptionDetails)
	return res.Result.Value
}
