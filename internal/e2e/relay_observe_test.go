package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Each observe mode returns what a page in testdata/pages/relay did, with
// the right counts, over MCP through the real chain.

func TestE2ERelayConsoleAndErrors(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-console")
	tab := a.newTab(r.url("pages/relay/console.html"))
	tabArg := map[string]any{"tab_id": tab}

	logs := a.until("logs", nil, 15*time.Second, func(x answer) bool { return hasText(x, "relay:console-done") })
	entries := list(logs, "entries")
	require.Len(t, entries, 8, logs.Text)
	levels := map[string]int{}
	for _, e := range entries {
		levels[e["level"].(string)]++
	}
	require.Equal(t, map[string]int{"log": 2, "info": 1, "debug": 2, "warning": 1, "error": 2}, levels)
	require.Contains(t, logs.Text, "hello relay")
	require.Contains(t, logs.Text, `{a: 1, b: "x"}`)

	warnUp := a.observe("logs", map[string]any{"level": "warning"})
	require.Len(t, list(warnUp, "entries"), 3, warnUp.Text)
	boom := a.observe("logs", map[string]any{"text": "BOOM"})
	require.Len(t, list(boom, "entries"), 2, boom.Text)
	sum := a.observe("logs", map[string]any{"summary": true})
	require.Equal(t, map[string]any{"log": 2.0, "info": 1.0, "debug": 2.0, "warning": 1.0, "error": 2.0}, sum.Data["counts"])

	// Paging: 3 at a time, resuming at next_cursor.
	p1 := a.observe("logs", map[string]any{"limit": 3})
	require.Len(t, list(p1, "entries"), 3)
	require.Equal(t, true, p1.Data["truncated"])
	p2 := a.observe("logs", map[string]any{"limit": 100, "after_cursor": p1.Data["next_cursor"]})
	require.Len(t, list(p2, "entries"), 5)

	errs := a.until("errors", tabArg, 15*time.Second, func(x answer) bool { return x.Data["groups"] == 3.0 })
	require.Equal(t, 4.0, errs.Data["occurrences"], errs.Text)
	msgs := strings.Join([]string{errs.Text}, "")
	require.Contains(t, msgs, "boom 1 ×2")
	require.Contains(t, msgs, "Uncaught TypeError")
	require.Contains(t, msgs, "Uncaught (in promise) Error: nope")
	for _, g := range list(errs, "errors") {
		if g["kind"] == "exception" && strings.Contains(g["message"].(string), "TypeError") {
			require.Contains(t, g["url"], "console.html")
			require.NotEmpty(t, g["stack"])
		}
	}
	again := a.observe("errors", map[string]any{"after_cursor": errs.Data["next_cursor"]})
	require.Equal(t, 0.0, again.Data["groups"], "nothing new after the cursor")

	tl := a.observe("timeline", map[string]any{"summary": true})
	counts := tl.Data["counts"].(map[string]any)
	require.Equal(t, 8.0, counts["console"])
	require.Equal(t, 2.0, counts["exception"])
	require.GreaterOrEqual(t, counts["navigation"], 3.0) // navigated, domcontentloaded, load
}

