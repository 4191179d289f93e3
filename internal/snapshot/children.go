package snapshot

import (
	"context"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Children tracks the child CDP sessions of out-of-process iframes, per
// tab, from Target.attachedToTarget and Target.detachedFromTarget (the
// extension auto-attaches them with flatten). An OOPIF's target id is its
// frame id. Its Lookup method is a ChildFunc.
type Children struct {
	mu   sync.Mutex
	tabs map[int]map[cdproto.FrameID]string
}

// NewChildren returns an empty tracker.
func NewChildren() *Children { return &Children{tabs: map[int]map[cdproto.FrameID]string{}} }

// Attached records an attachedToTarget event of tab (iframes only).
func (c *Children) Attached(tab int, ev *target.EventAttachedToTarget) {
	if ev == nil || ev.TargetInfo == nil || ev.TargetInfo.Type != "iframe" || ev.SessionID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.tabs[tab]
	if m == nil {
		m = map[cdproto.FrameID]string{}
		c.tabs[tab] = m
	}
	m[cdproto.FrameID(ev.TargetInfo.TargetID)] = string(ev.SessionID)
}

// Detached records a detachedFromTarget event of tab.
func (c *Children) Detached(tab int, ev *target.EventDetachedFromTarget) {
	if ev == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for f, sid := range c.tabs[tab] {
		if sid == string(ev.SessionID) {
			delete(c.tabs[tab], f)
		}
	}
}

// Forget drops a tab's sessions (it closed or was detached).
func (c *Children) Forget(tab int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tabs, tab)
}

// Lookup returns the child session of frame in tab.
func (c *Children) Lookup(tab int, frame cdproto.FrameID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sid, ok := c.tabs[tab][frame]
	return sid, ok
}

// Watch feeds the tracker from a tab session's events until ctx ends or
// the session closes. Frames nested in an OOPIF attach on its child
// session; a dispatcher that routes every session's events should call
// Attached and Detached itself instead.
func (c *Children) Watch(ctx context.Context, tab int, s cdproto.Session) {
	att, cancelA := s.Subscribe(target.AttachedToTarget.Method)
	defer cancelA()
	det, cancelD := s.Subscribe(target.DetachedFromTarget.Method)
	defer cancelD()
	for {
		select {
		case <-ctx.Done():
			return
		case raw, ok := <-att:
			if !ok {
				return
			}
			var ev target.EventAttachedToTarget
			if jsonv2.Unmarshal(raw, &ev) == nil {
				c.Attached(tab, &ev)
			}
		case raw, ok := <-det:
			if !ok {
				return
			}
			var ev target.EventDetachedFromTarget
			if jsonv2.Unmarshal(raw, &ev) == nil {
				c.Detached(tab, &ev)
			}
		}
	}
}
