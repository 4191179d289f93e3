package observe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// netTab feeds a store one tab's network and navigation events.
type netTab struct {
	t     *testing.T
	store *capture.Store
	ts    float64
}

const netTabID = 3

func newNetTab(t *testing.T) *netTab {
	store, err := capture.NewStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &netTab{t: t, store: store, ts: 500}
}

func (n *netTab) ingest(method string, params map[string]any) {
	raw, err := json.Marshal(params)
	if err != nil {
		n.t.Fatal(err)
	}
	n.ts += 0.01
	n.store.Ingest(netTabID, method, raw)
}

func (n *netTab) send(id, loader, typ, method, path string) {
	n.ingest("Network.requestWillBeSent", map[string]any{
		"requestId": id, "loaderId": loader, "frameId": "MAIN", "type": typ, "timestamp": n.ts, "wallTime": 1730000000 + n.ts,
		"request": map[string]any{"url": "http://127.0.0.1:8765" + path, "method": method},
	})
}

func (n *netTab) finish(id string, status int) {
	n.ingest("Network.responseReceived", map[string]any{"requestId": id, "timestamp": n.ts,
		"response": map[string]any{"url": "x", "status": status, "statusText": "x", "mimeType": "text/plain"}})
	n.ingest("Network.loadingFinished", map[string]any{"requestId": id, "timestamp": n.ts, "encodedDataLength": 100})
}

func (n *netTab) load(id, loader, typ, method, path string, status int) {
	n.send(id, loader, typ, method, path)
	n.finish(id, status)
}

// navigate loads a document of the main frame with n subresources
// (a.js, b.js, …), the last of which gets a 404.
func (n *netTab) navigate(loader, path string, subs int) {
	n.send(loader, loader, "Document", "GET", path)
	n.ingest("Page.frameNavigated", map[string]any{"frame": map[string]any{
		"id": "MAIN", "loaderId": loader, "url": "http://127.0.0.1:8765" + path, "securityOrigin": "x", "mimeType": "text/html",
	}, "type": "Navigation"})
	n.finish(loader, 200)
	for i := range subs {
		status := 200
		if i == subs-1 {
			status = 404
		}
		n.load(fmt.Sprintf("%s.%d", loader, i), loader, "Script", "GET", fmt.Sprintf("%s.%c.js", path, 'a'+i), status)
	}
}

func (n *netTab) waterfall(q capture.NetworkQuery, pg paging, page bool) (string, WaterfallResult) {
	if pg.limit == 0 {
		pg.limit = capture.DefaultLimit
	}
	return waterfall(n.store, netTabID, q, pg, page)
}

func urlsOf(rs []capture.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, strings.TrimPrefix(r.URL, "http://127.0.0.1:8765"))
	}
	return out
}

func TestWaterfallScope(t *testing.T) {
	n := newNetTab(t)
	n.navigate("L1", "/one", 3) // 4 requests
	n.navigate("L2", "/two", 2) // 3 requests
	n.send("old", "L2", "Fetch", "POST", "/two.slow")
	n.navigate("L3", "/three", 2) // 3 requests
	n.send("w", "", "Fetch", "GET", "/three.worker")

	text, r := n.waterfall(capture.NetworkQuery{}, paging{}, true)
	t.Log(text)
	if got := urlsOf(r.Requests); strings.Join(got, " ") != "/three /three.a.js /three.b.js" {
		t.Fatalf("page scope: %v", got)
	}
	if r.Scope != "page" || r.PageURL != "http://127.0.0.1:8765/three" || r.Hidden != 8 {
		t.Fatalf("scope %q, page %q, hidden %d", r.Scope, r.PageURL, r.Hidden)
	}
	if got := urlsOf(r.Pending); strings.Join(got, " ") != "/three.worker" {
		t.Fatalf("pending: %v (the previous page's request in flight is hidden)", got)
	}
	for _, want := range []string{
		"tab 3, current page (since navigation to http://127.0.0.1:8765/three): 3 requests (+1 in flight); " +
			`8 requests of earlier pages hidden (scope:"all" shows them)`,
		"\n… [w] GET - fetch http://127.0.0.1:8765/three.worker",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("text lacks %q:\n%s", want, text)
		}
	}

	text, r = n.waterfall(capture.NetworkQuery{}, paging{}, false)
	if len(r.Requests) != 10 || len(r.Pending) != 2 || r.Scope != "all" || r.Hidden != 0 || r.PageURL != "" {
		t.Fatalf("all: %d requests, %d pending, scope %q, hidden %d", len(r.Requests), len(r.Pending), r.Scope, r.Hidden)
	}
	if !strings.HasPrefix(text, "tab 3, all captured: 10 requests (+2 in flight)\n") || strings.Contains(text, "hidden") {
		t.Fatalf("all text:\n%s", text)
	}

	// Filters apply in both scopes; so does the hidden count.
	_, r = n.waterfall(capture.NetworkQuery{StatusMin: 404, StatusMax: 404}, paging{}, true)
	if got := urlsOf(r.Requests); len(got) != 1 || got[0] != "/three.b.js" || r.Hidden != 2 {
		t.Fatalf("404 on the page: %v, hidden %d", got, r.Hidden)
	}
	_, r = n.waterfall(capture.NetworkQuery{Method: "post"}, paging{}, true)
	if len(r.Requests) != 0 || len(r.Pending) != 0 || r.Hidden != 1 {
		t.Fatalf("POST on the page: %d, %d pending, hidden %d (the previous page's POST in flight)", len(r.Requests), len(r.Pending), r.Hidden)
	}
	_, r = n.waterfall(capture.NetworkQuery{Method: "post"}, paging{}, false)
	if len(r.Pending) != 1 {
		t.Fatalf("POST, all: %d pending", len(r.Pending))
	}

	// Summary: of finished requests only, so the hidden count leaves out
	// the previous page's request in flight.
	text, r = n.waterfall(capture.NetworkQuery{}, paging{summary: true}, true)
	if r.Summary == nil || r.Summary.Requests != 3 || r.Summary.Failed != 1 || r.Hidden != 7 || r.Requests != nil {
		t.Fatalf("summary: %+v, hidden %d", r.Summary, r.Hidden)
	}
	want := "tab 3, current page (since navigation to http://127.0.0.1:8765/three): 3 requests, 1 failed, 300B, 2xx 2, 4xx 1; " +
		`slowest http://127.0.0.1:8765/three 30ms; 7 requests of earlier pages hidden (scope:"all" shows them); next_cursor 10`
	if text != want {
		t.Fatalf("summary text:\n got %s\nwant %s", text, want)
	}
	_, r = n.waterfall(capture.NetworkQuery{}, paging{summary: true}, false)
	if r.Summary.Requests != 10 || r.Summary.Failed != 3 {
		t.Fatalf("summary, all: %+v", r.Summary)
	}
}

