package feed

import (
	"context"
	_ "embed"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

//go:embed vitals.js
var vitalsScript string

// Network buffer sizes: Chrome keeps response bodies within these for
// Network.getResponseBody (network_bodies), and includes request bodies up
// to MaxPostData in requestWillBeSent.
const (
	netTotalBuffer    = 64 << 20
	netResourceBuffer = 8 << 20
	netMaxPostData    = 64 << 10
)

func i64(v int64) *int64 { return &v }

// Enable turns on, in a tab whose debugger was just attached, what capture
// and the observe modes need: console and exceptions (Runtime), requests
// and WebSocket frames with bodies kept (Network), navigations, dialogs and
// lifecycle events (Page), and the vitals recorder in every new document
// and the current one. Running it again on an enabled tab is harmless.
func Enable(ctx context.Context, s *cdp.Session) error {
	steps := []struct {
		what string
		run  func() error
	}{
		{"Runtime.enable", func() error { _, err := cdproto.Call(ctx, s, runtime.Enable, cdproto.Empty{}); return err }},
		{"Page.enable", func() error { _, err := cdproto.Call(ctx, s, page.Enable, page.EnableParams{}); return err }},
		{"Page.setLifecycleEventsEnabled", func() error {
			_, err := cdproto.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true})
			return err
		}},
		{"Network.enable", func() error { return enableNetwork(ctx, s) }},
		{"Target.setAutoAttach", func() error {
			// Workers and out-of-process iframes start paused, so the Feed
			// enables capture in them before their first line runs (it
			// then resumes them). The extension set the same without the
			// pause when it attached.
			_, err := cdproto.Call(ctx, s, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true)})
			return err
		}},
		{"Page.addScriptToEvaluateOnNewDocument", func() error {
			_, err := cdproto.Call(ctx, s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: vitalsScript})
			return err
		}},
		{"Runtime.evaluate", func() error { return InstallVitals(ctx, s) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return fmt.Errorf("enabling capture (%s): %w", st.what, err)
		}
	}
	return nil
}

func enableNetwork(ctx context.Context, s *cdp.Session) error {
	_, err := cdproto.Call(ctx, s, network.Enable, network.EnableParams{
		MaxTotalBufferSize:    i64(netTotalBuffer),
		MaxResourceBufferSize: i64(netResourceBuffer),
		MaxPostDataSize:       i64(netMaxPostData),
	})
	return err
}

// InstallVitals runs the vitals recorder in the current document (it is a
// no-op where it already runs).
func InstallVitals(ctx context.Context, s *cdp.Session) error {
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: vitalsScript, Silent: ptr(true)})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("vitals recorder threw: %s", res.ExceptionDetails.Text)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// EnableChild turns on console, exception and network capture in a child
// session (a worker or an out-of-process iframe), then lets a child that
// waits for the debugger run (always, even when enabling failed). Network
// is best effort: some worker kinds do not have it.
func EnableChild(ctx context.Context, s *cdp.Session, targetType string, waiting bool) error {
	_, err := cdproto.Call(ctx, s, runtime.Enable, cdproto.Empty{})
	if err != nil {
		err = fmt.Errorf("Runtime.enable in %s: %w", targetType, err)
	} else {
		enableNetwork(ctx, s)
	}
	if waiting {
		if _, rerr := cdproto.Call(ctx, s, runtime.RunIfWaitingForDebugger, cdproto.Empty{}); rerr != nil && err == nil {
			err = fmt.Errorf("Runtime.runIfWaitingForDebugger in %s: %w", targetType, rerr)
		}
	}
	return err
}
