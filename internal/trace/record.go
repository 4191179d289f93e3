package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/tracing"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/hold"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Categories are what the DevTools Performance panel records (its
// default categories, and JavaScript sampling), so the raw trace opens
// there as one recorded in DevTools would; screenshots are left out.
var Categories = []string{
	"blink.console", "blink.user_timing", "loading", "devtools.timeline",
	"disabled-by-default-devtools.target-rundown", "disabled-by-default-devtools.timeline.frame",
	"disabled-by-default-devtools.timeline.stack", "disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.v8-source-rundown-sources", "disabled-by-default-devtools.v8-source-rundown",
	"disabled-by-default-layout_shift.debug", "disabled-by-default-v8.inspector", "disabled-by-default-v8.cpu_profiler.hires",
	"disabled-by-default-lighthouse", "v8.execute", "v8", "cppgc", "navigation,rail", "disabled-by-default-v8.cpu_profiler",
}

// Options says what to record.
type Options struct {
	// Reload records a reload of the page until it has loaded and the
	// network has been quiet for Quiet; else Duration of what happens
	// next is recorded.
	Reload   bool
	Duration time.Duration
	// Quiet is the network silence after load that ends a reload's
	// recording (default 1 s); MaxAfterLoad bounds the wait for it
	// (default 10 s).
	Quiet, MaxAfterLoad time.Duration
	// Target is the tab's: it is held painting through its shared
	// screencast (internal/hold) while it records.
	Target *target.Target
}

// MaxRawBytes bounds a recorded trace (decompressed).
const MaxRawBytes = MaxTraceBytes

// ErrBusy is returned (wrapping Chrome's answer) when Tracing.start is
// refused: the tab is most likely being traced already (by Gasoline or by
// the user's DevTools).
var ErrBusy = errors.New("trace: tracing could not start")

type busyError struct{ err error }

func (e *busyError) Error() string        { return ErrBusy.Error() + ": " + e.err.Error() }
func (e *busyError) Is(target error) bool { return target == ErrBusy }
func (e *busyError) Unwrap() error        { return e.err }

// Record traces the tab and returns the trace as JSON. The tab is held
// visible and focused (Emulation.setFocusEmulationEnabled, a screencast
// that sends no frames) while it records, so a background tab paints as
// a foreground one.
func Record(ctx context.Context, s *cdp.Session, o Options) ([]byte, error) {
	if o.Quiet <= 0 {
		o.Quiet = time.Second
	}
	if o.MaxAfterLoad <= 0 {
		o.MaxAfterLoad = 10 * time.Second
	}
	done, stop := s.Subscribe(tracing.TracingComplete.Method)
	defer stop()
	var net *netWatch
	var loaded <-chan jsonv2.Value
	if o.Reload {
		net = watchNetwork(s)
		defer net.stop()
		var stopLoad func()
		loaded, stopLoad = s.Subscribe(page.LoadEventFired.Method)
		defer stopLoad()
	}
	if _, err := cdproto.Call(ctx, s, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		return nil, err
	}
	// Chrome draws a hidden tab about once a second, which would put that
	// second into LCP: the tab paints at the display's rate while it records.
	release, err := hold.Paint(ctx, o.Target, s)
	if err != nil {
		return nil, err
	}
	defer release()
	start := tracing.StartParams{TransferMode: tracing.StartTransferModeReturnAsStream, StreamFormat: tracing.StreamFormatJSON,
		StreamCompression: tracing.StreamCompressionGzip,
		TraceConfig:       &tracing.TraceConfig{RecordMode: tracing.TraceConfigRecordModeRecordAsMuchAsPossible, IncludedCategories: Categories, ExcludedCategories: []string{"*"}}}
	if _, err := cdproto.Call(ctx, s, tracing.Start, start); err != nil {
		return nil, &busyError{err}
	}
	ended := false
	defer func() {
		if !ended { // leave no trace running in the tab
			after(ctx, func(c context.Context) { cdproto.Call(c, s, tracing.End, cdproto.Empty{}) })
		}
	}()
	if err := record(ctx, s, o, loaded, net); err != nil {
		return nil, err
	}
	ended = true
	if _, err := cdproto.Call(ctx, s, tracing.End, cdproto.Empty{}); err != nil {
		return nil, err
	}
	var tc tracing.EventTracingComplete
	select {
	case v, ok := <-done:
		if !ok {
			return nil, errors.New("trace: the tab went away while its trace was collected")
		}
		if err := jsonv2.Unmarshal(v, &tc); err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return collect(ctx, s, tc)
}

// record reloads and waits for the load and a quiet network, or waits
// the duration.
func record(ctx context.Context, s *cdp.Session, o Options, loaded <-chan jsonv2.Value, net *netWatch) error {
	if !o.Reload {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if _, err := cdproto.Call(ctx, s, page.Reload, page.ReloadParams{}); err != nil {
		return err
	}
	select {
	case _, ok := <-loaded:
		if !ok {
			return errors.New("trace: the tab went away while it reloaded")
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	return net.quiet(ctx, o.Quiet, o.MaxAfterLoad)
}

// collect reads the finished trace's stream (gzip) and returns it
// decompressed.
func collect(ctx context.Context, s *cdp.Session, tc tracing.EventTracingComplete) ([]byte, error) {
	if tc.Stream == "" {
		return nil, errors.New("trace: Chrome returned no trace stream")
	}
	var gz bytes.Buffer
	if err := s.ReadStream(ctx, tc.Stream, MaxRawBytes, func(b []byte) error { gz.Write(b); return nil }); err != nil {
		return nil, err
	}
	if tc.StreamCompression != tracing.StreamCompressionGzip {
		return gz.Bytes(), nil
	}
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, MaxRawBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trace: decompressing: %w", err)
	}
	if len(raw) > MaxRawBytes {
		return nil, fmt.Errorf("trace: larger than %d MiB", MaxRawBytes>>20)
	}
	return raw, nil
}

// after runs a clean-up call even when ctx has ended, bounded.
func after(ctx context.Context, f func(context.Context)) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	f(c)
}

// netWatch counts the tab's requests in flight.
type netWatch struct {
	sent, finished, failed <-chan jsonv2.Value
	stops                  []func()
}

func watchNetwork(s *cdp.Session) *netWatch {
	w := &netWatch{}
	var stop func()
	w.sent, stop = s.Subscribe(network.RequestWillBeSent.Method)
	w.stops = append(w.stops, stop)
	w.finished, stop = s.Subscribe(network.LoadingFinished.Method)
	w.stops = append(w.stops, stop)
	w.failed, stop = s.Subscribe(network.LoadingFailed.Method)
	w.stops = append(w.stops, stop)
	return w
}

func (w *netWatch) stop() {
	for _, s := range w.stops {
		s()
	}
}

// quiet returns once no request has been in flight for idle, or after
// bound.
func (w *netWatch) quiet(ctx context.Context, idle, bound time.Duration) error {
	inflight := map[string]bool{}
	id := func(v jsonv2.Value) string {
		var e struct {
			RequestID string `json:"requestId"`
		}
		jsonv2.Unmarshal(v, &e)
		return e.RequestID
	}
	limit := time.NewTimer(bound)
	defer limit.Stop()
	calm := time.NewTimer(idle)
	defer calm.Stop()
	rearm := func() {
		calm.Stop()
		if len(inflight) == 0 {
			calm.Reset(idle)
		}
	}
	for {
		select {
		case v := <-w.sent:
			inflight[id(v)] = true
			rearm()
		case v := <-w.finished:
			delete(inflight, id(v))
			rearm()
		case v := <-w.failed:
			delete(inflight, id(v))
			rearm()
		case <-calm.C:
			return nil
		case <-limit.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
