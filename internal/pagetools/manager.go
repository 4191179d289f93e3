package pagetools

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webmcp"

	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

// Tabs is what the package asks about a session's tabs (*tabs.Manager).
type Tabs interface {
	// Session is a CDP session on a tab the session may use (0: its
	// current tab), attached and with capture (and WebMCP) enabled.
	Session(ctx context.Context, sid string, tab int) (*cdp.Session, error)
	// Resolve returns the tab a call addresses (0: the current one).
	Resolve(sid string, tab int) (int, bool)
}

// Config configures a Manager. Tabs, Lock and Audit are required.
type Config struct {
	Tabs Tabs
	// Lock holds a tab's action queue while a page tool runs, so it never
	// interleaves with a click or a snapshot.
	Lock func(ctx context.Context, tab int) (func(), error)
	// Audit records the calls that ran without asking because the page
	// marked the tool read-only (the audit log).
	Audit  func(audit.Entry) error
	Logger *slog.Logger
}

// Manager keeps every tab's page tools and serves the two modes.
type Manager struct {
	cfg     Config
	log     *slog.Logger
	mu      sync.Mutex
	tabs    map[int]*tabState
	changes uint64 // the last tabState.gen given out
	// boundHook, in tests, hears each invocation id a call learned.
	boundHook func(id string)
}

// New returns a Manager.
func New(cfg Config) (*Manager, error) {
	if cfg.Tabs == nil || cfg.Lock == nil || cfg.Audit == nil {
		return nil, errors.New("pagetools: Config.Tabs, Lock and Audit are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{cfg: cfg, log: log, tabs: map[int]*tabState{}}, nil
}

// Enable turns on Chrome's WebMCP domain in a tab that was just attached
// (the tab manager's Enable hook calls it after capture). Chrome then
// reports the main frame's tools at once, and every tool the page adds or
// removes from then on. A Chrome without the domain is not an error: the
// tab's listing says so.
func (m *Manager) Enable(ctx context.Context, s *cdp.Session) error {
	tab := s.TabID()
	m.mu.Lock()
	t := m.tabs[tab]
	if t == nil {
		t = newTabState()
		m.tabs[tab] = t
	}
	t.close(outcome{kind: detached}) // what the last attachment said is stale; Chrome repeats what stands
	t.gen = m.next()
	m.mu.Unlock()
	_, err := cdproto.Call(ctx, s, webmcp.Enable, cdproto.Empty{})
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tabs[tab] != t {
		return nil // forgotten meanwhile
	}
	if err != nil {
		t.state, t.detail = unavailable, err.Error()
		m.log.Warn("WebMCP.enable failed; page tools unavailable in this tab", "tab", tab, "err", err)
		return nil
	}
	t.state = enabled
	return nil
}

// next is a new generation; m.mu is held.
func (m *Manager) next() uint64 {
	m.changes++
	return m.changes
}

// generation is the tab's tools' generation now (0: no state).
func (m *Manager) generation(tab int) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tabs[tab]; t != nil {
		return t.gen
	}
	return 0
}

// Forget drops a tab that left its session; its calls end.
func (m *Manager) Forget(tab int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tabs[tab]; t != nil {
		t.close(outcome{kind: detached})
		delete(m.tabs, tab)
	}
}

// registered returns a copy of the tab's tools as Chrome reported them,
// and whether WebMCP.enable succeeded (detail says why not).
func (m *Manager) registered(tab int) ([]Tool, enableState, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tabs[tab]
	if t == nil {
		return nil, notEnabled, ""
	}
	out := make([]Tool, 0, len(t.tools))
	for _, x := range t.tools {
		out = append(out, *x)
	}
	return out, t.state, t.detail
}

// track registers a call before it is sent, so that its answer, the
// tool's removal or the frame's navigation reach it whenever they come.
func (m *Manager) track(tab int, frame, name string) (*invocation, func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tabs[tab]
	if t == nil {
		return nil, nil, errNotEnabled
	}
	c := &invocation{frame: frame, name: name, done: make(chan outcome, 1)}
	t.calls = append(t.calls, c)
	untrack := func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if x := m.tabs[tab]; x != nil {
			x.end(func(y *invocation) bool { return y == c }, outcome{kind: detached})
		}
	}
	return c, untrack, nil
}

// bound records the invocation id invokeTool answered.
func (m *Manager) bound(tab int, c *invocation, id string) {
	m.mu.Lock()
	if t := m.tabs[tab]; t != nil {
		t.bindID(c, id)
	}
	m.mu.Unlock()
	if m.boundHook != nil {
		m.boundHook(id)
	}
}
