package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// navWait bounds how long an action waits for a navigation it caused
// (a followed link) to commit before answering.
const navWait = 5 * time.Second

// releaseEvery is how many actions pass between releases of the handles
// actions leave in the page (one round trip, so not after every action).
const releaseEvery = 64

// act is one action running on a tab with the tab's lock held.
type act struct {
	mask   []string // sensitive selectors (internal/sensitive)
	e      *Engine
	tab    int
	t      *tabState
	s      cdproto.Session // the tab's own session
	res    *Result
	w      *watcher
	gen    int
	probe  *probe
	before *pageState // the before probe, when the first step read it already
	after  *pageState // the after probe, when a step read it already
	// settled is the main frame's url and title read once what the
	// action set moving stopped (settleAnimations): the after probe,
	// unless the tab navigated or a dialog opened since.
	settled *pageState
	lazy    bool // the first step may supply before; settle probes otherwise
	ctx     context.Context
	// unpaint lets go of the tab's screencast hold (painting), nil when
	// the action did not take it.
	unpaint func()
}

// runOpts shape one action.
type runOpts struct {
	probe      bool // read url and title before and after (one round trip each)
	lazy       bool // with probe: the action's first step reads before (main-frame selectors)
	dialogOK   bool // runs while a dialog is open (handle_dialog)
	keepCursor bool // report what capture stored since the last action, not only during this one
}

// pageState is what the probes read.
type pageState struct {
	URL   string `json:"u"`
	Title string `json:"t"`
}

type probe struct {
	done chan struct{}
	st   pageState
	err  error
}

// errDialogOpened ends a step that a JavaScript dialog blocked; the action
// reports the dialog instead of failing.
var errDialogOpened = errors.New("actions: a dialog opened")

// heldKey marks a context whose caller holds the tab's lock (a batch):
// its actions run without queueing again.
type heldKey struct{}

// run takes the tab's lock (in arrival order, bounded by ctx), runs fn and
// fills in what changed.
func (e *Engine) run(ctx context.Context, tab int, action string, o runOpts, fn func(ctx context.Context, a *act) error) (*Result, error) {
	start := time.Now()
	t := e.tab(tab)
	if held, _ := ctx.Value(heldKey{}).(int); held != tab {
		if err := t.q.lock(ctx); err != nil {
			return nil, timeoutErr(err, "waiting for the previous action on the tab")
		}
		defer t.q.unlock()
	}
	a := &act{e: e, tab: tab, t: t, s: e.session(tab, ""), res: &Result{Action: action, TabID: tab}}
	mask, err := sensitive.Of(e.cfg.Secrets)
	if err == nil {
		a.mask = mask
		a.syncMask()
		err = a.do(ctx, o, fn)
		if a.unpaint != nil {
			a.unpaint()
		}
	}
	a.res.ElapsedMS = ms(time.Since(start))
	if err != nil {
		return nil, toolErr(err)
	}
	return a.res, nil
}

func (a *act) do(ctx context.Context, o runOpts, fn func(ctx context.Context, a *act) error) error {
	a.ctx = ctx
	if !o.dialogOK {
		if d, ok := a.openDialog(); ok {
			return &tools.Error{Code: CodeDialogOpen, NextAction: nextDialog,
				Message: fmt.Sprintf("a %s dialog (%q) blocks tab %d; answer it with handle_dialog first", d.Type, d.Message, a.tab)}
		}
	}
	var main cdproto.FrameID
	if o.dialogOK {
		// A dialog can block the renderer, and with it Page.getFrameTree
		// (a page that alerts while loading, before any action cached the
		// frame): handle_dialog uses the cached frame only.
		main = a.t.cachedRoot("")
	} else {
		main, _ = a.t.rootFrame(ctx, a.s, "") // cached after the tab's first action
	}
	a.w = a.e.watch(a.s, main, a.e.cfg.Capture == nil)
	defer a.w.stop() // collect may still wait on the subscriptions
	if !o.keepCursor {
		a.skipCaptured()
	}
	a.gen = a.e.cfg.Snapshots.Generation(a.tab)
	if o.probe && !o.lazy {
		a.startProbe(ctx)
	}
	a.lazy = o.probe && o.lazy
	err := fn(ctx, a)
	if err == nil {
		a.w.awaitRequested(ctx, navWait)
	}
	a.w.drain()
	if errors.Is(err, errWorldGone) {
		err = &tools.Error{Code: tools.CodePageChanged, Retryable: true,
			Message: "the page's document was replaced during the action (it navigated); take a new snapshot and retry"}
	}
	var before pageState
	switch {
	case a.before != nil:
		before = *a.before
	case a.probe != nil:
		<-a.probe.done
		before = a.probe.st
	}
	if err != nil {
		return err
	}
	a.collect(ctx, o.probe && (a.probe != nil || a.before != nil), before)
	a.t.actions++
	if a.t.actions%releaseEvery == 0 {
		a.releaseHandles(ctx)
	}
	return nil
}

