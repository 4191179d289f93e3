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
// (confirmTries and confirmWindow); anything else is an error, never
// "clicked".
//
// A page's own capture listener on its window, registered before the arm
// (every page loaded before Gasoline attached), runs first: one that stops
// the press (editors, drag libraries, analytics handling clicks at the
// window) keeps it from the arm although the page got it and acted on it.
// Listeners of every world on a target run in the order they were added
// and stopImmediatePropagation stops them all (seen in Chromium 156), so
// no listener added at click time can precede it. What the page cannot
// stop is counted instead: performance.eventCounts, which Chrome bumps as
// it dispatches each trusted press event, before any listener runs, and
// :hover, which the press's hit test sets. An arm reads both: when the
// window received more press events than its listener saw, the page took
// them first, and the pointer's place says where the press landed (on the
// target: clicked; elsewhere: it may have clicked there, never "nothing
// was clicked").

// confirmTries and confirmWindow bound the tries of a click whose press
// was stopped off its target, or of a hover whose move landed off it: at
// least confirmTries, and more until confirmWindow has passed since the
// first (at most confirmMaxTries). The tab is held painting between tries
// (paint.go), so a try takes a frame or two rather than the second a
// background tab took to draw; a frame that has not drawn yet (a fresh
// out-of-process frame on a loaded machine: five presses in ~0.4 s all
// routed to the iframe element) still gets the time it had.
const (
	confirmTries    = 5
	confirmWindow   = 1500 * time.Millisecond
	confirmMaxTries = 30
)

// frameWait bounds the wait for the tab's next drawn frame between tries
// (a tab that draws nothing, in the background, does not hold the click).
const frameWait = 1500 * time.Millisecond

// drawnAfter is how long after a frame began the retry waits for it to be
// drawn.
const drawnAfter = 50 * time.Millisecond

// pressEvents are the events of a click that an arm watches and stops.
const pressEvents = `['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu']`

// armJS arms a window for one click (this is the target, or its wrapper,
// with target set). The first trusted press event the listener sees
// decides: on the target, the empty string when it hit the target,
// something in it or its label, else what it hit; in the parent (a
// context call) any press is one that missed the frame. Every trusted
// event of a click that missed is stopped. stop() answers {hit, took}:
// took when the window received press events the listener did not see
// (the page stopped them first); hit is then, if the listener saw none,
// where the pointer is (null: not over the window's document).
const armJS = `function (life, target) {
  const G = globalThis.__gasolineActions, el = target ? (this.nodeType ? this : this.el) : null;
  const win = el ? el.ownerDocument.defaultView : window, counts = win.performance && win.performance.eventCounts;
  const types = ` + pressEvents + `;
  const pressed = () => counts ? types.reduce((n, t) => n + (counts.get(t) || 0), 0) : 0;
  const arm = { v: null, seen: 0, before: pressed() };
  const on = (e) => {
    if (!e.isTrusted) return;
    arm.seen++;
    if (arm.v === null) {
      let h = e.composedPath()[0];
      if (h && h.nodeType === 3) h = h.parentElement;
      arm.v = el && h && h.nodeType === 1 ? G.hit(el, h) : G.place(h) || 'the page';
    }
    if (arm.v !== '') { e.preventDefault(); e.stopImmediatePropagation(); }
  };
  for (const t of types) win.addEventListener(t, on, true);
  arm.stop = () => {
    for (const t of types) win.removeEventListener(t, on, true);
    const took = pressed() - arm.before > arm.seen;
    let hit = arm.v;
    if (hit === null && took) {
      const h = G.hovered(win.document);
      hit = el ? G.pointed(el) : h && G.place(h);
    }
    return { hit, took };
  };
  setTimeout(arm.stop, life);
  return arm;
}`

const disarmJS = `function () { return this.stop() }`

// armRead is what an arm saw of a click (armJS's stop).
type armRead struct {
	Hit  *string `json:"hit"`  // what the press hit: "" the target; nil unknown
	Took bool    `json:"took"` // the page took press events before the arm saw them
}

// armLife is how long an arm listens at most: one left behind (a dialog
// opened during the click and blocks the frame) stops by itself.
const armLife = 10 * time.Second

