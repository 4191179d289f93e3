package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// A click into a frame is confirmed where it lands. The checks before it
// (hitCheck: DOM.getNodeForLocation in the frame's session and in its
// parent's) ask the renderers, which answer from the layout they have now;
// but Chrome's browser process routes a mouse event into an out-of-process
// frame by where the parent last drew that frame (its compositor's hit-test
// data). Right after the frame moved, or before the tab has drawn since it
// was shown, both checks pass and the press lands elsewhere: on whatever
// the frame now shows at the old spot, or on the iframe element in the
// parent. So the target's frame and the parent are armed before the press
// (capture listeners on their windows, in Gasoline's world) and read after
// the release: the click is answered as done only when the frame saw its
// press land on the target. A press that landed elsewhere is stopped there
// (preventDefault and stopImmediatePropagation on the press, release and
// click), the engine waits for the tab's next drawn frame and tries again
// (clickTries in all); anything else is an error, never "clicked".

// clickTries bounds the tries of a click whose press was stopped off its
// target.
const clickTries = 5

// frameWait bounds the wait for the tab's next drawn frame between tries
// (a tab that draws nothing, in the background, does not hold the click).
const frameWait = 1500 * time.Millisecond

// drawnAfter is how long after a frame began the retry waits for it to be
// drawn.
const drawnAfter = 50 * time.Millisecond

// pressEvents are the events of a click that an arm watches and stops.
const pressEvents = `['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu']`

// armJS arms a window for one click. On the target (this, with target
// set) the first trusted press decides: the empty string when it hit the
// target, something in it or its label, else what it hit. In the parent
// (a context call) any press is one that missed the frame. Every trusted
// event of a click that missed is stopped.
const armJS = `function (life, target) {
  const G = globalThis.__gasolineActions, el = target ? this : null, win = el ? el.ownerDocument.defaultView : window;
  const arm = { v: null };
  const on = (e) => {
    if (!e.isTrusted) return;
    if (arm.v === null) {
      let h = e.composedPath()[0];
      if (h && h.nodeType === 3) h = h.parentElement;
      arm.v = el && h && h.nodeType === 1 ? G.hit(el, h) : G.describe(h) || 'the page';
    }
    if (arm.v !== '') { e.preventDefault(); e.stopImmediatePropagation(); }
  };
  for (const t of ` + pressEvents + `) win.addEventListener(t, on, true);
  arm.stop = () => { for (const t of ` + pressEvents + `) win.removeEventListener(t, on, true); return arm.v; };
  setTimeout(arm.stop, life);
  return arm;
}`

const disarmJS = `function () { return this.stop() }`

// armLife is how long an arm listens at most: one left behind (a dialog
// opened during the click and blocks the frame) stops by itself.
const armLife = 10 * time.Second

// nextFrameJS resolves a little after the page began a new frame (time
// for Chrome to draw it and update where it routes input), or at the
// bound. A background tab draws about once a second.
const nextFrameJS = `function (bound, after) {
  return new Promise((r) => {
    const t = setTimeout(r, bound);
    requestAnimationFrame(() => { clearTimeout(t); setTimeout(r, after); });
  });
}`

// aimed is a click's point and what it aims at (el nil for a point).
type aimed struct {
	x, y float64
	desc string
	el   *elem
	off  offset
}

// missError is a confirmed click that did not reach its target.
type missError struct {
	at        aimed
	where     string // what the press hit ("" unknown)
	inFrame   bool   // where is in the target's frame, else in the parent
	contained bool   // the press, release and click were stopped there
}

func (m *missError) Error() string { return "the click missed " + m.at.desc }

// clickTarget aims (aim, again before every try) and clicks, retrying a
// press that was stopped off its target once the tab drew a new frame.
func (a *act) clickTarget(ctx context.Context, aim func() (aimed, error), m mouse) (string, error) {
	var miss *missError
	for try := 1; ; try++ {
		at, err := aim()
		if err != nil {
			return "", err
		}
		a.settle()
		err = a.clickChecked(ctx, at, m)
		if !errors.As(err, &miss) {
			return at.desc, err
		}
		if !miss.contained || try == clickTries {
			return at.desc, missed(miss, try)
		}
		a.nextFrame(ctx)
	}
}

