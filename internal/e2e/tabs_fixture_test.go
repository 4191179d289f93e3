//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// What the user does in their browser, reached the way the user's own
// actions arrive — never through Gasoline: pages opened through Chromium's
// remote-debugging port, tabs moved between groups by chrome.tabs in the
// extension's service worker (the same event a drag in the tab strip
// fires).

// workerEval evaluates expression (awaited) in the extension's service worker
// of the browser whose DevTools listen on port, and decodes its value.
func workerEval(t testing.TB, port int, expression string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	sw := dialCDP(t, findTarget(t, port, "service_worker", "chrome-extension://").WSURL)
	raw, err := sw.call(ctx, "Runtime.evaluate", map[string]any{"expression": expression, "awaitPromise": true, "returnByValue": true})
	require.NoError(t, err, expression)
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	if res.ExceptionDetails != nil {
		t.Fatalf("service worker: %s: %s %s", expression, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		require.NoError(t, json.Unmarshal(res.Result.Value, out), "%s = %s", expression, res.Result.Value)
	}
}

// chromeTab is chrome.tabs.Tab as the tests read it.
type chromeTab struct {
	ID      int    `json:"id"`
	URL     string `json:"url"`
	GroupID int    `json:"groupId"`
	Status  string `json:"status"`
}

// chromeTabs lists the browser's tabs (chrome.tabs.query).
func chromeTabs(t testing.TB, port int) map[int]chromeTab {
	t.Helper()
	var list []chromeTab
	workerEval(t, port, `chrome.tabs.query({}).then((ts) => ts.map((t) => ({id: t.id, url: t.url || t.pendingUrl || '', groupId: t.groupId, status: t.status})))`, &list)
	out := map[int]chromeTab{}
	for _, x := range list {
		out[x.ID] = x
	}
	return out
}

// openUserTab opens url in a new tab the way the user does — through the
// browser, never through Gasoline — waits for it to load, and returns its
// Chrome tab id.
func openUserTab(t testing.TB, port int, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	d := dialCDP(t, browserWSURL(t, port))
	_, err := d.call(ctx, "Target.createTarget", map[string]any{"url": url})
	require.NoError(t, err)
	var id int
	eventually(t, 15*time.Second, "the user's tab loaded", func() bool {
		for _, x := range chromeTabs(t, port) {
			if x.URL == url && x.Status == "complete" {
				id = x.ID
				return true
			}
		}
		return false
	})
	return id
}

// browserWSURL is the browser-wide DevTools endpoint.
func browserWSURL(t testing.TB, port int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var v struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	require.NoError(t, getJSON(ctx, fmt.Sprintf("http://127.0.0.1:%d/json/version", port), &v))
	return v.URL
}

// pageEval runs expression in the page whose URL contains urlPart, as the
// page's own script would (not through Gasoline).
func pageEval(t testing.TB, port int, urlPart, expression string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pg := dialCDP(t, findTarget(t, port, "page", urlPart).WSURL)
	_, err := pg.call(ctx, "Runtime.evaluate", map[string]any{"expression": expression})
	require.NoError(t, err)
}

// moveToGroup moves a tab into a tab group as the user's drag does
// (group -1: out of any group).
func moveToGroup(t testing.TB, port, tab, group int) {
	t.Helper()
	expr := fmt.Sprintf("chrome.tabs.group({tabIds: [%d], groupId: %d}).then(() => true)", tab, group)
	if group < 0 {
		expr = fmt.Sprintf("chrome.tabs.ungroup([%d]).then(() => true)", tab)
	}
	workerEval(t, port, expr, nil)
}

// tabIn finds the tab with id in an observe tabs answer.
func tabIn(a answer, id int) map[string]any {
	for _, x := range list(a, "tabs") {
		if x["id"] == float64(id) {
			return x
		}
	}
	return nil
}

// hasEntry reports whether an answer's entries (or error groups) mention s.
func hasEntry(a answer, s string) bool {
	return hasText(a, s) || strings.Contains(a.Text, s)
}

func getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}
