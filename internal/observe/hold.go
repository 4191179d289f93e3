package observe

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Why a capture holds a screencast open.
//
// Chrome paints a background tab (the agent's tabs are background tabs)
// only while something captures it. Page.captureScreenshot takes such a
// hold for itself: the widget turns "hidden but painting", and the capture
// asks for a new frame and copies it. The first capture after the tab went
// back to hidden waits for a frame that the switch to painting does not
// produce; the next capture request produces it and both answer (measured
// with raw CDP on Chromium 156: every other capture of a background tab
// stalls until another one is sent, with or without optimizeForSpeed, a
// clip, captureBeyondViewport or a DOM change before it; a visible tab
// never stalls). A screencast is a capture hold of its own: with one open,
// the tab is painting before the screenshot is asked for, and no capture
// stalls. The screencast sends no frames (everyNthFrame is beyond any
// capture's life).
//
// Every capture asks for the hold in its own cdp.sequence, beside the
// mask (a step that may fail: Chrome answers "already active" when the
// hold is still open), so a hold that went away with the debugger is
// taken again and no capture goes without one. The hold outlives the
// capture by holdLinger: switching a hidden tab to painting costs the
// capture that does it a frame and the page's main thread a few ms, which
// captures in a row (an agent's screenshot loop, analyze visual_diff) then
// pay once. After holdLinger with no capture, the tab's capture lock stops
// it, so a background tab paints only while it is captured and for
// holdLinger after.
var holdParams = page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, Quality: ptr(int64(1)),
	MaxWidth: 8, MaxHeight: 8, EveryNthFrame: 1 << 30, MaxFramesInFlight: 1}

// holdLinger is how long a tab's hold stays open after its last capture.
const holdLinger = 500 * time.Millisecond

// shotLock serializes captures of one tab: the screencast that keeps a tab
// painting is the tab's, so two captures must not start and stop it under
// each other. The tab's target holds it (shotPart), with what the tab's
// captures learnt: after its page changed under an unpainted capture
// (mask.go), its next captures paint at once rather than pay for a capture
// they would throw away; and the hold a capture left open, which its timer
// stops after holdLinger.
type shotLock struct {
	ch    chan struct{}
	ctx   context.Context // the target's: the hold's stop ends with the tab
	paint int             // captures left to paint without watching first; read and written under ch
	// The hold a capture of this daemon started, when it may still be
	// open, the session it was started in, and the timer that stops it;
	// gen tells the timer whether a capture came since it was set. All
	// read and written under ch.
	hold  *cdp.Session
	timer *time.Timer
	gen   int
}

// paintAfterChange is how many captures of a tab paint the mask at once
// after its page changed under an unpainted one.
const paintAfterChange = 8

// watching reports whether the tab's next capture may watch a page with
// nothing to mask rather than paint it. Call it holding the lock.
func (l *shotLock) watching() bool {
	if l.paint > 0 {
		l.paint--
		return false
	}
	return true
}

// changed records that the tab's page changed under an unpainted capture.
// Call it holding the lock.
func (l *shotLock) changed() { l.paint = paintAfterChange }

// held records the outcome of a capture's request for the hold in session
// s and reports whether the tab is held painting: Chrome started the
// screencast, or one was open already (this daemon's, kept by holdLinger,
// or another client's of the same debugger session, such as a trace's).
// Call it holding the lock.
func (l *shotLock) held(s *cdp.Session, r cdp.StepResult) error {
	_, err := cdp.ResultOf(page.StartScreencast, r)
	switch {
	case err == nil:
		l.hold = s
		return nil
	case cdp.ScreencastActive(err):
		return nil
	}
	return tabs.ToolError(err)
}

// linger arms the timer that stops the hold holdLinger after this
// capture, when the hold is this daemon's. Call it holding the lock, as
// the capture ends.
func (l *shotLock) linger() {
	l.gen++
	if l.hold == nil {
		return
	}
	gen := l.gen
	if l.timer != nil {
		l.timer.Stop()
	}
	l.timer = time.AfterFunc(holdLinger, func() { l.release(gen) })
}

// release stops the hold unless a capture came since the timer was set
// (gen) or the tab closed.
func (l *shotLock) release(gen int) {
	select {
	case l.ch <- struct{}{}:
	case <-l.ctx.Done():
		return
	}
	defer func() { <-l.ch }()
	if l.gen != gen || l.hold == nil {
		return
	}
	s := l.hold
	l.hold = nil
	ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
	defer cancel()
	_ = s.Call(ctx, page.StopScreencast.Method, nil, nil) // a tab that closed or detached has no hold left
}

// Close stops the timer of a closed tab (target.Part).
func (l *shotLock) Close() {
	select {
	case l.ch <- struct{}{}:
		defer func() { <-l.ch }()
		if l.timer != nil {
			l.timer.Stop()
		}
	default: // a capture or a stop runs: the tab's context ends it
	}
}

var shotPart = target.NewPart("screenshot lock", func(t *target.Target) *shotLock {
	return &shotLock{ch: make(chan struct{}, 1), ctx: t.Context()}
})

// lockShot holds the tab's capture lock until unlock is called.
func (o *Observer) lockShot(ctx context.Context, tab int) (l *shotLock, unlock func(), err error) {
	l = shotPart.Of(o.cfg.Tabs.Target(tab))
	select {
	case l.ch <- struct{}{}:
		return l, func() { l.linger(); <-l.ch }, nil
	case <-ctx.Done():
		return nil, nil, tabs.ToolError(ctx.Err())
	}
}
