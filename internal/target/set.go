package target

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

// Event is one CDP event of a target: of the tab itself (Session "") or
// of one of its child sessions.
type Event struct {
	Session string
	Method  string
	Params  json.RawMessage
}

// A Listener is a part of the daemon that follows every target's events
// and keeps per-tab state in it (Part): capture, snapshot refs, the action
// recorder. Event runs on the extension link's read goroutine and must not
// block.
type Listener interface {
	Event(t *Target, ev Event)
}

// An Attacher is told, before any event of it, that the debugger attached
// to the tab anew.
type Attacher interface {
	Attached(t *Target)
}

// A Detacher is told that the debugger left the tab (what came from the
// attachment is stale; the next one repeats what stands).
type Detacher interface {
	Detached(t *Target)
}

// An Enabler turns on what it needs in a tab whose debugger just attached
// (CDP domains, injected scripts). It must be safe to run again.
type Enabler interface {
	Enable(ctx context.Context, t *Target) error
}

// A Closer keeps state of its own about a tab outside the target (the
// capture store's buffers) and drops it when the target closes.
type Closer interface {
	Closed(t *Target)
}

// Config configures a Set. Caller is required.
type Config struct {
	// Caller reaches the browser holding a tab (a *browsers.Hub).
	Caller cdp.Caller
	// Owner is the session holding a tab; a tab a session holds gets a
	// target when an event of it arrives.
	Owner func(tab int) (session string, ok bool)
}

// Set is the targets of the tabs the daemon holds, by tab id, and the
// listeners every target tells its events to, in the order they were
// added. The tab manager owns it.
type Set struct {
	cfg Config
	ctx context.Context

	mu      sync.Mutex
	targets map[int]*Target
	ls      []Listener // replaced, never changed: a reader's copy stays valid
}

// NewSet returns a Set whose targets' contexts derive from ctx.
func NewSet(ctx context.Context, cfg Config) *Set {
	if cfg.Caller == nil {
		panic("target: Config.Caller is required")
	}
	return &Set{cfg: cfg, ctx: ctx, targets: map[int]*Target{}}
}

// Listen adds listeners, after the ones added before: every target tells
// them its events in that order (capture first, so that a part that sees
// an event knows the buffers hold it). Add them before the daemon serves.
func (s *Set) Listen(ls ...Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ls = append(s.ls[:len(s.ls):len(s.ls)], ls...)
}

func (s *Set) listeners() []Listener {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ls
}

// Get returns the tab's target, making it if there is none.
func (s *Set) Get(tab int) *Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getLocked(tab)
}

func (s *Set) getLocked(tab int) *Target {
	if t := s.targets[tab]; t != nil {
		return t
	}
	ctx, cancel := context.WithCancel(s.ctx)
	t := &Target{id: tab, set: s, ctx: ctx, cancel: cancel, events: cdp.NewRouter(), parts: map[*partKey]any{}}
	s.targets[tab] = t
	return t
}

// Lookup returns the tab's target, if it has one.
func (s *Set) Lookup(tab int) (*Target, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.targets[tab]
	return t, ok
}

// Each calls fn for every target (in no order).
func (s *Set) Each(fn func(t *Target)) {
	s.mu.Lock()
	all := make([]*Target, 0, len(s.targets))
	for _, t := range s.targets {
		all = append(all, t)
	}
	s.mu.Unlock()
	for _, t := range all {
		fn(t)
	}
}

// Event routes one CDP event of a tab to its target: one the daemon has,
// or one a session holds (it gets its target now). Others are dropped:
// nothing waits on them and they are not captured.
func (s *Set) Event(tab int, session, method string, params json.RawMessage) {
	s.mu.Lock()
	t := s.targets[tab]
	s.mu.Unlock()
	if t == nil {
		if _, held := s.owner(tab); !held {
			return
		}
		t = s.Get(tab)
	}
	t.event(session, method, params)
}

func (s *Set) owner(tab int) (string, bool) {
	if s.cfg.Owner == nil {
		return "", false
	}
	return s.cfg.Owner(tab)
}

// Attached tells the tab's target that the debugger attached anew.
func (s *Set) Attached(tab int) {
	if t, ok := s.Lookup(tab); ok {
		t.attached()
	}
}

// Detached tells the tab's target that the debugger left.
func (s *Set) Detached(tab int) {
	if t, ok := s.Lookup(tab); ok {
		t.detached()
	}
}

// Enable runs every Enabler on a target whose debugger just attached, in
// order; the first error stops it.
func (s *Set) Enable(ctx context.Context, t *Target) error {
	for _, l := range s.listeners() {
		if e, ok := l.(Enabler); ok {
			if err := e.Enable(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close ends the tab's target — its context, the waiters on its events,
// and all the daemon keeps about the tab — and forgets it. A later Get
// makes a new one.
func (s *Set) Close(tab int) {
	s.mu.Lock()
	t := s.targets[tab]
	delete(s.targets, tab)
	s.mu.Unlock()
	if t != nil {
		t.close()
	}
}

// Len is how many targets the set has.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.targets)
}
