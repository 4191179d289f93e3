package capture

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browse feeds a store the events of a tab that navigates, as Chrome sends
// them: one request's events, a frame's navigation.
type browse struct {
	t  *testing.T
	s  *Store
	ts float64 // monotonic clock, seconds
}

const mainFrameID = "MAIN"

func newBrowse(t *testing.T, opts *Options) *browse {
	return &browse{t: t, s: newTestStore(t, opts), ts: 1000}
}

func (b *browse) ingest(method string, params any) {
	b.t.Helper()
	raw, err := json.Marshal(params)
	require.NoError(b.t, err)
	b.ts += 0.01
	b.s.Ingest(tabID, method, raw)
}

// send starts request id of document loader in frame (a document's own
// request has id == loader and typ Document).
func (b *browse) send(id, loader, typ, frame, path string) {
	b.ingest("Network.requestWillBeSent", map[string]any{
		"requestId": id, "loaderId": loader, "frameId": frame, "type": typ, "timestamp": b.ts, "wallTime": 1730000000 + b.ts,
		"request": map[string]any{"url": "http://127.0.0.1:8765" + path, "method": "GET"},
	})
}

func (b *browse) finish(id string) {
	b.ingest("Network.responseReceived", map[string]any{"requestId": id, "timestamp": b.ts,
		"response": map[string]any{"url": "x", "status": 200, "statusText": "OK", "mimeType": "text/plain"}})
	b.ingest("Network.loadingFinished", map[string]any{"requestId": id, "timestamp": b.ts, "encodedDataLength": 10})
}

// load sends and finishes a request.
func (b *browse) load(id, loader, typ, frame, path string) {
	b.send(id, loader, typ, frame, path)
	b.finish(id)
}

// commit is Page.frameNavigated of frame (parent "" for the main frame).
func (b *browse) commit(frame, parent, loader, path, typ string) {
	f := map[string]any{"id": frame, "loaderId": loader, "url": "http://127.0.0.1:8765" + path, "securityOrigin": "x", "mimeType": "text/html"}
	if parent != "" {
		f["parentId"] = parent
	}
	b.ingest("Page.frameNavigated", map[string]any{"frame": f, "type": typ})
}

// navigate loads a main-frame document and commits it.
func (b *browse) navigate(loader, path string) {
	b.send(loader, loader, "Document", mainFrameID, path)
	b.commit(mainFrameID, "", loader, path, "Navigation")
	b.finish(loader)
}

// paths lists the requests' URL paths.
func paths(rs []Request) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, strings.TrimPrefix(r.URL, "http://127.0.0.1:8765"))
	}
	return out
}

func (b *browse) page() *Document {
	b.t.Helper()
	d, ok := b.s.Document(tabID)
	require.True(b.t, ok, "current document")
	return &d
}

func (b *browse) network(q NetworkQuery) []string {
	return paths(b.s.Network(tabID, q).Entries)
}