// clickChecked clicks at the aimed point; a click into a frame is armed
// before and confirmed after (missError when it missed).
func (a *act) clickChecked(ctx context.Context, at aimed, m mouse) error {
	if at.el == nil {
		return a.click(ctx, at.x, at.y, m)
	}
	if main, err := a.isMainWorld(ctx, at.el); err != nil || main {
		if err != nil {
			return err
		}
		return a.click(ctx, at.x, at.y, m)
	}
	el := at.el
	if err := a.handle(ctx, el); err != nil {
		return err
	}
	arm, err := call(ctx, el.s, jsCall{fn: armJS, object: el.obj, args: []any{armLife.Milliseconds(), true}}, asHandle)
	if err != nil {
		return err
	}
	ps, parent := a.armParent(ctx, at)
	err = a.click(ctx, at.x, at.y, m)
	if errors.Is(err, errDialogOpened) {
		return err // the press did something; the arms expire by themselves (armLife)
	}
	var v, pv *string
	verr := callValue(ctx, el.s, jsCall{fn: disarmJS, object: arm.ObjectID}, &v)
	if parent != "" {
		_ = callValue(ctx, ps, jsCall{fn: disarmJS, object: parent}, &pv)
	}
	switch {
	case err != nil:
		return err
	case errors.Is(verr, errWorldGone):
		return unconfirmed(at)
	case verr != nil:
		return fmt.Errorf("confirming the click on %s: %w", at.desc, verr)
	case v != nil && *v == "":
		return nil
	case v != nil:
		return &missError{at: at, where: *v, inFrame: true, contained: true}
	case pv != nil:
		return &missError{at: at, where: *pv, contained: true}
	}
	return &missError{at: at}
}

// armParent arms the root window of the session holding the target's
// frame (the parent of an out-of-process frame; the tab's for a frame in
// the tab's process). Best effort: "" when it cannot be armed.
func (a *act) armParent(ctx context.Context, at aimed) (cdproto.Session, runtime.RemoteObjectID) {
	sid := ""
	if at.el.sid != "" {
		sid = at.off.ownerSid
	}
	ec, _, err := a.world(ctx, sid, "")
	if err != nil {
		return nil, ""
	}
	s := a.e.session(a.tab, sid)
	o, err := call(ctx, s, jsCall{fn: armJS, context: ec, args: []any{armLife.Milliseconds(), false}}, asHandle)
	if err != nil {
		return nil, ""
	}
	return s, o.ObjectID
}

// nextFrame waits (bounded by frameWait) until the tab drew a new frame,
// so that Chrome routes input by where the page is now.
func (a *act) nextFrame(ctx context.Context) {
	ec, _, err := a.world(ctx, "", "")
	if err != nil {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, frameWait+100*time.Millisecond)
	defer cancel()
	var done any
	_ = callValue(wctx, a.s, jsCall{fn: nextFrameJS, context: ec, args: []any{frameWait.Milliseconds(), drawnAfter.Milliseconds()}, await: true}, &done)
}

// missed is the agent's error for a click that did not reach its target.
func missed(m *missError, tries int) *tools.Error {
	at := fmt.Sprintf("the click at (%.0f, %.0f) meant for %s", m.at.x, m.at.y, m.at.desc)
	times := ""
	if tries > 1 {
		times = fmt.Sprintf(" (%d tries)", tries)
	}
	if !m.contained {
		return &tools.Error{Code: CodeClickMissed, Retryable: true, NextAction: nextSnapshot,
			Message: fmt.Sprintf("%s did not reach it: neither its frame nor the page around the frame received the press, so where it landed is unknown; take a new snapshot to see the page before retrying", at)}
	}
	where := "in the page around its frame (Chrome routed it by where it last drew the frame)"
	if m.inFrame {
		where = "in its frame (the frame had moved since Chrome last drew it)"
	}
	return &tools.Error{Code: CodeClickMissed, Retryable: true, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s landed on %s %s%s; Gasoline stopped it there, so nothing was clicked; wait_for the page to stop moving, or take a new snapshot, then retry", at, m.where, where, times)}
}

// unconfirmed is the error for a click into a frame whose document was
// replaced before the click could be confirmed.
func unconfirmed(at aimed) *tools.Error {
	return &tools.Error{Code: tools.CodePageChanged, NextAction: nextSnapshot,
		Message: fmt.Sprintf("the click at (%.0f, %.0f) on %s could not be confirmed: its frame's document was replaced right after the press (the click may have navigated it); take a new snapshot to see what the frame shows before acting again", at.x, at.y, at.desc)}
}
