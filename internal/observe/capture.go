package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// maxInside bounds the out-of-process frames masked inside, in their own
// sessions: each adds three steps to the capture's cdp.sequence (at most
// 16 steps; the capture's own are six). A frame beyond it is painted
// black whole by the document that holds it, as a frame Gasoline cannot
// reach is.
const maxInside = 3

// maskGroup is the object group of the frame elements a capture marks.
const maskGroup = "gasoline-mask"

// markInside marks a frame element whose document is masked in its own
// session: the document holding the element leaves it unpainted.
const markInside = `function (token) { this.setAttribute('data-gasoline-inside', token); }`

// insideFrame is an out-of-process frame the capture masks in its own
// session, and its element in the tab's document.
type insideFrame struct {
	session string
	element runtime.RemoteObjectID
}

// insideFrames finds the elements of the tab's out-of-process frames (at
// most maxInside) in the tab's own documents, in two round trips. A frame
// whose element is not there (it is nested in another out-of-process
// frame, or gone) is left to the document that holds it, which paints it
// black whole.
func (o *Observer) insideFrames(ctx context.Context, s *cdp.Session) ([]insideFrame, error) {
	var kids []target.Child
	for _, c := range o.children(s.TabID()) {
		if c.Type == "iframe" && c.TargetID != "" && len(kids) < maxInside {
			kids = append(kids, c)
		}
	}
	if len(kids) == 0 {
		return nil, nil
	}
	steps := make([]cdp.Step, len(kids))
	for i, k := range kids {
		steps[i] = cdp.Step{Method: dom.GetFrameOwner.Method, Params: dom.GetFrameOwnerParams{FrameID: cdproto.FrameID(k.TargetID)}, Always: true}
	}
	res, err := s.Sequence(ctx, steps...)
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	var found []target.Child
	steps = steps[:0]
	for i, r := range res {
		if fo, err := cdp.ResultOf(dom.GetFrameOwner, r); err == nil && fo.BackendNodeID != 0 {
			found = append(found, kids[i])
			steps = append(steps, cdp.Step{Method: dom.ResolveNode.Method, Params: dom.ResolveNodeParams{BackendNodeID: fo.BackendNodeID, ObjectGroup: maskGroup}, Always: true})
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	if res, err = s.Sequence(ctx, steps...); err != nil {
		return nil, tabs.ToolError(err)
	}
	var out []insideFrame
	for i, r := range res {
		if rn, err := cdp.ResultOf(dom.ResolveNode, r); err == nil && rn.Object != nil && rn.Object.ObjectID != "" {
			out = append(out, insideFrame{session: found[i].SessionID, element: rn.Object.ObjectID})
		}
	}
	return out, nil
}

// capture takes the screenshot in one round trip over the extension link
// (cdp.sequence), two more when the tab has out-of-process frames: mark
// the elements of those frames and install the mask inside each of them,
// in its own session; install the mask in the tab's documents (or, with
// watch and nothing to mask, watch them: mask.go) and, at the same time,
// hold the tab painting (or find it held: hold.go); capture; check that
// every mask held (a navigation or the page may have removed one) and
// remove them; the hold lingers. The checks and clean-up run even when an
// earlier step failed.
// No mask, or a mask that did not hold, and the image is discarded; a
// watch that saw the page change returns errWatchChanged.
func (o *Observer) capture(ctx context.Context, l *shotLock, s *cdp.Session, c *mcpserver.Call, p page.CaptureScreenshotParams, watch bool) ([]byte, maskState, error) {
	r, mask, err := o.masked(ctx, l, s, c, cdp.NewStep(page.CaptureScreenshot, p), watch)
	if err != nil {
		return nil, mask, err
	}
	shot, err := cdp.ResultOf(page.CaptureScreenshot, r)
	if err != nil {
		return nil, mask, tabs.ToolError(err)
	}
	if len(shot.Data) == 0 {
		return nil, mask, maskGone(s.TabID())
	}
	return shot.Data, mask, nil
}

// masked runs one capture step (a screenshot, a print to PDF) under the
// mask, or with watch under a watch, as capture describes, and returns the
// step's result once every mask held.
func (o *Observer) masked(ctx context.Context, l *shotLock, s *cdp.Session, c *mcpserver.Call, step cdp.Step, watch bool) (cdp.StepResult, maskState, error) {
	var mask maskState
	var none cdp.StepResult
	inside, err := o.insideFrames(ctx, s)
	if err != nil {
		return none, mask, err
	}
	// Out-of-process frames are masked in their own sessions: painted.
	m, err := maskScripts(c, watch && len(inside) == 0)
	if err != nil {
		return none, mask, err
	}
	yes := true
	eval := func(expr string) runtime.EvaluateParams {
		return runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes}
	}
	tokenArg, _ := json.Marshal(m.token)
	var steps []cdp.Step
	for _, f := range inside {
		steps = append(steps, cdp.Step{Method: runtime.CallFunctionOn.Method, StopOnException: true, Params: runtime.CallFunctionOnParams{
			FunctionDeclaration: markInside, ObjectID: f.element, Arguments: []*runtime.CallArgument{{Value: tokenArg}}, Silent: &yes}})
	}
	for _, f := range inside {
		steps = append(steps, cdp.Step{Method: runtime.Evaluate.Method, Params: eval(m.on), StopOnException: true, Child: f.session})
	}
	on := len(steps)
	held := func(sid string, overlap bool) cdp.Step {
		return cdp.Step{Method: runtime.Evaluate.Method, Params: eval(m.held), Always: true, Overlap: overlap, Child: sid}
	}
	steps = append(steps,
		cdp.Step{Method: runtime.Evaluate.Method, Params: eval(m.on), StopOnException: true, Overlap: true},
		cdp.Step{Method: page.StartScreencast.Method, Params: holdParams, MayFail: true},
		step,
		held("", true))
	for _, f := range inside {
		steps = append(steps, held(f.session, false))
	}
	if len(inside) > 0 {
		steps = append(steps, cdp.Step{Method: runtime.ReleaseObjectGroup.Method, Params: runtime.ReleaseObjectGroupParams{ObjectGroup: maskGroup}, Always: true})
	}
	gctx, opened := dialogGuard(ctx, s)
	res, err := s.Sequence(gctx, steps...)
	if opened() {
		return none, mask, dialogBlocks(s.TabID())
	}
	if err != nil {
		return none, mask, tabs.ToolError(err)
	}
	if err := l.held(s, res[on+1]); err != nil { // a hold the capture started lingers (hold.go)
		return none, mask, err
	}
	for i := range inside { // a frame that went away or navigated since it was found
		if r, err := cdp.ResultOf(runtime.CallFunctionOn, res[i]); err != nil || r.ExceptionDetails != nil {
			return none, mask, frameChanged(s.TabID())
		}
		var m maskState
		if err := pageValue(res[len(inside)+i], &m); err != nil {
			return none, mask, frameChanged(s.TabID())
		}
		mask.Count += m.Count
		mask.Frames += m.Frames
	}
	var top maskState
	if err := pageValue(res[on], &top); err != nil {
		return none, mask, err
	}
	mask.Visibility, mask.Count, mask.Frames, mask.Watched = top.Visibility, mask.Count+top.Count, mask.Frames+top.Frames, top.Watched
	for i := range len(inside) + 1 {
		var state string
		err := pageValue(res[on+3+i], &state)
		switch {
		case err == nil && state == "changed":
			return none, mask, errWatchChanged
		case err != nil || state != "ok":
			return none, mask, maskGone(s.TabID())
		}
	}
	return res[on+2], mask, nil
}

// maskGone is the error of a capture whose mask did not hold.
func maskGone(tab int) *tools.Error {
	return &tools.Error{Code: "page_changed", Retryable: true,
		Message: fmt.Sprintf("tab %d changed while the screenshot was taken (the mask over sensitive fields was gone), so it was discarded; retry", tab)}
}

// errWatchChanged: something that could be sensitive appeared on a page
// that had nothing to mask while it was captured unpainted; the image is
// discarded and Capture paints the mask and captures again.
var errWatchChanged = errors.New("observe: the page changed under an unpainted capture")

// frameChanged is the error of a capture whose out-of-process frame went
// away or navigated between finding it and masking it.
func frameChanged(tab int) *tools.Error {
	return &tools.Error{Code: "page_changed", Retryable: true,
		Message: fmt.Sprintf("a frame of tab %d changed while the screenshot's mask was installed, so nothing was captured; retry", tab)}
}

// pageValue decodes the by-value result of a Runtime.evaluate step.
func pageValue(r cdp.StepResult, v any) error {
	ev, err := cdp.ResultOf(runtime.Evaluate, r)
	switch {
	case err != nil:
		return tabs.ToolError(err)
	case ev.ExceptionDetails != nil:
		return tools.Errorf("page_error", "the page refused the screenshot's mask (%s); it may be mid-navigation: retry", ev.ExceptionDetails.Text)
	case ev.Result == nil || len(ev.Result.Value) == 0:
		return tools.Errorf("page_error", "the page returned nothing; it may be mid-navigation: retry")
	}
	return json.Unmarshal(ev.Result.Value, v)
}