// nextFrameJS resolves a little after the page began a new frame (time
// for Chrome to draw it and update where it routes input), or at the
// bound. A background tab draws about once a second, so nextFrame holds
// it painting first (paint.go).
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

// missError is a confirmed click or hover that did not reach its target.
type missError struct {
	at        aimed
	hover     bool   // a hover's move, else a click's press
	where     string // what the press or the pointer hit ("" unknown)
	inFrame   bool   // where is in the target's frame, else in the parent
	contained bool   // nothing was done there (the click's events stopped; a move): tried again
	taken     bool   // the page took the press before Gasoline could stop it
	unwatched bool   // the page around the frame could not be armed: a press there is unseen
}

func (m *missError) Error() string { return "the action missed " + m.at.desc }

// untilOnTarget aims (aim, again before every try) and acts (try), trying
// again once the tab drew a new frame while the act missed its target
// without doing anything there (a click's press stopped off its target, a
// hover's move).
func (a *act) untilOnTarget(ctx context.Context, aim func() (aimed, error), try func(aimed) error) (string, error) {
	var miss *missError
	start := a.e.now()
	for n := 1; ; n++ {
		at, err := aim()
		if err != nil {
			return "", err
		}
		a.settle()
		err = try(at)
		if !errors.As(err, &miss) {
			return at.desc, err
		}
		if !miss.contained {
			return at.desc, miss.toolErr(n)
		}
		if took := a.e.now().Sub(start); n >= confirmMaxTries || n >= confirmTries && took >= confirmWindow {
			return at.desc, miss.toolErr(n)
		}
		a.nextFrame(ctx)
	}
}

// clickTarget aims and clicks, retrying a press that was stopped off its
// target once the tab drew a new frame.
func (a *act) clickTarget(ctx context.Context, aim func() (aimed, error), m mouse) (string, error) {
	return a.untilOnTarget(ctx, aim, func(at aimed) error { return a.clickChecked(ctx, at, m) })
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
	arm, err := call(ctx, el.s, jsCall{fn: armJS, object: el.handleOrWrap(), args: []any{armLife.Milliseconds(), true}}, asHandle)
	if err != nil {
		return err
	}
	ps, parent := a.armParent(ctx, at)
	err = a.click(ctx, at.x, at.y, m)
	if errors.Is(err, errDialogOpened) {
		return err // the press did something; the arms expire by themselves (armLife)
	}
	var f, p armRead
	verr := callValue(ctx, el.s, jsCall{fn: disarmJS, object: arm.ObjectID}, &f)
	if parent != "" {
		_ = callValue(ctx, ps, jsCall{fn: disarmJS, object: parent}, &p)
	}
	switch {
	case err != nil:
		return err
	case errors.Is(verr, errWorldGone):
		return unconfirmed(at, "click")
	case verr != nil:
		return fmt.Errorf("confirming the click on %s: %w", at.desc, verr)
	}
	return pressLanded(at, f, p, parent != "")
}

// pressLanded answers where a confirmed click's press landed, by what the
// frame's arm (f) and the parent's (p, when watched) saw: nil on the
// target.
func pressLanded(at aimed, f, p armRead, watched bool) error {
	switch {
	case f.Hit != nil && *f.Hit == "":
		return nil
	case f.Hit != nil || f.Took:
		return &missError{at: at, where: deref(f.Hit), inFrame: true, contained: !f.Took, taken: f.Took}
	case p.Hit != nil || p.Took:
		return &missError{at: at, where: deref(p.Hit), contained: !p.Took, taken: p.Took}
	}
	return &missError{at: at, unwatched: !watched}
}

// armParent arms the root window of the session holding the target's
// frame (the parent of an out-of-process frame; the tab's for a frame in
// the tab's process). Best effort: "" when it cannot be armed.
func (a *act) armParent(ctx context.Context, at aimed) (cdproto.Session, runtime.RemoteObjectID) {
	s, ec, err := a.parentWorld(ctx, at)
	if err != nil {
		return nil, ""
	}
	o, err := call(ctx, s, jsCall{fn: armJS, context: ec, args: []any{armLife.Milliseconds(), false}}, asHandle)
	if err != nil {
		return nil, ""
	}
	return s, o.ObjectID
}

