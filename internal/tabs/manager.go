package tabs

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Caller calls a method of the extension (a *browsers.Hub: a call naming a
// tab goes to the browser holding it).
type Caller interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Browsers chooses among the connected browsers (a *browsers.Hub).
type Browsers interface {
	// CallIn calls a method naming no tab in one browser.
	CallIn(ctx context.Context, slot browsers.Slot, method string, params any) (json.RawMessage, error)
	// Default is the browser new tabs go to when nothing says which.
	Default() (browsers.Slot, error)
	// Resolve finds the browser a call names (the browser argument).
	Resolve(name string) (browsers.Slot, error)
	// Revoke ends the calls waiting on tab with cause, and refuses calls
	// on its page until Allow.
	Revoke(tab int, cause error)
	// Allow lets calls reach the page of a tab a session holds anew.
	Allow(tab int)
}

// Owner is the MCP session a call comes from (a *session.Session).
type Owner interface {
	ID() string
	// Done is closed when the session has ended; its tabs are then
	// detached and released.
	Done() <-chan struct{}
}

// Config configures a Manager. Link and CDP are required.
type Config struct {
	Link Caller
	// Browsers chooses the browser of new tabs; nil: Link is the only
	// browser (slot 0).
	Browsers Browsers
	// Dir is the state directory where ownership is kept (tabs.json); ""
	// keeps it in memory only.
	Dir string
	// Started is told, before capture is enabled in a tab the user shared,
	// when its capture starts: what the tab logged before must never be
	// read (Chrome replays it when the debugger attaches).
	Started func(tab int, since time.Time)
	// CDP returns the typed session of a tab.
	CDP func(tab int) *cdp.Session
	// Enable turns on what capture needs in a tab whose debugger was just
	// attached (CDP domains, injected scripts). It must be safe to run
	// again on a tab where it already ran.
	Enable func(ctx context.Context, s *cdp.Session) error
	// Released is told when a tab leaves its session (closed, dragged out
	// of the group, session ended), so its buffers can go.
	Released func(tab int, reason string)
	// EnableTimeout bounds one background Enable; default 10 s.
	EnableTimeout time.Duration
	Logger        *slog.Logger
}

// Manager routes sessions to their tabs over the extension link. Its
// goroutines (session watchers, background enables and detaches) stop
// when the context given to New ends; Wait waits for them.
type Manager struct {
	cfg   Config
	reg   *Registry
	store *store // tabs.json; nil in memory
	log   *slog.Logger
	g     *routine.Group

	mu       sync.Mutex // guards the fields below
	attach   map[int]*attachState
	urls     map[int]string           // last known URL per owned tab
	watched  map[string]bool          // sessions with a watcher
	opening  map[string]chan struct{} // per-session lock around Open
	popups   chan struct{}            // closed when a popup is adopted (popupSignal)
	sessions int                      // sessions seen, for group colours
	lookup   func(id string) Owner    // finds sessions (Sessions)
	epochs   map[browsers.Slot]uint64 // connections of each browser (reconcile)

	recon sync.Mutex // one reconcile change (or a browser forgotten) at a time
}

// attachState tracks whether capture is enabled in a tab's current
// debugger attachment. gen moves on every attach, detach and link loss;
// capture is on while enabled == gen.
type attachState struct {
	lock     chan struct{} // held while Enable runs
	gen      uint64
	enabled  uint64
	detached string // reason of the last cdp.detached, until re-enabled
	pending  bool   // a background enable is queued or running
}

// New returns a Manager whose goroutines run until ctx ends.
func New(ctx context.Context, cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Enable == nil {
		cfg.Enable = func(context.Context, *cdp.Session) error { return nil }
	}
	if cfg.Released == nil {
		cfg.Released = func(int, string) {}
	}
	if cfg.EnableTimeout <= 0 {
		cfg.EnableTimeout = 10 * time.Second
	}
	if cfg.Started == nil {
		cfg.Started = func(int, time.Time) {}
	}
	if cfg.Browsers == nil {
		cfg.Browsers = single{cfg.Link}
	}
	m := &Manager{cfg: cfg, reg: NewRegistry(), log: cfg.Logger, g: routine.NewGroup(ctx),
		attach: map[int]*attachState{}, urls: map[int]string{}, watched: map[string]bool{}, opening: map[string]chan struct{}{},
		epochs: map[browsers.Slot]uint64{}}
	m.store = newStore(cfg.Dir, m.reg, func(err error) { m.log.Error("saving tab ownership failed; a daemon restart may lose it", "err", err) })
	if cfg.Dir != "" {
		saved, err := loadSaved(filepath.Join(cfg.Dir, StateFile))
		if err != nil {
			m.log.Warn("tab ownership file unreadable; sessions start without tabs", "file", StateFile, "err", err)
		}
		m.reg.Restore(saved)
	}
	return m
}

// saved writes the ownership state before returning (ownership changed).
func (m *Manager) saved() { m.store.save() }

// single is Browsers for one browser reached through one Caller.
type single struct{ link Caller }

func (s single) CallIn(ctx context.Context, _ browsers.Slot, method string, params any) (json.RawMessage, error) {
	return s.link.Call(ctx, method, params)
}
func (single) Default() (browsers.Slot, error) { return 0, nil }
func (single) Resolve(name string) (browsers.Slot, error) {
	return 0, tools.Errorf(browsers.CodeUnknownBrowser, "no browser called %q: this daemon knows one browser only", name)
}
func (single) Revoke(int, error) {}
func (single) Allow(int)         {}

// Wait waits for the manager's goroutines after its context ended.
func (m *Manager) Wait() { m.g.Wait() }

// Registry returns the ownership state.
func (m *Manager) Registry() *Registry { return m.reg }

func (m *Manager) state(tab int) *attachState {
	st := m.attach[tab]
	if st == nil {
		st = &attachState{lock: make(chan struct{}, 1)}
		m.attach[tab] = st
	}
	return st
}

// tracked is the attach state of a tab the manager tracks: one a session
// owns, or one it has state for already. The attach and detach events of
// any other tab (one released or closed: its detach comes after its
// removal) start no state, which would outlive the tab. Called with m.mu
// held.
func (m *Manager) tracked(tab int, owned bool) *attachState {
	if st := m.attach[tab]; st != nil || owned {
		return m.state(tab)
	}
	return nil
}

// ensure enables capture in tab unless it is on for the tab's current
// attachment. The first CDP call of Enable attaches the debugger when it
// is not attached.
func (m *Manager) ensure(ctx context.Context, tab int) error {
	m.mu.Lock()
	st := m.state(tab)
	m.mu.Unlock()
	select {
	case st.lock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-st.lock }()
	m.mu.Lock()
	on := st.gen != 0 && st.enabled == st.gen && st.detached == ""
	m.mu.Unlock()
	if on {
		return nil
	}
	start := time.Now()
	if err := m.cfg.Enable(ctx, m.cfg.CDP(tab)); err != nil {
		return err
	}
	m.mu.Lock()
	if st.gen == 0 { // attached before this manager saw an event
		st.gen++
	}
	st.enabled, st.detached = st.gen, ""
	m.mu.Unlock()
	m.log.Debug("capture enabled", "tab", tab, "ms", time.Since(start).Milliseconds())
	return nil
}

// enabled reports whether capture is on in tab.
func (m *Manager) enabled(tab int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.attach[tab]
	return st != nil && st.gen != 0 && st.enabled == st.gen && st.detached == ""
}

// ensureLater enables capture in an owned tab in the background.
func (m *Manager) ensureLater(tab int) {
	m.mu.Lock()
	st := m.state(tab)
	if st.pending {
		m.mu.Unlock()
		return
	}
	st.pending = true
	m.mu.Unlock()
	m.g.Go(func(ctx context.Context) {
		defer func() {
			m.mu.Lock()
			st.pending = false
			m.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(ctx, m.cfg.EnableTimeout)
		defer cancel()
		if !m.reg.Owned(tab) {
			return
		}
		if err := m.ensure(ctx, tab); err != nil {
			m.log.Info("enabling capture failed", "tab", tab, "err", ToolError(err))
		}
	})
}

// detachedReason returns why the tab's debugger was last detached, or "".
func (m *Manager) detachedReason(tab int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.attach[tab]; st != nil {
		return st.detached
	}
	return ""
}

// URL returns the last URL seen for an owned tab (from the extension's
// tabs.updated events and navigations), or "".
func (m *Manager) URL(tab int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.urls[tab]
}

func (m *Manager) setURL(tab int, url string) {
	if url == "" {
		return
	}
	m.mu.Lock()
	m.urls[tab] = url
	m.mu.Unlock()
}
