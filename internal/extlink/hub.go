package extlink

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Hub tracks the live links. Calls go to the most recently readied link
// (the browser the user most recently started); a link that closes drops
// out and the previous one, if still live, takes over.
type Hub struct {
	mu      sync.Mutex
	links   []*Link       // readied links, oldest first
	changed chan struct{} // closed and replaced on every Add
}

// Add registers a link that completed hello.
func (h *Hub) Add(l *Link) {
	h.mu.Lock()
	h.links = append(h.links, l)
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
	h.mu.Unlock()
}

// Wait returns the current link, waiting for one to connect until ctx ends.
func (h *Hub) Wait(ctx context.Context) (*Link, error) {
	for {
		h.mu.Lock()
		if n := len(h.links); n > 0 {
			l := h.links[n-1]
			h.mu.Unlock()
			return l, nil
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, protocol.Errorf(protocol.CodeExtensionDisconnected, true,
				"no browser extension connected in time: open Chrome with the Gasoline extension installed (gasoline-host doctor checks the setup)")
		}
	}
}

// Remove forgets l.
func (h *Hub) Remove(l *Link) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, x := range h.links {
		if x == l {
			h.links = append(h.links[:i], h.links[i+1:]...)
			return
		}
	}
}

// Current returns the link calls go to, or nil.
func (h *Hub) Current() *Link {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.links) == 0 {
		return nil
	}
	return h.links[len(h.links)-1]
}

// Connected reports whether any extension is connected.
func (h *Hub) Connected() bool { return h.Current() != nil }

// Call calls method on the current link.
func (h *Hub) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	l := h.Current()
	if l == nil {
		return nil, protocol.Errorf(protocol.CodeExtensionDisconnected, true,
			"no browser extension is connected: open Chrome with the Gasoline extension installed (gasoline-host doctor checks the setup)")
	}
	return l.Call(ctx, method, params)
}

// Broadcast sends an event to every connected extension, bounded by ctx;
// a link that cannot take it is skipped (it is closing).
func (h *Hub) Broadcast(ctx context.Context, method string, params any) {
	h.mu.Lock()
	links := append([]*Link(nil), h.links...)
	h.mu.Unlock()
	for _, l := range links {
		l.Notify(ctx, method, params)
	}
}
