package capture

import "time"

// Document is a tab's current main-frame document, as its latest
// Page.frameNavigated named it. It decides which requests belong to "the
// current page" ([Document.Has]), robustly across navigations: by CDP
// loaderId rather than by time, so the previous page's requests that finish
// after the navigation are not taken for the new page's.
type Document struct {
	// LoaderID is the main frame's loaderId: the id of the document's
	// own request, carried by every request the document makes.
	LoaderID string `json:"loader_id"`
	// URL is the main frame's URL at the navigation, passed through the
	// Redactor ("" when it refused it).
	URL string `json:"url"`
	// Type is CDP's navigation type: Navigation or BackForwardCacheRestore.
	Type string    `json:"type,omitempty"`
	Time time.Time `json:"time"` // when the navigation committed

	// start is the tab's send count at the document's request (the first
	// hop of its redirects), or at the commit when that request was not
	// seen; requests with no known document count when sent after it.
	start uint64
	// prev is the loaderIds of the previous document and of its child
	// frames, whose late requests are not the new document's. Shared by
	// copies and never written after the Document is made.
	prev map[string]struct{}
}

// Has reports whether r belongs to the document:
//
//   - a request carrying the document's loaderId does (its own request,
//     redirect hops included, and everything the main frame loaded);
//   - the document request of another main-frame navigation does not (one
//     still on its way, or one that never committed: a 204 or a download);
//   - a request of the previous document or of its child frames does not,
//     even when it started or finished after the navigation;
//   - any other request — one with no loaderId (some worker and service
//     worker requests) or with a loaderId capture cannot place (a child
//     frame's, an out-of-process iframe's, a worker's) — does when it was
//     sent after the document's request started: nothing of an older
//     document is sent then except what the previous rules catch.
//
// A back/forward cache restore makes an older document current again: its
// requests from before it was left count as well.
func (d Document) Has(r Request) bool {
	switch {
	case r.LoaderID != "" && r.LoaderID == d.LoaderID:
		return true
	case r.mainDoc:
		return false
	}
	if _, old := d.prev[r.LoaderID]; old && r.LoaderID != "" {
		return false
	}
	return r.sent > d.start
}

// Document returns the tab's current main-frame document; ok is false when
// capture has seen no main-frame navigation in the tab (it started after
// the page loaded, or the tab's buffers were forgotten since).
func (s *Store) Document(tabID int) (d Document, ok bool) {
	t := s.get(tabID)
	if t == nil {
		return Document{}, false
	}
	t.mu.Lock()
	cur := t.doc
	t.mu.Unlock()
	if cur == nil {
		return Document{}, false
	}
	d = *cur
	n, ok := redactAs(t.opts.Redactor, kNavigation, Navigation{Time: d.Time, Event: "navigated", URL: d.URL, Type: d.Type})
	d.URL = ""
	if ok {
		d.URL = n.URL
	}
	return d, true
}
