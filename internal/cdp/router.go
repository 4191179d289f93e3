package cdp

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp/jsonv2"
)

// SubscriberBuffer is how many events one subscription holds before newer
// ones are dropped (and counted): a subscriber that stops reading must not
// stall the extension link.
const SubscriberBuffer = 1024

type key struct {
	tab     int
	session string
	method  string
}

type sub struct {
	ch     chan jsonv2.Value
	closed bool
}

// Router delivers CDP events from the extension link to subscribers. Its
// state is one small locked struct; Dispatch and subscribe/cancel/Forget
// are its only mutations.
type Router struct {
	mu      sync.Mutex
	subs    map[key][]*sub
	dropped atomic.Uint64
}

// NewRouter returns an empty router.
func NewRouter() *Router { return &Router{subs: map[key][]*sub{}} }

// Session returns the session for a tab, calling through caller.
func (r *Router) Session(caller Caller, tabID int) *Session {
	return &Session{caller: caller, router: r, tabID: tabID}
}

// Dropped counts events dropped because a subscriber's buffer was full.
func (r *Router) Dropped() uint64 { return r.dropped.Load() }

// Dispatch hands one event to its subscribers without blocking.
func (r *Router) Dispatch(tabID int, sessionID, method string, params json.RawMessage) {
	k := key{tab: tabID, session: sessionID, method: method}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.subs[k] {
		select {
		case s.ch <- jsonv2.Value(params):
		default:
			r.dropped.Add(1)
		}
	}
}

// Forget ends every subscription on a tab (it closed, or left the
// session): their channels close, so waiters stop at once.
func (r *Router) Forget(tabID int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, subs := range r.subs {
		if k.tab != tabID {
			continue
		}
		for _, s := range subs {
			s.closed = true
			close(s.ch)
		}
		delete(r.subs, k)
	}
}

func (r *Router) subscribe(k key) (<-chan jsonv2.Value, func()) {
	s := &sub{ch: make(chan jsonv2.Value, SubscriberBuffer)}
	r.mu.Lock()
	r.subs[k] = append(r.subs[k], s)
	r.mu.Unlock()
	var once sync.Once
	return s.ch, func() { once.Do(func() { r.cancel(k, s) }) }
}

func (r *Router) cancel(k key, s *sub) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.closed {
		return
	}
	subs := r.subs[k]
	for i, x := range subs {
		if x == s {
			r.subs[k] = append(subs[:i], subs[i+1:]...)
			break
		}
	}
	if len(r.subs[k]) == 0 {
		delete(r.subs, k)
	}
	s.closed = true
	close(s.ch)
}
