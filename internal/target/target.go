// Package target is one tab as the daemon holds it. chromedp's Target is
// the model: a Target owns the tab's CDP session and its child sessions
// (out-of-process iframes, workers), the subscriptions of whoever waits
// on its events, and the per-tab state of every part of the daemon that
// keeps some (capture's replay fence, snapshot refs, the action queue, the
// action recorder's install: Part); it ends with its context. The tab
// manager owns the targets (Set): it makes one when a tab joins a session
// and closes it when the tab leaves, and the extension link's events go
// to the target by tab id in one step (Set.Event).
package target

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

// Target is one tab. Make targets with a Set; a Target is safe for
// concurrent use.
type Target struct {
	id  int
	set *Set
	// ctx ends when the target closes; Context hands it out.
	ctx    context.Context
	cancel context.CancelFunc
	// events delivers the tab's events to waiters (Session.Subscribe);
	// its subscriptions end when the debugger detaches or the target
	// closes.
	events *cdp.Router

	mu       sync.Mutex
	children []Child          // the live child sessions, oldest first
	parts    map[*partKey]any // per-tab state of the daemon's parts (Part)
	since    time.Time        // capture starts here (a tab the user shared); zero: from the start
	closed   bool
}

// maxChildren bounds the child sessions remembered per tab.
const maxChildren = 64

// Child is a child session of a tab: an out-of-process iframe or a
// worker. An iframe's target id is its frame id.
type Child struct {
	SessionID string
	Type      string // iframe, worker, service_worker, shared_worker, …
	TargetID  string
}

// ID is the tab's Gasoline tab id.
func (t *Target) ID() int { return t.id }

// Context ends when the target closes (its tab left its session, closed,
// or was replaced).
func (t *Target) Context() context.Context { return t.ctx }

// Session is the tab's CDP session (internal/cdp).
func (t *Target) Session() *cdp.Session { return t.events.Session(t.set.cfg.Caller, t.id) }

// Child is the CDP session of one of the tab's child targets.
func (t *Target) Child(sessionID string) *cdp.Session { return t.Session().Child(sessionID) }

// Owned reports whether a session holds the tab: only held tabs are
// captured and recorded.
func (t *Target) Owned() bool {
	_, ok := t.Owner()
	return ok
}

// Owner is the session holding the tab.
func (t *Target) Owner() (string, bool) {
	if t.set.cfg.Owner == nil {
		return "", false
	}
	return t.set.cfg.Owner(t.id)
}

// Children returns the tab's live child sessions, newest first.
func (t *Target) Children() []Child {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.children)
	slices.Reverse(out)
	return out
}

// ChildOf returns the child session of an out-of-process iframe, by its
// frame id.
func (t *Target) ChildOf(frame string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.children {
		if c.Type == "iframe" && c.TargetID == frame {
			return c.SessionID, true
		}
	}
	return "", false
}

// StartCapture makes the tab's capture start at since: what it logged
// before (Chrome replays it when the debugger attaches) is never read.
// For a tab the user shares: what it logged before it was shared is not
// the agent's.
func (t *Target) StartCapture(since time.Time) {
	t.mu.Lock()
	t.since = since
	t.mu.Unlock()
}

// CaptureStart is where the tab's capture starts (zero: from the start).
func (t *Target) CaptureStart() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.since
}

// event handles one CDP event of the tab (session "") or of a child
// session, on the link's read goroutine: the child sessions first, then
// the set's listeners in order, then the waiters. It never blocks.
func (t *Target) event(session, method string, params json.RawMessage) {
	switch method {
	case cdptarget.AttachedToTarget.Method:
		var ev cdptarget.EventAttachedToTarget
		if jsonv2.Unmarshal(params, &ev) == nil && ev.SessionID != "" && ev.TargetInfo != nil {
			t.childAttached(Child{SessionID: string(ev.SessionID), Type: ev.TargetInfo.Type, TargetID: string(ev.TargetInfo.TargetID)})
		}
	case cdptarget.DetachedFromTarget.Method:
		var ev cdptarget.EventDetachedFromTarget
		if jsonv2.Unmarshal(params, &ev) == nil {
			t.childDetached(string(ev.SessionID))
		}
	}
	ev := Event{Session: session, Method: method, Params: params}
	for _, l := range t.set.listeners() {
		l.Event(t, ev)
	}
	t.events.Dispatch(t.id, session, method, params)
}

func (t *Target) childAttached(c Child) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.children) == maxChildren {
		t.children = slices.Delete(t.children, 0, 1)
	}
	t.children = append(t.children, c)
}

func (t *Target) childDetached(sid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.children = slices.DeleteFunc(t.children, func(c Child) bool { return c.SessionID == sid })
}

// attached is told the debugger attached to the tab anew: child sessions
// do not survive an attachment, and the listeners that care are told
// before any event of the new one.
func (t *Target) attached() {
	t.mu.Lock()
	t.children = nil
	t.mu.Unlock()
	for _, l := range t.set.listeners() {
		if a, ok := l.(Attacher); ok {
			a.Attached(t)
		}
	}
}

// detached is told the debugger left the tab: its child sessions are gone
// and the waiters on its events stop at once (they ask the tab manager
// why).
func (t *Target) detached() {
	t.mu.Lock()
	t.children = nil
	t.mu.Unlock()
	for _, l := range t.set.listeners() {
		if d, ok := l.(Detacher); ok {
			d.Detached(t)
		}
	}
	t.events.Forget(t.id)
}

// close ends the target: its context, its waiters, and every part's
// state, which the listeners that keep state elsewhere drop (Closer).
func (t *Target) close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	parts := t.parts
	t.parts, t.children = nil, nil
	t.mu.Unlock()
	t.cancel()
	t.events.Forget(t.id)
	for _, v := range parts {
		if c, ok := v.(interface{ Close() }); ok {
			c.Close()
		}
	}
	for _, l := range t.set.listeners() {
		if c, ok := l.(Closer); ok {
			c.Closed(t)
		}
	}
}