// parentWorld is Gasoline's world in the root frame of the session holding
// the target's frame.
func (a *act) parentWorld(ctx context.Context, at aimed) (cdproto.Session, runtime.ExecutionContextID, error) {
	sid := ""
	if at.el.sid != "" {
		sid = at.off.ownerSid
	}
	ec, _, err := a.world(ctx, sid, "")
	return a.e.session(a.tab, sid), ec, err
}

// nextFrame waits (bounded by frameWait) until the tab drew a new frame,
// so that Chrome routes input by where the page is now.
func (a *act) nextFrame(ctx context.Context) {
	ec, _, err := a.world(ctx, "", "")
	if err != nil {
		return
	}
	a.painting(ctx) // the next frame then comes at the display's rate
	wctx, cancel := context.WithTimeout(ctx, frameWait+100*time.Millisecond)
	defer cancel()
	var done any
	_ = callValue(wctx, a.s, jsCall{fn: nextFrameJS, context: ec, args: []any{frameWait.Milliseconds(), drawnAfter.Milliseconds()}, await: true}, &done)
}

// toolErr is the agent's error for an act that missed its target after
// tries.
func (m *missError) toolErr(tries int) *tools.Error {
	if m.hover {
		return hoverMissed(m, tries)
	}
	at := fmt.Sprintf("the click at (%.0f, %.0f) meant for %s", m.at.x, m.at.y, m.at.desc)
	if m.taken {
		return clickTaken(at, m)
	}
	if !m.contained && m.unwatched {
		return &tools.Error{Code: CodeClickUnconfirmed, NextAction: nextSnapshot,
			Message: fmt.Sprintf("%s did not reach its frame, and the page around the frame could not be watched, so the press may have clicked something there; take a new snapshot to see what the page did before acting again (clicking again may act twice)", at)}
	}
	if !m.contained {
		return &tools.Error{Code: CodeClickMissed, Retryable: true, NextAction: nextSnapshot,
			Message: fmt.Sprintf("%s did not reach it: neither its frame nor the page around the frame received the press, so where it landed is unknown; take a new snapshot to see the page before retrying", at)}
	}
	return &tools.Error{Code: CodeClickMissed, Retryable: true, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s landed on %s %s%s; Gasoline stopped it there, so nothing was clicked; wait_for the page to stop moving, or take a new snapshot, then retry", at, m.where, missPlace(m), times(tries))}
}

// missPlace says where a missed press or move landed and why.
func missPlace(m *missError) string {
	if m.inFrame {
		return "in its frame (the frame had moved since Chrome last drew it)"
	}
	return "in the page around its frame (Chrome routed it by where it last drew the frame)"
}

func times(tries int) string {
	if tries > 1 {
		return fmt.Sprintf(" (%d tries)", tries)
	}
	return ""
}

// clickTaken is the error for a press the page took before Gasoline could
// see or stop it, off the target or somewhere unknown: it may have acted.
func clickTaken(at string, m *missError) *tools.Error {
	where := "reached its frame, but the page took the press before Gasoline could see where it landed (its own listener on the window stopped it), so it may have clicked there"
	switch {
	case m.where != "":
		where = fmt.Sprintf("landed on %s %s, and the page's own listener on the window took the press before Gasoline could stop it, so it may have clicked %s", m.where, missPlace(m), m.where)
	case !m.inFrame:
		where = "landed in the page around its frame (Chrome routed it by where it last drew the frame), and the page took the press before Gasoline could see or stop it, so it may have clicked there"
	}
	return &tools.Error{Code: CodeClickUnconfirmed, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s %s; take a new snapshot to see what the page did before acting again (clicking again may act twice)", at, where)}
}

// unconfirmed is the error for a click or hover into a frame whose
// document was replaced before it could be confirmed.
func unconfirmed(at aimed, what string) *tools.Error {
	return &tools.Error{Code: tools.CodePageChanged, NextAction: nextSnapshot,
		Message: fmt.Sprintf("the %s at (%.0f, %.0f) on %s could not be confirmed: its frame's document was replaced right after it (the %s may have navigated it); take a new snapshot to see what the frame shows before acting again", what, at.x, at.y, at.desc, what)}
}
