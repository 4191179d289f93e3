// Package hold keeps a background tab painting. Chrome draws a hidden tab
// about once a second: its transitions do not end, its captures stall and
// its paint timings wait for that second. A screencast that sends no
// frames (Params) makes Chrome draw the tab at the display's rate while it
// runs. The screencast is the tab's, so this package is its one owner:
// whoever needs the tab painting for a while (a trace, a click waiting for
// what it set moving) shares one screencast through Paint — the first
// starts it, the last stops it — and a capture, which starts and stops it
// within its own request, asks Capture whether it may stop it after.
package hold

import (
	"context"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Params start the screencast that holds a tab painting: the smallest
// JPEG, and no frame sent (everyNthFrame is beyond any hold's life).
var Params = page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, Quality: ptr(1),
	MaxWidth: 8, MaxHeight: 8, EveryNthFrame: 1 << 30, MaxFramesInFlight: 1}

func ptr(v int64) *int64 { return &v }

// stopWait bounds the stop of a screencast whose holder is gone (its
// context may have ended with it).
const stopWait = 5 * time.Second

// lock is a tab's screencast: ch (a channel of one, so that waiting ends
// with the caller's context) is held while n changes and the screencast
// starts or stops, and for the whole request of a capture that starts and
// stops it itself; n counts the holders sharing it.
type lock struct {
	ch chan struct{}
	n  int
}

var part = target.NewPart("screencast hold", func(*target.Target) *lock {
	return &lock{ch: make(chan struct{}, 1)}
})

func (l *lock) take(ctx context.Context) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *lock) give() { <-l.ch }

// Paint holds tab t painting until release is called: the first holder
// starts the screencast on s (the tab's session), the last one's release
// stops it. It waits, bounded by ctx, for a capture in progress.
func Paint(ctx context.Context, t *target.Target, s cdproto.Session) (release func(), err error) {
	l := part.Of(t)
	if err := l.take(ctx); err != nil {
		return nil, err
	}
	defer l.give()
	if l.n == 0 {
		if _, err := cdproto.Call(ctx, s, page.StartScreencast, Params); err != nil {
			return nil, err
		}
	}
	l.n++
	return func() { l.drop(s) }, nil
}

// drop lets go of one hold, stopping the screencast after the last.
// It waits for a capture in progress (bounded by the capture's own call).
func (l *lock) drop(s cdproto.Session) {
	_ = l.take(context.Background())
	defer l.give()
	l.n--
	if l.n == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), stopWait)
		defer cancel()
		_, _ = cdproto.Call(ctx, s, page.StopScreencast, cdproto.Empty{})
	}
}

// Capture is for a capture that starts the screencast in its own request
// (starting one that runs changes nothing: the same Params). shared
// reports that others hold the tab painting: the capture must not stop
// the screencast then, and done (after the capture, always) lets go of
// its share. Otherwise the capture has the screencast to itself until
// done — it stops it in its request — and Paint waits for it.
func Capture(ctx context.Context, t *target.Target, s cdproto.Session) (shared bool, done func(), err error) {
	l := part.Of(t)
	if err := l.take(ctx); err != nil {
		return false, nil, err
	}
	if l.n == 0 {
		return false, l.give, nil
	}
	l.n++
	l.give()
	return true, func() { l.drop(s) }, nil
}