func TestE2ERelayNetwork(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-network")
	a.newTab(r.url("pages/relay/network.html"))

	// document, 404, XHR POST, fetch POST, JSON GET, refused = 6 finished.
	wf := a.until("network_waterfall", nil, 15*time.Second, func(x answer) bool { return len(list(x, "requests")) == 6 })
	t.Log(wf.Text)
	byURL := map[string]map[string]any{}
	for _, q := range list(wf, "requests") {
		u := q["url"].(string)
		byURL[u[strings.LastIndex(u, "/"):]] = q
	}
	require.Equal(t, 404.0, byURL["/missing.json"]["status"])
	require.Equal(t, "Fetch", byURL["/missing.json"]["resource_type"])
	require.Equal(t, "XHR", byURL["/echo?via=xhr"]["resource_type"])
	require.Equal(t, "POST", byURL["/echo?via=xhr"]["method"])
	require.Equal(t, "Fetch", byURL["/echo?via=fetch"]["resource_type"])
	require.Equal(t, true, byURL["/refused"]["failed"])
	require.Equal(t, "Document", byURL["/network.html"]["resource_type"])
	require.Contains(t, byURL["/missing.json"]["initiator_type"], "script")

	failed := a.observe("network_waterfall", map[string]any{"status": "failed"})
	require.Len(t, list(failed, "requests"), 2, failed.Text) // the 404 and the refused one
	posts := a.observe("network_waterfall", map[string]any{"method": "post"})
	require.Len(t, list(posts, "requests"), 2, posts.Text)
	xhr := a.observe("network_waterfall", map[string]any{"type": "xhr"})
	require.Len(t, list(xhr, "requests"), 1, xhr.Text)
	sum := a.observe("network_waterfall", map[string]any{"summary": true})
	s := sum.Data["summary"].(map[string]any)
	require.Equal(t, 6.0, s["requests"])
	require.Equal(t, 2.0, s["failed"])
	// One document: the current page (the default) is everything captured.
	require.Equal(t, "page", wf.Data["scope"])
	require.Nil(t, wf.Data["hidden"])
	require.Contains(t, wf.Text, "current page (since navigation to "+r.url("pages/relay/network.html")+"): 6 requests")
	all := a.observe("network_waterfall", map[string]any{"scope": "all"})
	require.Len(t, list(all, "requests"), 6, all.Text)
	require.Equal(t, "all", all.Data["scope"])

	// Bodies of any request: the XHR's and the fetch's request and response.
	bodies := a.observe("network_bodies", map[string]any{"url": "/api/echo"})
	bs := list(bodies, "bodies")
	require.Len(t, bs, 2, bodies.Text)
	require.Contains(t, bs[0]["request_body"], `"kind":"fetch"`) // newest first
	require.Contains(t, bs[0]["response_body"], `"method":"POST"`)
	require.Contains(t, bs[1]["request_body"], `"kind":"xhr"`)
	sub := a.observe("network_bodies", map[string]any{"url": "via=fetch", "body_path": "body.items.1"})
	require.JSONEq(t, `{"id":2}`, list(sub, "bodies")[0]["response_body"].(string))
	byID := a.observe("network_bodies", map[string]any{"request_id": byURL["/data.json"]["id"]})
	require.Contains(t, list(byID, "bodies")[0]["response_body"], `"name":"two"`)
	doc := a.observe("network_bodies", map[string]any{"url": "network.html"})
	require.Contains(t, list(doc, "bodies")[0]["response_body"], "relay: network")

	// The 404's error bundle: there is no console error here, so none.
	eb := a.observe("error_bundles", nil)
	require.Empty(t, list(eb, "bundles"))
}

