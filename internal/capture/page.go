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

// onFrameNavigated records Page.frameNavigated of the main frame; child
// frames are ignored.
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
		return nil
	}
	n := Navigation{Event: "navigated"}
	n.URL = limit(f.URL, t.opts.MaxURLBytes, &n.Truncated)
	n.Type = limit(string(ev.Type), maxShortText, &n.Truncated)
	t.mu.Lock()
	t.pageURL, t.navStart = n.URL, 0
	for _, d := range t.docStarts {
		if d.loaderID != "" && d.loaderID == string(f.LoaderID) {
			t.navStart = d.mono
		}
	}
	n.Time = t.opts.Now()
	t.mu.Unlock()
	store(t, t.navigations, kNavigation, n)
	return nil
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
