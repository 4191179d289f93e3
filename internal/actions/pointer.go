package actions

import (
	"context"
	"fmt"
	"math"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// prep is what the page says about an element before an action.
type prep struct {
	Desc     string   `json:"desc"`
	Tag      string   `json:"tag"`
	Type     string   `json:"type"`
	Visible  bool     `json:"visible"`
	Disabled bool     `json:"disabled"`
	Editable bool     `json:"editable"`
	Checked  *bool    `json:"checked"`
	InMain   bool     `json:"inMain"` // in its world's own document
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	Label    bool     `json:"label"` // hidden, but has a label to click instead
	SX       float64  `json:"sx"`    // its window's scroll offset
	SY       float64  `json:"sy"`
	Hidden   bool     `json:"hidden"` // the page is hidden (a background tab)
	U        string   `json:"u"`      // the world's frame's url and title
	T        string   `json:"t"`
}

const prepareJS = `function (o) { return globalThis.__gasolineActions.prepare(this, o) }`

// prepare describes el and checks it can take pointer input (visible,
// enabled unless allowDisabled).
func (a *act) prepare(ctx context.Context, el *elem, point bool) (prep, error) {
	var p prep
	if err := a.callEl(ctx, el, prepareJS, &p, prepOpts(point)); err != nil {
		return p, err
	}
	if el.desc == "" || el.desc != p.Desc && p.Desc != "" {
		el.desc = p.Desc
	}
	return p, a.afterPrep(ctx, p, point)
}

func prepOpts(point bool) map[string]bool { return map[string]bool{"point": point, "label": true} }

// afterPrep makes a hidden (background) page behave as visible before
// pointer input.
func (a *act) afterPrep(ctx context.Context, p prep, point bool) error {
	if p.Hidden && point {
		return a.showPage(ctx)
	}
	return nil
}

// showPage makes a background tab behave as focused and visible
// (Emulation.setFocusEmulationEnabled): a hidden page delivers mouse moves
// only with its next frame, which a background tab does not draw (Chrome
// then waits about five seconds per move). The emulation lasts for the
// debugger session; Playwright does the same for every page.
func (a *act) showPage(ctx context.Context) error {
	if _, err := cdproto.Call(ctx, a.s, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		return fmt.Errorf("emulating focus in the background tab: %w", err)
	}
	return nil
}

func notVisible(el *elem) *tools.Error {
	return &tools.Error{Code: CodeNotVisible, Retryable: true, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s is not visible (hidden, collapsed or zero-sized); open what hides it, or wait_for it to be visible", el.desc)}
}

// point returns where to click el in the tab's viewport, scrolling it into
// view, and the offset of its out-of-process frame.
func (a *act) point(ctx context.Context, el *elem, p prep) (x, y float64, off offset, err error) {
	if !p.Visible {
		return 0, 0, off, notVisible(el)
	}
	main, err := a.isMainWorld(ctx, el)
	if err != nil {
		return 0, 0, off, err
	}
	if main && p.InMain && p.X != nil && p.Y != nil {
		off.scroll = &[2]float64{p.SX, p.SY}
		return *p.X, *p.Y, off, nil
	}
	q, err := cdproto.Call(ctx, el.s, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: el.backend})
	if err != nil {
		return 0, 0, off, fmt.Errorf("measuring %s: %w", el.desc, err)
	}
	for _, quad := range q.Quads {
		if len(quad) == 8 && area(quad) > 0.5 {
			x, y = (quad[0]+quad[2]+quad[4]+quad[6])/4, (quad[1]+quad[3]+quad[5]+quad[7])/4
			break
		}
	}
	if x == 0 && y == 0 {
		return 0, 0, off, notVisible(el)
	}
	if off, err = a.frameOffset(ctx, el.sid, 0); err != nil {
		return 0, 0, off, err
	}
	if el.sid != "" {
		return a.frameInView(ctx, el, x, y, off)
	}
	return x + off.dx, y + off.dy, off, nil
}

// frameInView returns the tab's point for (x, y) in the viewport of el's
// out-of-process frame, first scrolling the page around the frame when
// that point lies outside the tab's viewport: scrolling el into view
// scrolls only its own frame (Chrome does not let a cross-site frame
// scroll the page around it), and a point outside the viewport hits
// nothing. The iframe is scrolled in its parent's session, the browser's
// scroll rather than the frame's.
func (a *act) frameInView(ctx context.Context, el *elem, x, y float64, off offset) (float64, float64, offset, error) {
	in, err := a.inViewport(ctx, x+off.dx, y+off.dy, &off)
	if err != nil || in {
		return x + off.dx, y + off.dy, off, err
	}
	rect := &dom.Rect{X: x, Y: y, Width: 1, Height: 1} // el's point, in the iframe's box
	if _, err := cdproto.Call(ctx, a.e.session(a.tab, off.ownerSid), dom.ScrollIntoViewIfNeeded,
		dom.ScrollIntoViewIfNeededParams{BackendNodeID: off.owner, Rect: rect}); err != nil {
		return 0, 0, off, fmt.Errorf("scrolling the frame holding %s into view: %w", el.desc, err)
	}
	if off, err = a.frameOffset(ctx, el.sid, 0); err != nil {
		return 0, 0, off, err
	}
	if in, err = a.inViewport(ctx, x+off.dx, y+off.dy, &off); err != nil {
		return 0, 0, off, err
	}
	if !in {
		return 0, 0, off, &tools.Error{Code: CodeNotVisible, Retryable: true, NextAction: nextSnapshot,
			Message: fmt.Sprintf("%s is in a frame outside the visible page and scrolling the page did not bring it in; scroll_to the frame, then retry", el.desc)}
	}
	return x + off.dx, y + off.dy, off, nil
}

// inViewport reports whether a point of the tab's viewport is inside it.
// The tab's scroll offset it read goes in off when the frame's iframe is
// in the tab's own document, for hitCheck's look there (one read of the
// layout metrics, not two).
func (a *act) inViewport(ctx context.Context, x, y float64, off *offset) (bool, error) {
	m, err := cdproto.Call(ctx, a.s, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil {
		return false, fmt.Errorf("reading the viewport: %w", err)
	}
	v := m.CSSLayoutViewport
	if v == nil {
		return true, nil // nothing to check against: the hit test decides
	}
	if off.ownerSid == "" {
		off.ownerScroll = &[2]float64{float64(v.PageX), float64(v.PageY)}
	}
	return x >= 0 && y >= 0 && x < float64(v.ClientWidth) && y < float64(v.ClientHeight), nil
}

func area(q dom.Quad) float64 {
	s := 0.0
	for i := 0; i < 4; i++ {
		j := (i + 1) % 4
		s += q[2*i]*q[2*j+1] - q[2*j]*q[2*i+1]
	}
	return math.Abs(s) / 2
}

// isMainWorld reports whether el's world is the tab's main frame.
func (a *act) isMainWorld(ctx context.Context, el *elem) (bool, error) {
	if el.sid != "" {
		return false, nil
	}
	root, err := a.t.rootFrame(ctx, a.s, "")
	return el.frame == root, err
}

const hitJS = `function (x, y, h) { return globalThis.__gasolineActions.hit(this, h || null, x, y) }`

// hitCheck checks that el (or something inside it, or its label) is what
// a click at (x, y) would hit, and names what covers it otherwise.
func (a *act) hitCheck(ctx context.Context, el *elem, x, y float64, off offset) error {
	if el.sid != "" { // the iframe holding el must be on top in its parent
		ps := a.e.session(a.tab, off.ownerSid)
		up, err := a.frameOffset(ctx, off.ownerSid, 1)
		if err != nil {
			return err
		}
		h, err := nodeAt(ctx, ps, x-up.dx, y-up.dy, off.ownerScroll)
		if err != nil {
			return err
		}
		if h.BackendNodeID != off.owner {
			return a.covered(ctx, el, ps, h.BackendNodeID, 0, x, y, off)
		}
	}
	h, err := nodeAt(ctx, el.s, x-off.dx, y-off.dy, off.scroll)
	if err != nil {
		return err
	}
	if h.BackendNodeID == el.backend {
		return nil
	}
	return a.covered(ctx, el, el.s, h.BackendNodeID, el.ec, x, y, off)
}

// nodeAt hit-tests a point of a session's viewport. DOM.getNodeForLocation
// takes document coordinates: the root frame's scroll offset is added
// (scroll, when the caller knows it; else read from the layout metrics).
func nodeAt(ctx context.Context, s cdproto.Session, x, y float64, scroll *[2]float64) (dom.GetNodeForLocationResult, error) {
	if scroll == nil {
		m, err := cdproto.Call(ctx, s, page.GetLayoutMetrics, cdproto.Empty{})
		if err != nil {
			return dom.GetNodeForLocationResult{}, fmt.Errorf("reading the scroll offset: %w", err)
		}
		scroll = &[2]float64{}
		if v := m.CSSLayoutViewport; v != nil {
			scroll = &[2]float64{float64(v.PageX), float64(v.PageY)}
		}
	}
	yes := true
	r, err := cdproto.Call(ctx, s, dom.GetNodeForLocation, dom.GetNodeForLocationParams{
		X: int64(math.Round(x + scroll[0])), Y: int64(math.Round(y + scroll[1])), IncludeUserAgentShadowDOM: &yes})
	if err != nil {
		return r, fmt.Errorf("hit-testing (%.0f, %.0f): %w", x, y, err)
	}
	return r, nil
}

// covered checks whether the hit node is inside el after all (a child, a
// pseudo-element's element, a shadow or slotted descendant, a label: the
// page's hit() decides) and otherwise returns the covered error naming
// what is on top. A node the page cannot name is not a cover: the click
// goes ahead rather than answer "covered by nothing".
func (a *act) covered(ctx context.Context, el *elem, s cdproto.Session, hit cdproto.BackendNodeID, ec runtime.ExecutionContextID, x, y float64, off offset) error {
	var cover string
	if err := a.handle(ctx, el); err != nil {
		return err
	}
	if ec != 0 {
		c := jsCall{fn: hitJS, object: el.obj, args: []any{x - off.dx, y - off.dy}}
		r, err := cdproto.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: hit, ExecutionContextID: ec, ObjectGroup: objectGroup})
		if err == nil && r.Object != nil {
			c.objArgs = []runtime.RemoteObjectID{r.Object.ObjectID}
		}
		if err := callValue(ctx, el.s, c, &cover); err == nil && cover == "" {
			return nil
		}
	}
	if cover == "" {
		cover = describeBackend(ctx, s, hit)
	}
	if cover == "" {
		return nil
	}
	return &tools.Error{Code: CodeCovered, Retryable: true, NextAction: nextSnapshot,
		Message: fmt.Sprintf("%s is covered by %s at (%.0f, %.0f); close or dismiss what covers it (a banner's or dialog's button), scroll, or wait_for it to go, then retry",
			el.desc, cover, x, y)}
}

