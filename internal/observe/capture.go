package observe

import (
	"context"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
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
// for, and no capture stalls (0 in 1,000 measured; the first frame costs
// what a visible tab's capture costs). The screencast sends no frames
// (everyNthFrame is beyond any capture's life) and stops after the
// capture, so a background tab paints only while it is being captured.
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

// hold starts the screencast that keeps the tab painting; it runs while
// the mask is installed (the two requests share the round trip).
func hold(ctx context.Context, s *cdp.Session) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := cdproto.Call(ctx, s, page.StartScreencast, holdParams)
		done <- err
	}()
	return done
}

// release stops the screencast; it runs while the mask is checked. A
// failure only leaves the tab painting until the debugger detaches, so it
// is nobody's error.
func release(ctx context.Context, s *cdp.Session) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_, _ = cdproto.Call(rctx, s, page.StopScreencast, cdproto.Empty{})
	}()
	return done
}

// captureImage captures the tab once it is painting.
func captureImage(ctx context.Context, s *cdp.Session, p page.CaptureScreenshotParams) ([]byte, error) {
	r, err := cdproto.Call(ctx, s, page.CaptureScreenshot, p)
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	return r.Data, nil
}
