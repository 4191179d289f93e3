package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/input"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// A hover into a frame is confirmed as a click is (confirm.go): Chrome
// routes the move into an out-of-process frame by where the parent last
// drew it, so right after the frame moved the move lands on another
// element (the wrong menu opens) while both renderers' hit tests pass.
// After the move, the target's frame is asked where the pointer is: its
// :hover state, which Chrome sets as it dispatches the move, before any
// listener runs and whatever they do (a listener armed for mouseover
// could be stopped by the page's own, registered earlier; :hover cannot;
// one look, where arming would cost two round trips more). A move
// that landed elsewhere is tried again once the tab drew a new frame
// (untilOnTarget: confirmTries and confirmWindow), then hover_missed. A main-frame
// hover is one move, as before: no check, no round trip more. Drag is not
// confirmed.

// HoverArgs are hover's arguments.
type HoverArgs struct{ Target }

// Hover moves the mouse over an element (its center, after scrolling it
// into view and checking nothing covers it).
func (e *Engine) Hover(ctx context.Context, tab int, args HoverArgs) (*Result, error) {
	return e.run(ctx, tab, "hover", runOpts{probe: true, lazy: lazyProbe(args.Target)}, func(ctx context.Context, a *act) error {
		desc, err := a.untilOnTarget(ctx, func() (aimed, error) { return a.aimAt(ctx, args.Target, true) }, func(at aimed) error { return a.hoverChecked(ctx, at) })
		return a.done(err, desc, "hovered over "+desc)
	})
}

// pointedJS answers where the pointer is, from the target's (or its
// wrapper's) document: "" on the target, else what it is on; null when it
// is not over the document.
const pointedJS = `function () { return globalThis.__gasolineActions.pointed(this.nodeType ? this : this.el) }`

// hoverChecked moves the mouse to the aimed point; a hover into a frame
// is confirmed after (missError when the pointer is not on the target).
func (a *act) hoverChecked(ctx context.Context, at aimed) error {
	main := at.el == nil
	if !main {
		m, err := a.isMainWorld(ctx, at.el) // read by the aim already: no round trip
		if err != nil {
			return err
		}
		main = m
	}
	a.painting(ctx) // Chrome delivers the move with the page's next frame
	err := a.dispatch(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: at.x, Y: at.y})
	if err != nil || main {
		return err
	}
	var on *string
	err = callValue(ctx, at.el.s, jsCall{fn: pointedJS, object: at.el.handleOrWrap()}, &on)
	switch {
	case errors.Is(err, errWorldGone):
		return unconfirmed(at, "hover")
	case err != nil:
		return fmt.Errorf("confirming the hover over %s: %w", at.desc, err)
	case on == nil:
		return &missError{at: at, hover: true, where: a.pointedParent(ctx, at), contained: true}
	case *on != "":
		return &missError{at: at, hover: true, where: *on, inFrame: true, contained: true}
	}
	return nil
}

// pointedParentJS names what the pointer is on in a window's document.
const pointedParentJS = `function () { const G = globalThis.__gasolineActions, h = G.hovered(document); return h ? G.place(h) : '' }`

// pointedParent names what the pointer is on in the page around the
// target's frame ("" unknown). Only a missed hover asks.
func (a *act) pointedParent(ctx context.Context, at aimed) string {
	s, ec, err := a.parentWorld(ctx, at)
	if err != nil {
		return ""
	}
	var where string
	_ = callValue(ctx, s, jsCall{fn: pointedParentJS, context: ec}, &where)
	return where
}

// hoverMissed is the agent's error for a hover that did not reach its
// target.
func hoverMissed(m *missError, tries int) *tools.Error {
	at := fmt.Sprintf("the pointer moved to (%.0f, %.0f) for %s", m.at.x, m.at.y, m.at.desc)
	where := "did not reach it: it is over nothing in its frame"
	switch {
	case m.where != "":
		where = "landed on " + m.where + " " + missPlace(m)
	case !m.inFrame:
		where = "did not reach it: it is over nothing in its frame, nor known in the page around it"
	}
	return &tools.Error{Code: CodeHoverMissed, Retryable: true, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s %s%s; nothing was clicked, but what is there may show what it shows on hover (a menu, a tooltip); wait_for the page to stop moving, or take a new snapshot, then retry", at, where, times(tries))}
}