// describeBackend names a node from its tag and id when no world reaches it.
func describeBackend(ctx context.Context, s cdproto.Session, id cdproto.BackendNodeID) string {
	d, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: id})
	if err != nil || d.Node == nil || d.Node.NodeType != 1 || d.Node.PseudoType != "" {
		return "" // not an element a person could name (a pseudo-element, a text node)
	}
	n := d.Node
	out := n.LocalName
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if n.Attributes[i] == "id" {
			return fmt.Sprintf("%s %q", out, n.Attributes[i+1])
		}
	}
	if out == "" {
		return "another element"
	}
	return out
}

// mouse is one pointer gesture's settings.
type mouse struct {
	button input.MouseButton
	count  int
	mods   int
}

func buttonBit(b input.MouseButton) int64 {
	switch b {
	case input.MouseButtonRight:
		return 2
	case input.MouseButtonMiddle:
		return 4
	}
	return 1
}

// dispatch sends one mouse event to the tab, returning early when a dialog
// opens (errDialogOpened).
func (a *act) dispatch(ctx context.Context, p input.DispatchMouseEventParams) error {
	return a.blocking(ctx, func(ctx context.Context) error {
		_, err := cdproto.Call(ctx, a.s, input.DispatchMouseEvent, p)
		return err
	})
}

// click presses and releases at (x, y) m.count times. It sends no mouse
// move first: Chrome delivers a move with the page's next frame, and a
// background tab draws about once a second, while a press updates the
// hover state (mouseover, mouseenter) by itself.
func (a *act) click(ctx context.Context, x, y float64, m mouse) error {
	if m.button == "" {
		m.button = input.MouseButtonLeft
	}
	for i := 1; i <= max(m.count, 1); i++ {
		down := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: m.button,
			Buttons: buttonBit(m.button), ClickCount: int64(i), Modifiers: int64(m.mods)}
		if err := a.dispatch(ctx, down); err != nil {
			return err
		}
		up := down
		up.Type, up.Buttons = input.DispatchMouseEventTypeMouseReleased, 0
		if err := a.dispatch(ctx, up); err != nil {
			return err
		}
	}
	return nil
}
