package actions

import (
	"context"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
)

// DragArgs are drag's arguments.
type DragArgs struct {
	From  Target
	To    Target // an element (its center) or a point
	Steps int    // mouse moves on the way (default 5)
}

// Drag drags from one element to another element or point with trusted
// mouse input: press on the source, move in steps, release on the target.
// When the page starts an HTML5 drag (draggable elements), Chrome hands the
// drag to Gasoline (Input.setInterceptDrags) and the drop is delivered with
// Input.dispatchDragEvent, so both mouse-driven and HTML5 drag and drop work.
func (e *Engine) Drag(ctx context.Context, tab int, args DragArgs) (*Result, error) {
	return e.run(ctx, tab, "drag", runOpts{probe: true}, func(ctx context.Context, a *act) error { return a.doDrag(ctx, args) })
}

func (a *act) doDrag(ctx context.Context, args DragArgs) error {
	if args.From.isEmpty() || args.To.isEmpty() {
		return invalid("drag needs a source (ref, selector or x/y) and a target (to_ref, to_selector or to_x/to_y)")
	}
	steps := args.Steps
	if steps <= 0 {
		steps = 5
	}
	// Aim at the drop target first: bringing the source into view last
	// keeps it where the press lands; then re-read the target's position.
	if _, _, _, err := a.aim(ctx, args.To, false); err != nil {
		return err
	}
	x1, y1, from, err := a.aim(ctx, args.From, true)
	if err != nil {
		return err
	}
	x2, y2, to, err := a.aim(ctx, args.To, false)
	if err != nil {
		return err
	}
	a.settle()
	a.painting(ctx) // Chrome delivers each move with the page's next frame
	msg := fmt.Sprintf("dragged %s onto %s", from, to)
	if _, err := cdproto.Call(ctx, a.s, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return fmt.Errorf("intercepting drags: %w", err)
	}
	defer cdproto.Call(context.WithoutCancel(ctx), a.s, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
	intercepted, stop := a.s.Subscribe(input.DragIntercepted.Method)
	defer stop()
	move := func(x, y float64, buttons int64) error {
		return a.dispatch(ctx, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: buttons})
	}
	if err := move(x1, y1, 0); err != nil {
		return a.done(err, from, msg)
	}
	press := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x1, Y: y1, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}
	if err := a.dispatch(ctx, press); err != nil {
		return a.done(err, from, msg)
	}
	var data *input.DragData
	for i := 1; i <= steps && data == nil; i++ {
		f := float64(i) / float64(steps)
		if err := move(x1+(x2-x1)*f, y1+(y2-y1)*f, 1); err != nil {
			return a.done(err, from, msg)
		}
		data = dragData(intercepted)
	}
	if data != nil { // an HTML5 drag: deliver it to the target
		for _, t := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			err := a.blocking(ctx, func(ctx context.Context) error {
				_, err := cdproto.Call(ctx, a.s, input.DispatchDragEvent, input.DispatchDragEventParams{Type: t, X: x2, Y: y2, Data: data})
				return err
			})
			if err != nil {
				return a.done(err, from, msg)
			}
		}
		msg += " (HTML5 drag and drop)"
	}
	release := press
	release.Type, release.X, release.Y, release.Buttons = input.DispatchMouseEventTypeMouseReleased, x2, y2, 0
	return a.done(a.dispatch(ctx, release), from, msg)
}

// dragData returns the data of an intercepted drag, if one started.
func dragData(ch <-chan jsonv2.Value) *input.DragData {
	select {
	case raw, ok := <-ch:
		if !ok {
			return nil
		}
		var ev input.EventDragIntercepted
		if jsonv2.Unmarshal(raw, &ev) == nil && ev.Data != nil {
			return ev.Data
		}
	default:
	}
	return nil
}
