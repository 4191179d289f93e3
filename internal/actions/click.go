package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// ClickArgs are click's arguments.
type ClickArgs struct {
	Target
	Button     string // left (default), right or middle
	ClickCount int    // 1 (default); 2 double-clicks
	Modifiers  string // keys held during the click: "Shift", "Control+Shift"
}

// Click clicks an element with trusted mouse input: it scrolls the element
// into view, checks that nothing covers its center, then moves, presses
// and releases there. A dialog the click opens is reported, not waited on.
func (e *Engine) Click(ctx context.Context, tab int, args ClickArgs) (*Result, error) {
	return e.run(ctx, tab, "click", runOpts{probe: true, lazy: lazyProbe(args.Target)}, func(ctx context.Context, a *act) error { return a.doClick(ctx, args) })
}

func (a *act) doClick(ctx context.Context, args ClickArgs) error {
	m, err := mouseOf(args.Button, args.ClickCount, args.Modifiers)
	if err != nil {
		return err
	}
	verb := clickVerb(m)
	desc, err := a.clickTarget(ctx, func() (aimed, error) { return a.aimAt(ctx, args.Target, true) }, m)
	if err == nil {
		err = a.settleAnimations(ctx)
	}
	return a.done(err, desc, verb+" "+desc)
}

// done sets the answer of a pointer or key action; a dialog it opened is
// part of the answer, not an error.
func (a *act) done(err error, target, msg string) error {
	a.res.Target = target
	a.res.Message = msg
	if errors.Is(err, errDialogOpened) {
		a.res.Message += "; a dialog opened"
		return nil
	}
	return err
}

func clickVerb(m mouse) string {
	v := "clicked"
	switch m.count {
	case 2:
		v = "double-clicked"
	case 3:
		v = "triple-clicked"
	}
	if m.button == input.MouseButtonRight {
		v = "right-" + v
	} else if m.button == input.MouseButtonMiddle {
		v = "middle-" + v
	}
	return v
}

func mouseOf(button string, count int, mods string) (mouse, error) {
	m := mouse{count: max(count, 1)}
	switch strings.ToLower(button) {
	case "", "left":
		m.button = input.MouseButtonLeft
	case "right":
		m.button = input.MouseButtonRight
	case "middle":
		m.button = input.MouseButtonMiddle
	default:
		return m, invalid("button must be left, right or middle, got %q", button)
	}
	if count < 0 || count > 3 {
		return m, invalid("click_count must be 1, 2 or 3, got %d", count)
	}
	if mods != "" {
		c, err := parseChord(mods + "+a")
		if err != nil {
			return m, invalid("modifiers: %v", err)
		}
		m.mods = c.Mods
	}
	return m, nil
}

// aim resolves a target to a point in the tab's viewport and checks the
// element there is the target (not covered). A point target is described
// by what is there.
func (a *act) aim(ctx context.Context, t Target, hit bool) (x, y float64, desc string, err error) {
	at, err := a.aimAt(ctx, t, hit)
	return at.x, at.y, at.desc, err
}

// aimAt is aim, answering the element aimed at and its frame's offset too.
func (a *act) aimAt(ctx context.Context, t Target, hit bool) (aimed, error) {
	if t.isPoint() {
		x, y := *t.X, *t.Y
		if !a.t.shown { // a point needs no element check, but the page must take mouse moves
			if err := a.showPage(ctx); err != nil {
				return aimed{}, err
			}
			a.t.shown = true
		}
		h, err := nodeAt(ctx, a.s, x, y, nil)
		if err != nil {
			return aimed{}, err
		}
		what := describeBackend(ctx, a.s, h.BackendNodeID)
		if what == "" {
			what = "the page"
		}
		return aimed{x: x, y: y, desc: fmt.Sprintf("%s at (%g, %g)", what, x, y)}, nil
	}
	el, p, err := a.resolvePrep(ctx, t, true, true)
	if err != nil {
		return aimed{}, err
	}
	if p.Disabled {
		return aimed{}, &tools.Error{Code: CodeDisabled, Retryable: true,
			Message: fmt.Sprintf("%s is disabled; fill in what it needs first, or wait_for it to be enabled", el.desc)}
	}
	return a.aimElem(ctx, el, p, hit)
}

// aimElem aims at a prepared element: its point (scrolled into view) and,
// with hit, the check that nothing covers it there.
func (a *act) aimElem(ctx context.Context, el *elem, p prep, hit bool) (aimed, error) {
	x, y, off, err := a.point(ctx, el, p)
	if err != nil {
		return aimed{}, err
	}
	if hit {
		if err := a.hitCheck(ctx, el, x, y, off); err != nil {
			return aimed{}, err
		}
	}
	return aimed{x: x, y: y, desc: el.desc, el: el, off: off}, nil
}

// FocusArgs are focus's arguments.
type FocusArgs struct{ Target }

// Focus focuses an element (DOM.focus) without clicking it.
func (e *Engine) Focus(ctx context.Context, tab int, args FocusArgs) (*Result, error) {
	return e.run(ctx, tab, "focus", runOpts{}, func(ctx context.Context, a *act) error {
		el, err := a.resolve(ctx, args.Target, true)
		if err != nil {
			return err
		}
		if _, err := a.prepare(ctx, el, false); err != nil {
			return err
		}
		if _, err := cdproto.Call(ctx, el.s, dom.Focus, dom.FocusParams{BackendNodeID: el.backend}); err != nil {
			return fmt.Errorf("focusing %s: %w", el.desc, err)
		}
		return a.done(nil, el.desc, "focused "+el.desc)
	})
}

// ScrollArgs are scroll_to's arguments: an element, or a point of the
// document (x, y in CSS pixels) to scroll to.
type ScrollArgs struct{ Target }

const scrollJS = `function (x, y) { scrollTo({left: x, top: y, behavior: 'instant'}); return [scrollX, scrollY] }`

// ScrollTo scrolls an element into view (centered when it was outside),
// or the page to a point.
func (e *Engine) ScrollTo(ctx context.Context, tab int, args ScrollArgs) (*Result, error) {
	return e.run(ctx, tab, "scroll_to", runOpts{}, func(ctx context.Context, a *act) error {
		if args.isPoint() {
			ec, _, err := a.world(ctx, "", "")
			if err != nil {
				return err
			}
			var at [2]float64
			if err := callValue(ctx, a.s, jsCall{fn: scrollJS, context: ec, args: []any{*args.X, *args.Y}}, &at); err != nil {
				return err
			}
			a.res.Value = map[string]float64{"x": at[0], "y": at[1]}
			return a.done(nil, "", fmt.Sprintf("scrolled the page to (%g, %g)", at[0], at[1]))
		}
		el, err := a.resolve(ctx, args.Target, false)
		if err != nil {
			return err
		}
		p, err := a.prepare(ctx, el, true)
		if err != nil {
			return err
		}
		if !p.Visible {
			return notVisible(el)
		}
		return a.done(nil, el.desc, "scrolled "+el.desc+" into view")
	})
}
