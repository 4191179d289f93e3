package capture

import (
	"github.com/chromedp/cdproto/page"
)

// openDialog is a dialog shown and not yet closed.
type openDialog struct {
	frameID string
	d       Dialog
}

// maxOpenDialogs bounds the dialogs open at once per tab (one per frame at
// most in practice).
const maxOpenDialogs = 8

// onDialogOpening records Page.javascriptDialogOpening: the dialog stays
// open (see [Store.OpenDialogs]) until Page.javascriptDialogClosed.
func (t *tab) onDialogOpening(p []byte) error {
	var ev page.EventJavascriptDialogOpening
	if err := decode(p, &ev); err != nil {
		return err
	}
	o := t.opts
	d := Dialog{Time: o.Now()}
	c := &d.Truncated
	d.Type = limit(string(ev.Type), maxShortText, c)
	d.Message = limit(ev.Message, o.MaxTextBytes, c)
	d.URL = limit(ev.URL, o.MaxURLBytes, c)
	d.DefaultPrompt = limit(ev.DefaultPrompt, o.MaxTextBytes, c)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.openDialogs) == maxOpenDialogs {
		t.openDialogs = append(t.openDialogs[:0], t.openDialogs[1:]...)
	}
	t.openDialogs = append(t.openDialogs, openDialog{frameID: string(ev.FrameID), d: d})
	return nil
}

// onDialogClosed records Page.javascriptDialogClosed: the dialog opened in the
// same frame (or, failing that, the latest one) is stored as handled.
func (t *tab) onDialogClosed(p []byte) error {
	var ev page.EventJavascriptDialogClosed
	if err := decode(p, &ev); err != nil {
		return err
	}
	t.mu.Lock()
	d, found := Dialog{}, false
	i := len(t.openDialogs) - 1 // no frame match: the latest
	for j := i; j >= 0; j-- {
		if t.openDialogs[j].frameID == string(ev.FrameID) {
			i = j
			break
		}
	}
	if i >= 0 {
		d, found = t.openDialogs[i].d, true
		t.openDialogs = append(t.openDialogs[:i], t.openDialogs[i+1:]...)
	}
	now := t.opts.Now()
	t.mu.Unlock()
	if !found { // opened before capture started
		d.Time = now
	}
	d.Handled, d.Accepted, d.Closed = true, ev.Result, now
	d.UserInput = limit(ev.UserInput, t.opts.MaxTextBytes, &d.Truncated)
	store(t, t.dialogs, kDialog, d)
	return nil
}

// onFrameNavigated records Page.frameNavigated of the main frame: a
// navigation entry, and the tab's current document (see [Document]). Of
// child frames only the loaderId is kept, so that the requests an old
// document's frames still make are not taken for the next document's.
func (t *tab) onFrameNavigated(p []byte) error {
	var ev page.EventFrameNavigated
	if err := decode(p, &ev); err != nil {
		return err
	}
	f := ev.Frame
	if f == nil {
		return errMalformed
	}
	if f.ParentID != "" {
		t.mu.Lock()
		if l := string(f.LoaderID); l != "" && len(l) <= maxShortText && len(t.docFrames) < maxDocFrames {
			t.docFrames[l] = struct{}{}
		}
		t.mu.Unlock()
		return nil
	}
	n := Navigation{Event: "navigated"}
	n.URL = limit(f.URL, t.opts.MaxURLBytes, &n.Truncated)
	n.Type = limit(string(ev.Type), maxShortText, &n.Truncated)
	loader, _ := truncate(string(f.LoaderID), maxShortText)
	t.mu.Lock()
	t.pageURL, t.navStart = n.URL, 0
	var start uint64 // send count of the document's first request (hop)
	for _, d := range t.docStarts {
		if d.loaderID != "" && d.loaderID == loader {
			t.navStart = d.mono
			if start == 0 || d.sent < start {
				start = d.sent
			}
		}
	}
	if id := string(f.ID); len(id) <= maxShortText {
		t.mainFrame = id
	}
	n.Time = t.opts.Now()
	if ev.Type == page.NavigationTypeBackForwardCacheRestore {
		start = 0 // a document request of its first load is not this navigation's start
	}
	t.newDocument(loader, n, start)
	t.mu.Unlock()
	store(t, t.navigations, kNavigation, n)
	return nil
}

// maxDocFrames bounds the child-frame loaderIds remembered per document.
const maxDocFrames = 256

// newDocument makes the main frame's document with loaderId loader current:
// the previous one and its frames become its prev. start is the send count
// of the document's request, 0 when it was not seen (a back/forward cache
// restore, or capture started after the request): then requests sent from
// now on count. Called with t.mu held.
func (t *tab) newDocument(loader string, n Navigation, start uint64) {
	if d := t.doc; d != nil && loader != "" && d.LoaderID == loader {
		return // the same document again
	}
	prev := t.docFrames
	if t.doc != nil && t.doc.LoaderID != "" {
		prev[t.doc.LoaderID] = struct{}{}
	}
	if start == 0 {
		start = t.sent
	}
	t.doc = &Document{LoaderID: loader, URL: n.URL, Type: n.Type, Time: n.Time, start: start, prev: prev}
	t.docFrames = make(map[string]struct{})
}

// onDOMContent records Page.domContentEventFired.
func (t *tab) onDOMContent(p []byte) error {
	var ev page.EventDomContentEventFired
	if err := decode(p, &ev); err != nil {
		return err
	}
	t.milestone("domcontentloaded", ev.Timestamp.Float64())
	return nil
}

// onLoad records Page.loadEventFired.
func (t *tab) onLoad(p []byte) error {
	var ev page.EventLoadEventFired
	if err := decode(p, &ev); err != nil {
		return err
	}
	t.milestone("load", ev.Timestamp.Float64())
	return nil
}

// milestone stores a load milestone of the current page at monotonic time ts.
func (t *tab) milestone(event string, ts float64) {
	n := Navigation{Event: event}
	t.mu.Lock()
	n.URL, n.Time = t.pageURL, t.wallFromMono(ts)
	if t.navStart > 0 {
		n.SinceStartMs = roundMs((ts - t.navStart) * 1000)
	}
	t.mu.Unlock()
	store(t, t.navigations, kNavigation, n)
}