// network_waterfall's scope on a page that navigates twice: by default the
// current document's requests, and how many of the earlier pages' it left
// out; scope all, everything captured. Filters, summary and cursors work in
// both.
func TestE2ERelayNetworkScope(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-network-scope")
	a.newTab(r.url("pages/relay/hops.html"))
	last := r.url("pages/relay/hops.html?n=2")
	paths := func(x answer) []string {
		var out []string
		for _, q := range list(x, "requests") {
			u := q["url"].(string)
			out = append(out, u[strings.LastIndex(u, "/"):])
		}
		return out
	}

	// hops.html?n=0: document, data, 404; ?n=1: document, data; ?n=2:
	// document, data, 404.
	wf := a.until("network_waterfall", nil, 20*time.Second, func(x answer) bool {
		return x.Data["page_url"] == last && len(list(x, "requests")) == 3 && x.Data["hidden"] == 5.0
	})
	t.Log(wf.Text)
	require.Equal(t, "page", wf.Data["scope"])
	require.ElementsMatch(t, []string{"/hops.html?n=2", "/data.json?hop=2", "/missing.json?hop=2"}, paths(wf))
	require.Empty(t, list(wf, "pending"))
	require.True(t, strings.HasPrefix(wf.Page, "tab "), wf.Text)
	require.Contains(t, wf.Text, "current page (since navigation to "+last+"): 3 requests; "+
		`5 requests of earlier pages hidden (scope:"all" shows them)`)

	all := a.observe("network_waterfall", map[string]any{"scope": "all"})
	t.Log(all.Text)
	require.Equal(t, "all", all.Data["scope"])
	require.Nil(t, all.Data["hidden"])
	require.Nil(t, all.Data["page_url"])
	require.ElementsMatch(t, []string{"/hops.html", "/data.json?hop=0", "/missing.json?hop=0", "/hops.html?n=1", "/data.json?hop=1",
		"/hops.html?n=2", "/data.json?hop=2", "/missing.json?hop=2"}, paths(all))
	require.Contains(t, all.Text, "all captured: 8 requests")
	require.NotContains(t, all.Text, "hidden")
	require.Equal(t, wf.Data["next_cursor"], all.Data["next_cursor"], "both scopes read to the same cursor")

	// Filters.
	nf := a.observe("network_waterfall", map[string]any{"status": "404"})
	require.Equal(t, []string{"/missing.json?hop=2"}, paths(nf))
	require.Equal(t, 1.0, nf.Data["hidden"], nf.Text)
	require.Contains(t, nf.Text, `1 request of earlier pages hidden (scope:"all" shows it)`)
	require.Len(t, list(a.observe("network_waterfall", map[string]any{"status": "404", "scope": "all"}), "requests"), 2)
	docs := a.observe("network_waterfall", map[string]any{"type": "document", "scope": "page"})
	require.Equal(t, []string{"/hops.html?n=2"}, paths(docs))
	require.Equal(t, 2.0, docs.Data["hidden"])
	require.Len(t, list(a.observe("network_waterfall", map[string]any{"type": "document", "scope": "all"}), "requests"), 3)
	get := a.observe("network_waterfall", map[string]any{"method": "get", "url": "hop=1"})
	require.Empty(t, list(get, "requests"))
	require.Equal(t, 1.0, get.Data["hidden"])

	// Summary.
	sum := a.observe("network_waterfall", map[string]any{"summary": true})
	s := sum.Data["summary"].(map[string]any)
	require.Equal(t, 3.0, s["requests"], sum.Text)
	require.Equal(t, 1.0, s["failed"])
	require.Equal(t, 5.0, sum.Data["hidden"])
	require.Contains(t, sum.Text, "current page (since navigation to "+last+"): 3 requests, 1 failed")
	sumAll := a.observe("network_waterfall", map[string]any{"summary": true, "scope": "all"})
	s = sumAll.Data["summary"].(map[string]any)
	require.Equal(t, 8.0, s["requests"], sumAll.Text)
	require.Equal(t, 2.0, s["failed"])

	// Cursors: two at a time in the page scope, then the rest; a cursor
	// of one scope reads on in the other.
	p1 := a.observe("network_waterfall", map[string]any{"limit": 2})
	require.Len(t, list(p1, "requests"), 2, p1.Text)
	require.Equal(t, true, p1.Data["truncated"])
	require.Contains(t, p1.Text, "more follow: pass after_cursor")
	p2 := a.observe("network_waterfall", map[string]any{"after_cursor": p1.Data["next_cursor"]})
	require.Len(t, list(p2, "requests"), 1, p2.Text)
	require.Nil(t, p2.Data["hidden"], "the earlier pages' requests are before the cursor")
	require.ElementsMatch(t, paths(wf), append(paths(p1), paths(p2)...))
	require.Equal(t, wf.Data["next_cursor"], p2.Data["next_cursor"])
	rest := a.observe("network_waterfall", map[string]any{"scope": "all", "after_cursor": p1.Data["next_cursor"]})
	require.Contains(t, paths(rest), paths(p2)[0])
	none := a.observe("network_waterfall", map[string]any{"after_cursor": p2.Data["next_cursor"]})
	require.Empty(t, list(none, "requests"))

	// A scope the mode does not know is refused.
	bad := a.call("observe", map[string]any{"what": "network_waterfall", "scope": "session"})
	require.True(t, bad.IsError, bad.Text)
	require.Equal(t, "invalid_argument", bad.code(), bad.Text)
}

func TestE2ERelayWebSocket(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "relay-ws")
	a.newTab(r.url("pages/relay/websocket.html"))
	ws := a.until("websocket_events", map[string]any{"summary": true}, 15*time.Second, func(x answer) bool {
		for _, sc := range x.Data["sockets"].(map[string]any) {
			m := sc.(map[string]any)
			return m["sent"] == 2.0 && m["received"] == 2.0 && m["closed"] == true
		}
		return false
	})
	t.Log(ws.Text)
	all := a.observe("websocket_events", map[string]any{"url": "/ws/echo"})
	var sent, received []string
	for _, e := range list(all, "events") {
		if e["event"] != "frame" {
			continue
		}
		if e["direction"] == "sent" {
			sent = append(sent, e["payload"].(string))
		} else {
			received = append(received, e["payload"].(string))
		}
	}
	require.Equal(t, []string{"hello", `{"n":2}`}, sent)
	require.Equal(t, sent, received)
}