// openDialog reports a dialog blocking the tab: from capture when wired,
// else one an earlier action saw open.
func (a *act) openDialog() (DialogInfo, bool) {
	if c := a.e.cfg.Capture; c != nil {
		if ds := c.OpenDialogs(a.tab); len(ds) > 0 {
			d := ds[len(ds)-1]
			return DialogInfo{Type: d.Type, Message: d.Message, Open: true}, true
		}
		return DialogInfo{}, false
	}
	return a.t.dialog, a.t.dialog.Open
}

func (a *act) startProbe(ctx context.Context) {
	a.probe = &probe{done: make(chan struct{})}
	go func() {
		defer close(a.probe.done)
		a.probe.st, a.probe.err = readState(ctx, a.s)
	}()
}

// settle makes sure the before probe is done: call it before the first
// command that changes the page.
func (a *act) settle() {
	switch {
	case a.probe != nil:
		<-a.probe.done
	case a.lazy && a.before == nil:
		a.startProbe(a.ctx)
		<-a.probe.done
	}
}

// sawBefore records url and title the first step read in the main
// frame's world, standing in for the before probe.
func (a *act) sawBefore(ctx context.Context, el *elem, url, title string) {
	if a.probe != nil || a.before != nil || url == "" {
		return
	}
	if main, _ := a.isMainWorld(ctx, el); main {
		a.before = &pageState{URL: url, Title: title}
	}
}

const stateJS = `({u: location.href, t: document.title})`

// readState reads the main frame's url and title.
func readState(ctx context.Context, s cdproto.Session) (pageState, error) {
	yes := true
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: stateJS, ReturnByValue: &yes, ObjectGroup: objectGroup})
	if err != nil {
		return pageState{}, err
	}
	var st pageState
	if res.ExceptionDetails == nil {
		err = decode(res.Result, &st)
	}
	return st, err
}

// historyState reads url and title from the browser's history, which a
// dialog does not block.
func historyState(ctx context.Context, s cdproto.Session) (pageState, error) {
	h, err := cdproto.Call(ctx, s, page.GetNavigationHistory, cdproto.Empty{})
	if err != nil || int(h.CurrentIndex) >= len(h.Entries) || h.CurrentIndex < 0 {
		return pageState{}, err
	}
	e := h.Entries[h.CurrentIndex]
	return pageState{URL: e.URL, Title: e.Title}, nil
}

// blocking runs f, a command that a JavaScript dialog can block (input,
// scripts): when a dialog opens first, f is abandoned and errDialogOpened
// returned.
func (a *act) blocking(ctx context.Context, f func(ctx context.Context) error) error {
	if a.w.dialogOpened() {
		return errDialogOpened // the page is blocked already
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(cctx) }()
	dialogs := a.w.dialog()
	for {
		select {
		case err := <-done:
			return err
		case raw, ok := <-dialogs:
			if !ok { // the tab went away: f ends on its own
				dialogs = nil
				continue
			}
			a.w.event(page.JavascriptDialogOpening.Method, raw)
			cancel()
			<-done
			return errDialogOpened
		}
	}
}

// releaseHandles frees the element handles actions left in the tab's
// sessions; failing costs only page memory until the document goes.
func (a *act) releaseHandles(ctx context.Context) {
	a.t.mu.Lock()
	sids := make([]string, 0, len(a.t.mainFrame))
	for sid := range a.t.mainFrame {
		sids = append(sids, sid)
	}
	a.t.mu.Unlock()
	for _, sid := range sids {
		_, _ = cdproto.Call(ctx, a.e.session(a.tab, sid), runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
	}
}
