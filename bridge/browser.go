package bridge

import (
	"context"
	"encoding/json"

	"github.com/gasoline-mcp/gasoline/internal/analyze"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

// browser is the daemon's side of the browser relay: tab ownership per
// session, the capture buffers fed from CDP events, and the observe and
// tab modes over them.
type browser struct {
	link  tabs.Caller
	store *capture.Store
	tabs  *tabs.Manager
	feed  *observe.Feed
	obs   *observe.Observer
	act   *interactor // snapshot refs and the actions engine (interact.go)
	ana   *analyze.Analyzer
}

// serverRedactor is where server-stage redaction (SAFETY.md, stage 2) sits
// for captured entries: every entry passes it before it is stored
// (bridge/redaction_capture.go).
func (s *Server) serverRedactor() capture.Redactor { return s.captureRedactor }

// newBrowser builds the relay state; its goroutines stop with ctx (wait
// waits for them).
func (s *Server) newBrowser(ctx context.Context) (*browser, error) {
	store, err := capture.NewStore(&capture.Options{Redactor: s.serverRedactor()})
	if err != nil {
		return nil, err
	}
	b := &browser{link: &s.links, store: store}
	session := func(tab int) *cdp.Session { return s.CDP(tab) }
	b.tabs = tabs.New(ctx, tabs.Config{
		Link:   &s.links,
		CDP:    session,
		Enable: observe.Enable,
		Released: func(tab int, reason string) {
			b.store.Forget(tab)
			b.feed.Forget(tab)
			b.act.forget(tab)
			s.router.Forget(tab) // waiters on its events stop; they ask the registry why
		},
		Logger: s.log,
	})
	b.feed = observe.NewFeed(ctx, observe.FeedConfig{Store: store, Owned: b.tabs.Registry().Owned, CDP: session, Logger: s.log})
	b.act = newInteractor(s, b)
	s.scoper = b.scope
	b.obs = observe.New(observe.Config{Tabs: b.tabs, Store: store, Feed: b.feed, Link: &s.links, Dir: s.cfg.Dir,
		ResolveRef: b.act.resolveRef, Logger: s.log})
	b.ana = s.newAnalyzer(b)
	return b, nil
}

// register makes the observe modes, the tab modes, observe snapshot and
// the actions engine's interact modes work.
func (b *browser) register(m *mcpserver.Server) {
	b.obs.Register(m)
	b.act.register(m)
	b.ana.Register(m)
	m.Handle("interact", "new_tab", b.newTab)
	m.Handle("interact", "navigate", b.navigate)
	m.Handle("interact", "switch_tab", b.switchTab)
	m.Handle("interact", "close_tab", b.closeTab)
}

func (b *browser) wait() {
	b.tabs.Wait()
	b.feed.Wait()
}

// event routes one extension event to the relay state. It runs on the
// link's read goroutine, before the CDP router forgets a tab, and never
// blocks.
func (b *browser) event(method string, tab int, session, cdpMethod string, params json.RawMessage, raw json.RawMessage) {
	b.act.event(method, tab, session, cdpMethod, params)
	switch method {
	case "cdp.event":
		b.feed.Event(tab, session, cdpMethod, params)
	case "cdp.attached":
		b.feed.Attached(tab) // before the replayed console messages
		b.tabs.OnEvent(method, raw)
	default:
		b.tabs.OnEvent(method, raw)
	}
}

// Capture returns the capture buffers (for tests and benchmarks).
func (s *Server) Capture() *capture.Store { return s.browser.store }

// Tabs returns the tab ownership manager.
func (s *Server) Tabs() *tabs.Manager { return s.browser.tabs }
