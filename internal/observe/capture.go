package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
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
// capture costs. The screencast sends no frames (everyNthFrame is beyond
// any capture's life) and stops right after the capture, so a background
// tab paints only while it is being captured.
var holdParams = page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, Quality: ptr(int64(1)),
	MaxWidth: 8, MaxHeight: 8, EveryNthFrame: 1 << 30, MaxFramesInFlight: 1}

// shotLocks serializes captures of one tab: the screencast that keeps a tab
// painting is the tab's, so two captures must not start and stop it under
// each other.
type shotLocks struct {
	mu   sync.Mutex
	tabs map[int]chan struct{}
}

func (l *shotLocks) lock(ctx context.Context, tab int) (unlock func(), err error) {
	l.mu.Lock()
	if l.tabs == nil {
		l.tabs = map[int]chan struct{}{}
	}
	ch := l.tabs[tab]
	if ch == nil {
		ch = make(chan struct{}, 1)
		l.tabs[tab] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, tabs.ToolError(ctx.Err())
	}
}

// capture takes the screenshot in one round trip over the extension link
// (cdp.sequence): install the mask over sensitive fields and, at the same
// time, hold the tab painting; capture; check that the mask held (a
// navigation or the page may have removed it) and remove it while the
// hold is released. The last two run even when an earlier step failed.
// No mask, or a mask that did not hold, and the image is discarded.
func (o *Observer) capture(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.CaptureScreenshotParams) ([]byte, maskState, error) {
	var mask maskState
	script, token, err := maskScript(c)
	if err != nil {
		return nil, mask, err
	}
	yes := true
	eval := func(expr string) runtime.EvaluateParams {
		return runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes}
	}
	gctx, opened := dialogGuard(ctx, s)
	res, err := s.Sequence(gctx,
		cdp.Step{Method: runtime.Evaluate.Method, Params: eval(script), StopOnException: true, Overlap: true},
		cdp.NewStep(page.StartScreencast, holdParams),
		cdp.NewStep(page.CaptureScreenshot, p),
		cdp.Step{Method: runtime.Evaluate.Method, Params: eval(fmt.Sprintf(maskHeld, token)), Always: true, Overlap: true},
		cdp.Step{Method: page.StopScreencast.Method, Always: true})
	if opened() {
		return nil, mask, dialogBlocks(s.TabID())
	}
	if err != nil {
		return nil, mask, tabs.ToolError(err)
	}
	if err := pageValue(res[0], &mask); err != nil {
		return nil, mask, err
	}
	if _, err := cdp.ResultOf(page.StartScreencast, res[1]); err != nil {
		return nil, mask, tabs.ToolError(err)
	}
	shot, err := cdp.ResultOf(page.CaptureScreenshot, res[2])
	if err != nil {
		return nil, mask, tabs.ToolError(err)
	}
	var held bool
	if err := pageValue(res[3], &held); err != nil || !held || len(shot.Data) == 0 {
		return nil, mask, &tools.Error{Code: "page_changed", Retryable: true,
			Message: fmt.Sprintf("tab %d changed while the screenshot was taken (the mask over sensitive fields was gone), so it was discarded; retry", s.TabID())}
	}
	return shot.Data, mask, nil
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