func TestWaterfallScopeCursor(t *testing.T) {
	n := newNetTab(t)
	n.navigate("L1", "/one", 2)
	_, r := n.waterfall(capture.NetworkQuery{}, paging{}, true)
	if len(r.Requests) != 3 || r.NextCursor != "3" || r.Hidden != 0 {
		t.Fatalf("first: %d requests, next %s, hidden %d", len(r.Requests), r.NextCursor, r.Hidden)
	}
	n.load("x", "L1", "XHR", "GET", "/one.x", 200)
	n.navigate("L2", "/two", 3)

	// After the cursor: the previous page's newer request is hidden.
	text, r := n.waterfall(capture.NetworkQuery{After: 3}, paging{after: 3, limit: 2}, true)
	if got := urlsOf(r.Requests); strings.Join(got, " ") != "/two /two.a.js" || !r.Truncated || r.NextCursor != "6" || r.Hidden != 1 {
		t.Fatalf("page 1: %v truncated %v next %s hidden %d\n%s", got, r.Truncated, r.NextCursor, r.Hidden, text)
	}
	if !strings.Contains(text, "1 request of earlier pages hidden (scope:\"all\" shows it)") || !strings.HasSuffix(text, "more follow: pass after_cursor 6") {
		t.Fatalf("page 1 text:\n%s", text)
	}
	_, r = n.waterfall(capture.NetworkQuery{}, paging{after: 6, limit: 2}, true)
	if got := urlsOf(r.Requests); strings.Join(got, " ") != "/two.b.js /two.c.js" || r.Truncated || r.NextCursor != "8" || r.Hidden != 0 {
		t.Fatalf("page 2: %v truncated %v next %s hidden %d", got, r.Truncated, r.NextCursor, r.Hidden)
	}
	// A cursor of one scope is good in the other.
	_, r = n.waterfall(capture.NetworkQuery{}, paging{after: 3}, false)
	if got := urlsOf(r.Requests); strings.Join(got, " ") != "/one.x /two /two.a.js /two.b.js /two.c.js" {
		t.Fatalf("all after the page cursor: %v", got)
	}
	_, r = n.waterfall(capture.NetworkQuery{}, paging{after: 8}, true)
	if len(r.Requests) != 0 || r.NextCursor != "8" {
		t.Fatalf("nothing new: %d, next %s", len(r.Requests), r.NextCursor)
	}
}

func TestWaterfallScopeUnknownPage(t *testing.T) {
	n := newNetTab(t)
	n.load("a", "L0", "Script", "GET", "/a.js", 200) // capture started after the navigation
	text, r := n.waterfall(capture.NetworkQuery{}, paging{}, true)
	if r.Scope != "all" || r.ScopeNote == "" || len(r.Requests) != 1 {
		t.Fatalf("scope %q note %q, %d requests", r.Scope, r.ScopeNote, len(r.Requests))
	}
	if !strings.HasPrefix(text, "tab 3, all captured (no navigation of this tab was captured, so its current page is unknown): 1 requests") {
		t.Fatalf("text:\n%s", text)
	}
	_, r = n.waterfall(capture.NetworkQuery{}, paging{}, false)
	if r.ScopeNote != "" {
		t.Fatalf("scope all asked: note %q", r.ScopeNote)
	}
}
