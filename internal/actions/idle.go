package actions

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// tracker follows the tab's requests from Network events (the capture
// feed enables them): those seen starting while it runs, plus (with
// capture wired) those capture already had in flight. Its goroutines are
// owned by the action; stop waits for them.
type tracker struct {
	mu      sync.Mutex
	open    map[network.RequestID]bool
	last    time.Time     // the last start or end seen
	changed chan struct{} // signalled on every start or end
	cancels []func()
	wg      sync.WaitGroup
}

func (a *act) track() *tracker {
	f := &tracker{open: map[network.RequestID]bool{}, changed: make(chan struct{}, 1)}
	methods := map[string]bool{network.RequestWillBeSent.Method: true, network.LoadingFinished.Method: false,
		network.LoadingFailed.Method: false}
	for m, opens := range methods {
		ch, cancel := a.s.Subscribe(m)
		f.cancels = append(f.cancels, cancel)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for raw := range ch {
				var ev struct {
					RequestID network.RequestID    `json:"requestId"`
					Type      network.ResourceType `json:"type"`
				}
				if jsonv2.Unmarshal(raw, &ev) == nil && ev.Type != network.ResourceTypeWebSocket && ev.Type != network.ResourceTypeEventSource {
					f.set(ev.RequestID, opens)
				}
			}
		}()
	}
	if c := a.e.cfg.Capture; c != nil {
		for _, r := range c.Pending(a.tab) {
			if r.ResourceType != "WebSocket" && r.ResourceType != "EventSource" {
				f.set(network.RequestID(r.ID), true)
			}
		}
	}
	return f
}

func (f *tracker) stop() {
	for _, c := range f.cancels {
		c()
	}
	f.wg.Wait()
}

func (f *tracker) set(id network.RequestID, open bool) {
	f.mu.Lock()
	if open {
		f.open[id] = true
	} else {
		delete(f.open, id)
	}
	f.last = time.Now()
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *tracker) state() (open int, last time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.open), f.last
}

// waitIdle waits until no request is in flight and none started or ended
// for the window.
func (f *tracker) waitIdle(ctx context.Context, window time.Duration) error {
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		select {
		case <-f.changed:
			timer.Reset(window) // quiet only a full window after the last change
		case <-timer.C:
			if n, _ := f.state(); n == 0 {
				return nil
			}
			timer.Reset(window)
		case <-ctx.Done():
			return context.DeadlineExceeded
		}
	}
}

// waitIdle is network idle for wait_for.
func (a *act) waitIdle(ctx context.Context, window time.Duration) error {
	f := a.track()
	defer f.stop()
	return f.waitIdle(ctx, window)
}

// StableArgs are wait_for_stable's arguments.
type StableArgs struct {
	QuietMS int // no DOM mutation and no request for this long (default 500)
	Timeout time.Duration
}

const stableJS = `function (quiet, t) { return globalThis.__gasolineActions.stable(quiet, t) }`

// WaitForStable waits until the page is quiet: no DOM mutation in the main
// frame and no request in flight for QuietMS, bounded by Timeout.
func (e *Engine) WaitForStable(ctx context.Context, tab int, args StableArgs) (*Result, error) {
	return e.run(ctx, tab, "wait_for_stable", runOpts{}, func(ctx context.Context, a *act) error {
		start := time.Now()
		quiet := idleWindow(args.QuietMS)
		ctx, cancel := waitBudget(ctx, args.Timeout)
		defer cancel()
		f := a.track()
		defer f.stop()
		for {
			if err := f.waitIdle(ctx, quiet); err != nil {
				return &tools.Error{Code: CodeWaitTimeout, Retryable: true,
					Message: fmt.Sprintf("requests kept the network busy for %s; wait longer, or wait_for a specific element", time.Since(start).Round(time.Millisecond))}
			}
			t0 := time.Now()
			ec, _, err := a.world(ctx, "", "")
			if err != nil {
				return timeoutOr(err, ctx)
			}
			var r struct {
				OK        bool
				Mutations int
			}
			c := jsCall{fn: stableJS, context: ec, args: []any{quiet.Milliseconds(), time.Until(deadline(ctx)).Milliseconds()}, await: true}
			if err := callValue(ctx, a.s, c, &r); errors.Is(err, errWorldGone) {
				a.forgetWorld("", "")
				continue // navigated: start over in the new document
			} else if err != nil {
				return timeoutOr(err, ctx)
			}
			if !r.OK {
				return &tools.Error{Code: CodeWaitTimeout, Retryable: true,
					Message: fmt.Sprintf("the page kept changing for %s (%d DOM mutations in the last try); wait longer or wait_for a specific element", time.Since(start).Round(time.Millisecond), r.Mutations)}
			}
			if open, last := f.state(); r.Mutations == 0 && open == 0 && last.Before(t0) {
				a.res.Message = fmt.Sprintf("the page is stable (after %d ms)", time.Since(start).Milliseconds())
				return nil
			}
		}
	})
}

func timeoutOr(err error, ctx context.Context) error {
	if ctx.Err() != nil {
		return &tools.Error{Code: CodeWaitTimeout, Retryable: true, Message: "the page did not settle in time"}
	}
	return err
}