func TestDocumentScope(t *testing.T) {
	b := newBrowse(t, nil)
	_, ok := b.s.Document(tabID)
	require.False(t, ok, "no navigation seen yet")

	// Page A: its document, a script, an iframe with its own document and
	// image, a worker request without loaderId.
	b.navigate("LA", "/a.html")
	b.load("a1", "LA", "Script", mainFrameID, "/a.js")
	b.send("LFA", "LFA", "Document", "IFR", "/frame-a.html")
	b.commit("IFR", mainFrameID, "LFA", "/frame-a.html", "Navigation")
	b.finish("LFA")
	b.load("fa1", "LFA", "Image", "IFR", "/frame-a.png")
	b.load("w1", "", "Fetch", "", "/worker-a")
	a := b.page()
	assert.Equal(t, "LA", a.LoaderID)
	assert.Equal(t, "http://127.0.0.1:8765/a.html", a.URL)
	assert.Equal(t, "Navigation", a.Type)
	assert.Equal(t, []string{"/a.html", "/a.js", "/frame-a.html", "/frame-a.png", "/worker-a"}, b.network(NetworkQuery{Doc: a}))

	// Page A starts requests that are still going when B's navigation
	// starts; then A and its frame make more before B commits; B's
	// document request; A's requests end after the commit.
	b.send("slow", "LA", "Fetch", mainFrameID, "/a-slow")
	b.send("LB", "LB", "Document", mainFrameID, "/b.html")
	b.send("late", "LA", "Fetch", mainFrameID, "/a-late")
	b.send("flate", "LFA", "Fetch", "IFR", "/frame-a-late")
	b.send("w2", "", "Fetch", "", "/worker-b")
	bd := b.page()
	assert.Equal(t, "LA", bd.LoaderID, "B has not committed")
	pending := map[string]bool{}
	for _, r := range b.s.Pending(tabID) {
		pending[strings.TrimPrefix(r.URL, "http://127.0.0.1:8765")] = bd.Has(r)
	}
	assert.Equal(t, map[string]bool{"/a-slow": true, "/b.html": false, "/a-late": true, "/frame-a-late": true, "/worker-b": true}, pending,
		"before B commits, B's document request is not A's; the rest is")

	b.commit(mainFrameID, "", "LB", "/b.html", "Navigation")
	b.finish("LB")
	b.finish("slow")
	b.finish("late")
	b.finish("flate")
	b.finish("w2")
	b.load("b1", "LB", "Stylesheet", mainFrameID, "/b.css")
	b.load("LOOP", "LOOP", "Document", "OOPIF", "/oopif.html") // an out-of-process frame: its navigation is not seen
	b.load("w3", "", "Fetch", "", "/worker-b2")

	cur := b.page()
	assert.Equal(t, "LB", cur.LoaderID)
	assert.Equal(t, "http://127.0.0.1:8765/b.html", cur.URL)
	assert.Equal(t, []string{"/b.html", "/worker-b", "/b.css", "/oopif.html", "/worker-b2"}, b.network(NetworkQuery{Doc: cur}),
		"B's requests; a worker request sent after B's document request started counts")
	assert.Equal(t, []string{"/a.html", "/a.js", "/frame-a.html", "/frame-a.png", "/worker-a", "/b.html", "/a-slow", "/a-late",
		"/frame-a-late", "/worker-b", "/b.css", "/oopif.html", "/worker-b2"}, b.network(NetworkQuery{}), "no Doc: everything")
	assert.Equal(t, 8, b.s.NetworkOutside(tabID, NetworkQuery{Doc: cur}, 1<<60))
	assert.Zero(t, b.s.NetworkOutside(tabID, NetworkQuery{}, 1<<60), "no Doc, nothing outside")

	// Filters combine with the document.
	assert.Equal(t, []string{"/worker-b", "/worker-b2"}, b.network(NetworkQuery{Doc: cur, URLContains: "WORKER"}))
	assert.Equal(t, 1, b.s.NetworkOutside(tabID, NetworkQuery{Doc: cur, URLContains: "WORKER"}, 1<<60))
	assert.Equal(t, []string{"/b.css"}, b.network(NetworkQuery{Doc: cur, ResourceType: "Stylesheet", Method: "get"}))
	assert.Empty(t, b.network(NetworkQuery{Doc: cur, Method: "POST"}))

	// Cursors: a page of 2, then the rest; what is outside is counted per
	// window.
	p1 := b.s.Network(tabID, NetworkQuery{Doc: cur, Limit: 2})
	assert.Equal(t, []string{"/b.html", "/worker-b"}, paths(p1.Entries))
	require.True(t, p1.Truncated)
	assert.Equal(t, 8, b.s.NetworkOutside(tabID, NetworkQuery{Doc: cur}, p1.Next), "up to /worker-b: A's 5, /a-slow, /a-late, /frame-a-late")
	p2 := b.s.Network(tabID, NetworkQuery{Doc: cur, After: p1.Next})
	assert.Equal(t, []string{"/b.css", "/oopif.html", "/worker-b2"}, paths(p2.Entries))
	assert.False(t, p2.Truncated)
	assert.Zero(t, b.s.NetworkOutside(tabID, NetworkQuery{Doc: cur, After: p1.Next}, p2.Next))
	assert.Empty(t, b.s.Network(tabID, NetworkQuery{Doc: cur, After: p2.Next}).Entries)
	assert.Equal(t, []string{"/b.css", "/oopif.html", "/worker-b2"}, b.network(NetworkQuery{After: p2.Next - 3}),
		"a page-scoped cursor is a cursor of all")

	// C: B's iframe (same process) is left behind with B.
	b.send("LFB", "LFB", "Document", "IFR", "/frame-b.html")
	b.commit("IFR", mainFrameID, "LFB", "/frame-b.html", "Navigation")
	b.finish("LFB")
	b.send("LC", "LC", "Document", mainFrameID, "/c.html")
	b.load("fblate", "LFB", "Fetch", "IFR", "/frame-b-late")
	b.commit(mainFrameID, "", "LC", "/c.html", "Navigation")
	b.finish("LC")
	c := b.page()
	assert.Equal(t, []string{"/c.html"}, b.network(NetworkQuery{Doc: c}), "B's frame's late request is B's")
	assert.True(t, cur.Has(b.s.Network(tabID, NetworkQuery{URLContains: "frame-b-late"}).Entries[0]),
		"an older Document value still answers for its own document")

	// A back/forward cache restore brings B back: no document request;
	// B's requests count again, and what is sent from now on.
	b.commit(mainFrameID, "", "LB", "/b.html", "BackForwardCacheRestore")
	b.load("w4", "", "Fetch", "", "/worker-restored")
	r := b.page()
	assert.Equal(t, "BackForwardCacheRestore", r.Type)
	got := b.network(NetworkQuery{Doc: r})
	assert.Contains(t, got, "/b.css")
	assert.Contains(t, got, "/worker-restored")
	assert.NotContains(t, got, "/c.html")
	assert.NotContains(t, got, "/worker-b2", "sent before the restore, with no document")

	// The same document committed again changes nothing.
	b.commit(mainFrameID, "", "LB", "/b.html", "Navigation")
	assert.Equal(t, r.start, b.page().start)
}

