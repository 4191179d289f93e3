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
	"github.com/gasoline-mcp/gasoline/internal/hold"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Why a capture holds a screencast open.
//
// Chrome paints a background tab (the agent's tabs are background tabs)
// only while something captures it. Page.captureScreenshot takes such a
// hold for itself: the widget turns "hidden but painting", and the capture
// asks for a new frame and copies it. The first capture after the tab went
// back to hidden waits for a frame that the switch to painting does not
// produce; the next capture request produces it and both answer (measured
// with raw CDP on Chromium 156, headless: every other capture of a
// background tab stalls until another one is sent, with or without
// optimizeForSpeed, a clip, captureBeyondViewport or a DOM change before
// it; a visible tab never stalls). A screencast is a capture hold of its
// own: with one open, the tab is painting before the screenshot is asked
// for, and no capture stalls; the first frame costs what a visible tab's
// capture costs. The screencast (internal/hold's) sends no frames and
// stops right after the capture, so a background tab paints only while it
// is being captured — unless others hold it painting meanwhile (a trace, a
// click waiting for what it set moving): the capture then leaves the
// screencast to them.

// shotLock serializes captures of one tab: the screencast that keeps a tab
// painting is the tab's, so two captures must not start and stop it under
// each other. The tab's target holds it (shotPart), with what the tab's
// captures learnt: after its page changed under an unpainted capture
// (mask.go), its next captures paint at once rather than pay for a capture
// they would throw away.
type shotLock struct {
	ch    chan struct{}
	paint int // captures left to paint without watching first; read and written under ch
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

var shotPart = target.NewPart("screenshot lock", func(*target.Target) *shotLock {
	return &shotLock{ch: make(chan struct{}, 1)}
})

// lockShot holds the tab's capture lock until unlock is called.
func (o *Observer) lockShot(ctx context.Context, tab int) (l *shotLock, unlock func(), err error) {
	l = shotPart.Of(o.cfg.Tabs.Target(tab))
	select {
	case l.ch <- struct{}{}:
		return l, func() { <-l.ch }, nil
	case <-ctx.Done():
		return nil, nil, tabs.ToolError(ctx.Err())
	}
}

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
// hold the tab painting; capture; check that every mask held (a navigation
// or the page may have removed one) and remove them while the hold is
// released. The checks and clean-up run even when an earlier step failed.
// No mask, or a mask that did not hold, and the image is discarded; a
// watch that saw the page change returns errWatchChanged.
func (o *Observer) capture(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.CaptureScreenshotParams, watch bool) ([]byte, maskState, error) {
	r, mask, err := o.masked(ctx, s, c, cdp.NewStep(page.CaptureScreenshot, p), watch)
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
func (o *Observer) masked(ctx context.Context, s *cdp.Session, c *mcpserver.Call, step cdp.Step, watch bool) (cdp.StepResult, maskState, error) {
	var mask maskState
	var none cdp.StepResult
	inside, err := o.insideFrames(ctx, s)
	if err != nil {
		return none, mask, err
	}
	// Out-of-process frames are masked in their own sessions: painted,
	// under a token of this capture's own (maskToken).
	m, err := maskScripts(c, watch && len(inside) == 0, len(inside) > 0)
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
	// Others may hold the tab painting (internal/hold: a trace, a click
	// settling): the capture then neither starts the screencast (Chrome
	// refuses a second: "Screencast is already active") nor stops it.
	shared, done, err := hold.Capture(ctx, o.cfg.Tabs.Target(s.TabID()), s)
	if err != nil {
		return none, mask, tabs.ToolError(err)
	}
	defer done()
	on := len(steps)
	held := func(sid string, overlap bool) cdp.Step {
		return cdp.Step{Method: runtime.Evaluate.Method, Params: eval(m.held), Always: true, Overlap: overlap, Child: sid}
	}
	// The mask goes in beside the screencast's start, never beside the
	// capture. The image goes up the link while the checks run
	// (Step.Ahead); it is returned, and used, only once they answered.
	step.Ahead = true
	steps = append(steps, cdp.Step{Method: runtime.Evaluate.Method, Params: eval(m.on), StopOnException: true, Overlap: !shared})
	if !shared {
		steps = append(steps, cdp.NewStep(page.StartScreencast, hold.Params))
	}
	shot := len(steps)
	steps = append(steps, step, held("", true))
	for _, f := range inside {
		steps = append(steps, held(f.session, false))
	}
	// The release goes in the background, with the last check when it
	// overlaps: the answer leaves once the checks are in, and the tab's
	// next command still comes after it (PROTOCOL.md cdp.sequence). A
	// screencast others share is theirs to stop.
	if !shared {
		steps = append(steps, cdp.Step{Method: page.StopScreencast.Method, Always: true, Background: true})
	}
	if len(inside) > 0 {
		steps = append(steps, cdp.Step{Method: runtime.ReleaseObjectGroup.Method, Params: runtime.ReleaseObjectGroupParams{ObjectGroup: maskGroup}, Always: true, Background: true})
	}
	gctx, opened := dialogGuard(ctx, s)
	res, err := s.Sequence(gctx, steps...)
	if opened() {
		return none, mask, dialogBlocks(s.TabID())
	}
	if err != nil {
		return none, mask, tabs.ToolError(err)
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
	if !shared {
		if _, err := cdp.ResultOf(page.StartScreencast, res[on+1]); err != nil {
			return none, mask, tabs.ToolError(err)
		}
	}
	for i := range len(inside) + 1 {
		var state string
		err := pageValue(res[shot+1+i], &state)
		switch {
		case err == nil && state == "changed":
			return none, mask, errWatchChanged
		case err != nil || state != "ok":
			return none, mask, maskGone(s.TabID())
		}
	}
	return res[shot], mask, nil
}

// maskGone is the error of a capture whose mask did not hold.
func maskGone(tab int) *tools.Error {
	return &tools.Error{Code: tools.CodePageChanged, Retryable: true,
		Message: fmt.Sprintf("tab %d changed while the screenshot was taken (the mask over sensitive fields was gone), so it was discarded; retry", tab)}
}

// errWatchChanged: something that could be sensitive appeared on a page
// that had nothing to mask while it was captured unpainted; the image is
// discarded and Capture paints the mask and captures again.
var errWatchChanged = errors.New("observe: the page changed under an unpainted capture")

// frameChanged is the error of a capture whose out-of-process frame went
// away or navigated between finding it and masking it.
func frameChanged(tab int) *tools.Error {
	return &tools.Error{Code: tools.CodePageChanged, Retryable: true,
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
