package approval

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// fakeClock is a manual clock: time moves only on Advance, which fires the
// timers that come due.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	c       chan time.Time
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{at: f.now.Add(d), c: make(chan time.Time, 1)}
	f.timers = append(f.timers, t)
	return &fakeTimerHandle{f: f, t: t}
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.timers[:0]
	for _, t := range f.timers {
		if !t.stopped && !f.now.Before(t.at) {
			t.c <- f.now
			continue
		}
		if !t.stopped {
			kept = append(kept, t)
		}
	}
	f.timers = kept
}

type fakeTimerHandle struct {
	f *fakeClock
	t *fakeTimer
}

func (h *fakeTimerHandle) C() <-chan time.Time { return h.t.c }
func (h *fakeTimerHandle) Stop() bool {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	was := !h.t.stopped
	h.t.stopped = true
	return was
}

// newEngine builds an engine for a test; opts may be nil.
func newEngine(t testing.TB, opts *Options) *Engine {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// click is a mutating click on tab 7 of shop.example by session s1.
func click() Request {
	return Request{
		SessionID: "s1", Action: "interact.click", Class: policy.Mutating,
		Scope:  Scope{TabID: 7, Origin: "https://shop.example/checkout"},
		Target: `button "Pay now" on https://shop.example/checkout`,
	}
}

// mustPolicy parses a policy for a test.
func mustPolicy(t testing.TB, s string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(s))
	if err != nil {
		t.Fatalf("policy.Parse: %v", err)
	}
	return p
}

// wantReason fails unless err is an *Error (or *RequiredError) whose reason
// is want and whose code is code.
func wantReason(t *testing.T, err, want error, code string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
	if got := Code(err); got != code {
		t.Fatalf("code of %v = %q, want %q", err, got, code)
	}
}

// required returns the *RequiredError in err or fails.
func required(t *testing.T, err error) *RequiredError {
	t.Helper()
	var re *RequiredError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v, want *RequiredError", err)
	}
	return re
}

// nextEvent reads one event of type want from ch (skipping none).
func nextEvent(t *testing.T, ch <-chan Event, want EventType) Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("event channel closed, want %s", want)
		}
		if ev.Type != want {
			t.Fatalf("event %s (%s), want %s", ev.Type, ev.Reason, want)
		}
		return ev
	default:
		t.Fatalf("no event, want %s", want)
	}
	return Event{}
}

// skipTo reads events from ch until one of type want, skipping others.
func skipTo(t *testing.T, ch <-chan Event, want EventType) Event {
	t.Helper()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("event channel closed, want %s", want)
			}
			if ev.Type == want {
				return ev
			}
		default:
			t.Fatalf("no %s event", want)
		}
	}
}