// A redirected navigation: every hop carries the document's loaderId; the
// page starts at the first hop.
func TestDocumentRedirects(t *testing.T) {
	b := newBrowse(t, nil)
	b.navigate("LA", "/a.html")
	b.send("LD", "LD", "Document", mainFrameID, "/old")
	b.load("w", "", "Fetch", "", "/worker")
	b.ingest("Network.requestWillBeSent", map[string]any{
		"requestId": "LD", "loaderId": "LD", "frameId": mainFrameID, "type": "Document", "timestamp": b.ts,
		"request":          map[string]any{"url": "http://127.0.0.1:8765/new", "method": "GET"},
		"redirectResponse": map[string]any{"url": "http://127.0.0.1:8765/old", "status": 302, "statusText": "Found"},
	})
	b.commit(mainFrameID, "", "LD", "/new", "Navigation")
	b.finish("LD")
	assert.Equal(t, []string{"/worker", "/old", "/new"}, b.network(NetworkQuery{Doc: b.page()}))
}

// A navigation capture did not see start (capture enabled after the
// request): requests count from the commit.
func TestDocumentWithoutItsRequest(t *testing.T) {
	b := newBrowse(t, nil)
	b.load("w0", "", "Fetch", "", "/before")
	b.commit(mainFrameID, "", "LX", "/x.html", "Navigation")
	b.load("x1", "LX", "Script", mainFrameID, "/x.js")
	b.load("w1", "", "Fetch", "", "/after")
	assert.Equal(t, []string{"/x.js", "/after"}, b.network(NetworkQuery{Doc: b.page()}))
	// A main-frame document request of a navigation that never commits
	// (a 204) is not the page's.
	b.load("LN", "LN", "Document", mainFrameID, "/no-content")
	assert.Equal(t, []string{"/x.js", "/after"}, b.network(NetworkQuery{Doc: b.page()}))
}

func TestDocumentURLRedacted(t *testing.T) {
	var kinds []string
	b := newBrowse(t, &Options{Redactor: func(kind string, v any) (any, error) {
		kinds = append(kinds, kind)
		if n, ok := v.(Navigation); ok {
			n.URL = strings.ReplaceAll(n.URL, "secret", "[redacted]")
			return n, nil
		}
		if n, ok := v.(Request); ok && strings.Contains(n.URL, "refuse") {
			return nil, fmt.Errorf("no")
		}
		return v, nil
	}})
	b.navigate("LA", "/a.html?token=secret")
	assert.Equal(t, "http://127.0.0.1:8765/a.html?token=[redacted]", b.page().URL)
	assert.Equal(t, []string{"/a.html?token=secret"}, b.network(NetworkQuery{Doc: b.page()}), "a redactor that keeps the request keeps its document")
	assert.Contains(t, kinds, KindNavigation)

	b.navigate("LB", "/b.html?refuse")
	b.s.opts.Redactor = func(string, any) (any, error) { return nil, fmt.Errorf("no") }
	assert.Empty(t, b.page().URL, "refused")
}
