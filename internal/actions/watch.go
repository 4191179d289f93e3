package actions

import (
	"context"
	"fmt"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// watcher records the tab's events during one action: dialogs,
// navigations and, without capture, errors and failed requests. It starts
// no goroutine: events wait in their subscription's buffer until the
// action drains them (drain, or the waits below), so that what the action
// saw is exactly what arrived before each of its steps answered.
type watcher struct {
	subs    map[string]<-chan jsonv2.Value
	order   []string // drain order of subs (see watch)
	cancels []func()

	dialogs []DialogInfo
	// windowOpens counts the windows the page opened (Page.windowOpen).
	windowOpens int
	navigated   bool   // a new main-frame document
	sameDoc     bool   // a same-document navigation of the main frame (pushState, fragment)
	requested   bool   // the page asked for a main-frame navigation (a link, location.href)
	stopped     bool   // the main frame stopped loading
	url         string // the main frame's url after its last navigation
	mainFrame   cdproto.FrameID
	errors      []string
	failed      []string
}

// watch subscribes to the tab session's events; errs adds console errors,
// exceptions and failed requests (when capture is not wired).
func (e *Engine) watch(s cdproto.Session, mainFrame cdproto.FrameID, errs bool) *watcher {
	w := &watcher{subs: map[string]<-chan jsonv2.Value{}, mainFrame: mainFrame}
	// Each method has its own channel, so the order between methods is
	// lost; drain restores what matters: a FrameStoppedLoading of the
	// previous load that is still buffered when a link is followed must be
	// read before the request (it is older), or it would end the wait for
	// the new document at once. Stops are drained first, then requests,
	// then navigations.
	methods := []string{page.FrameStoppedLoading.Method, page.FrameRequestedNavigation.Method, page.JavascriptDialogOpening.Method,
		page.FrameNavigated.Method, page.NavigatedWithinDocument.Method, page.WindowOpen.Method}
	if errs {
		methods = append(methods, runtime.ExceptionThrown.Method, runtime.ConsoleAPICalled.Method,
			network.LoadingFailed.Method, network.ResponseReceived.Method)
	}
	for _, m := range methods {
		ch, cancel := s.Subscribe(m)
		w.subs[m] = ch
		w.order = append(w.order, m)
		w.cancels = append(w.cancels, cancel)
	}
	return w
}

// drain records every event already delivered.
func (w *watcher) drain() {
	for _, m := range w.order {
		ch, ok := w.subs[m]
		if !ok {
			continue
		}
		for more := true; more; {
			select {
			case raw, ok := <-ch:
				if !ok {
					delete(w.subs, m)
					more = false
					continue
				}
				w.event(m, raw)
			default:
				more = false
			}
		}
	}
}

// stop records what is left and ends the subscriptions.
func (w *watcher) stop() {
	w.drain()
	for _, c := range w.cancels {
		c()
	}
}

// dialogOpened reports a dialog seen so far.
func (w *watcher) dialogOpened() bool {
	w.drain()
	return len(w.dialogs) > 0
}

// lastDialog is the last dialog seen so far.
func (w *watcher) lastDialog() DialogInfo {
	w.drain()
	if len(w.dialogs) == 0 {
		return DialogInfo{}
	}
	return w.dialogs[len(w.dialogs)-1]
}

// dialog returns the dialog subscription (nil once closed: never ready).
func (w *watcher) dialog() <-chan jsonv2.Value { return w.subs[page.JavascriptDialogOpening.Method] }

// next waits for one main-frame navigation event (a new document, a
// same-document change, or the frame stopping to load) or ctx's end, and
// records it. It reports false when ctx ended or the tab went away.
func (w *watcher) next(ctx context.Context) bool {
	nav, same, stop := w.subs[page.FrameNavigated.Method], w.subs[page.NavigatedWithinDocument.Method], w.subs[page.FrameStoppedLoading.Method]
	if nav == nil {
		return false
	}
	var m string
	var raw jsonv2.Value
	var ok bool
	select {
	case raw, ok = <-nav:
		m = page.FrameNavigated.Method
	case raw, ok = <-same:
		m = page.NavigatedWithinDocument.Method
	case raw, ok = <-stop:
		m = page.FrameStoppedLoading.Method
	case <-ctx.Done():
		return false
	}
	if !ok {
		delete(w.subs, page.FrameNavigated.Method)
		return false
	}
	w.event(m, raw)
	return true
}

// awaitRequested waits (bounded) for a navigation the page requested
// during the action to commit or stop: an action that follows a link
// answers with where it went.
func (w *watcher) awaitRequested(ctx context.Context, bound time.Duration) {
	w.drain()
	if w.requested {
		w.await(ctx, bound, func() bool { return w.navigated || w.stopped })
	}
}

// await reads main-frame navigation events until done holds, bounded.
func (w *watcher) await(ctx context.Context, bound time.Duration, done func() bool) {
	w.drain()
	if done() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for !done() && w.next(ctx) {
	}
	// next picks at random among events that are ready at once: the new
	// document's FrameStoppedLoading may be read before its FrameNavigated,
	// which is already buffered (the link delivers them in order). Read it.
	w.drain()
}

// awaitURLEvent waits (bounded) for the navigation event behind a URL
// change the action's page probe already saw. The probe's answer comes
// from the renderer and the navigation events may arrive after it (seen
// about one click in five that followed a link): without this wait the
// answer would say the URL changed but not that the document did, and
// refs would not be reported stale.
func (w *watcher) awaitURLEvent(ctx context.Context, bound time.Duration) {
	w.await(ctx, bound, func() bool { return w.navigated || w.sameDoc })
}

func (w *watcher) event(method string, raw jsonv2.Value) {
	switch method {
	case page.WindowOpen.Method: // the page opens a tab or window: the tab manager adopts it
		w.windowOpens++
	case page.JavascriptDialogOpening.Method:
		var ev page.EventJavascriptDialogOpening
		if jsonv2.Unmarshal(raw, &ev) == nil {
			w.dialogs = append(w.dialogs, DialogInfo{Type: string(ev.Type), Message: clip(ev.Message, 200), DefaultPrompt: ev.DefaultPrompt, Open: true})
		}
	case page.FrameNavigated.Method:
		var ev page.EventFrameNavigated
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.Frame != nil && ev.Frame.ParentID == "" {
			w.navigated, w.url, w.mainFrame = true, ev.Frame.URL+ev.Frame.URLFragment, ev.Frame.ID
		}
	case page.NavigatedWithinDocument.Method:
		var ev page.EventNavigatedWithinDocument
		if jsonv2.Unmarshal(raw, &ev) == nil && (w.mainFrame == "" || ev.FrameID == w.mainFrame) {
			w.url, w.sameDoc = ev.URL, true
		}
	case page.FrameRequestedNavigation.Method:
		var ev page.EventFrameRequestedNavigation
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.FrameID == w.mainFrame && ev.Disposition == page.ClientNavigationDispositionCurrentTab {
			w.requested = true
		}
		if err := jsonv2.Unmarshal(raw, &ev); err == nil && (ev.Disposition == page.ClientNavigationDispositionNewTab || ev.Disposition == page.ClientNavigationDispositionNewWindow) {
			w.windowOpens++ // a middle- or modified click on a link: no Page.windowOpen
		}
	case page.FrameStoppedLoading.Method:
		var ev page.EventFrameStoppedLoading
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.FrameID == w.mainFrame && w.requested {
			w.stopped = true
		}
	case runtime.ExceptionThrown.Method:
		var ev runtime.EventExceptionThrown
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.ExceptionDetails != nil {
			msg := ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
				msg += " " + strings.SplitN(ex.Description, "\n", 2)[0]
			}
			w.errors = append(w.errors, clip(msg, 200))
		}
	case runtime.ConsoleAPICalled.Method:
		var ev runtime.EventConsoleAPICalled
		if jsonv2.Unmarshal(raw, &ev) == nil && (ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert) {
			w.errors = append(w.errors, clip("console.error: "+argsText(ev.Args), 200))
		}
	case network.LoadingFailed.Method:
		var ev network.EventLoadingFailed
		if jsonv2.Unmarshal(raw, &ev) == nil && !ev.Canceled {
			w.failed = append(w.failed, fmt.Sprintf("%s request failed: %s", ev.Type, ev.ErrorText))
		}
	case network.ResponseReceived.Method:
		var ev network.EventResponseReceived
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.Response != nil && ev.Response.Status >= 400 && !isFavicon(ev.Response.URL) {
			w.failed = append(w.failed, fmt.Sprintf("%s → %d", clip(ev.Response.URL, 120), ev.Response.Status))
		}
	}
}

func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		var s string
		if a.Type == runtime.RemoteObjectTypeString && jsonv2.Unmarshal(a.Value, &s) == nil {
			parts = append(parts, s)
		} else if len(a.Value) > 0 {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// clip shortens s to at most n runes, marking the cut with "…". The cut
// never splits a run that could be a secret (redact.SafeCut): the
// gateway redacts the answer afterwards and would not recognise half a
// token.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return s[:redact.SafeCut(s, len(string(r[:n-1])))] + "…"
}
