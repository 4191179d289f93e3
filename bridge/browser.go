package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/analyze"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/interact"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/noise"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/pagetools"
	"github.com/gasoline-mcp/gasoline/internal/recorder"
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
	act   *interact.Interact // snapshot refs, the actions engine, the tab modes
	// actions is the in-page action recorder (capturemodes.go); set
	// before the daemon serves.
	actions *recorder.Recorder
	noise   *noise.Rules
	log     *slog.Logger
	ana     *analyze.Analyzer
	pages   *pagetools.Manager // the pages' own WebMCP tools
}

// newBrowser builds the relay state; its goroutines stop with ctx (wait
// waits for them).
func (s *Server) newBrowser(ctx context.Context) (*browser, error) {
	store, err := capture.NewStore(&capture.Options{Redactor: s.safe.CaptureRedactor}) // server-stage redaction of every entry
	if err != nil {
		return nil, err
	}
	b := &browser{link: s.links, store: store, noise: noise.Open(s.cfg.Dir), log: s.log}
	session := func(tab int) *cdp.Session { return s.CDP(tab) }
	b.tabs = tabs.New(ctx, tabs.Config{
		Link:     s.links,
		Browsers: s.links,
		Dir:      s.cfg.Dir,
		CDP:      session,
		Enable:   b.enable,
		Started:  func(tab int, since time.Time) { b.feed.StartAt(tab, since) },
		Released: func(tab int, reason string) {
			b.store.Forget(tab)
			if b.actions != nil {
				b.actions.Forget(tab)
			}
			b.feed.Forget(tab)
			b.obs.Forget(tab)
			b.act.Forget(tab)
			b.pages.Forget(tab)
			s.router.Forget(tab) // waiters on its events stop; they ask the registry why
		},
		Logger: s.log,
	})
	s.links.SetInUse(b.tabs.Registry().InUse) // a browser away keeps its tab ids while sessions hold tabs there
	b.feed = observe.NewFeed(ctx, observe.FeedConfig{Store: store, Owned: b.tabs.Registry().Owned, CDP: session, Logger: s.log})
	b.act = interact.New(interact.Config{Tabs: b.tabs, CDP: session, Link: s.links, Capture: store, Dir: s.cfg.Dir,
		Egress: s.safe.Egress(), Secrets: s.safe.MaskSelectors, Logger: s.log,
		Redact: func(text string) (string, error) { return s.safe.RedactText("", text) }})
	b.obs = observe.New(observe.Config{Tabs: b.tabs, Store: store, Feed: b.feed, Browsers: s.links, Dir: s.cfg.Dir,
		ResolveRef: b.act.ResolveRef, Noise: b.noise, Logger: s.log})
	b.ana = s.newAnalyzer(b)
	if b.pages, err = pagetools.New(pagetools.Config{Tabs: b.tabs, Lock: b.act.Lock, Audit: s.safe.Audit.Write, Logger: s.log}); err != nil {
		return nil, err
	}
	return b, nil
}

// register makes the observe modes, the tab modes, observe snapshot and
// the actions engine's interact modes work.
func (b *browser) register(m *mcpserver.Server) {
	b.obs.Register(m)
	b.act.Register(m)
	b.ana.Register(m)
	b.pages.Register(m)
}

// enable turns on capture in an attached tab, then Chrome's WebMCP domain
// (the page's tools; a Chrome without it is noted, not an error) and the
// action recorder (best effort: a tab whose recorder failed still
// captures the rest).
func (b *browser) enable(ctx context.Context, s *cdp.Session) error {
	if err := observe.Enable(ctx, s); err != nil {
		return err
	}
	if err := b.pages.Enable(ctx, s); err != nil || b.actions == nil {
		return err
	}
	if err := b.actions.Install(ctx, s); err != nil {
		b.log.Warn("action recorder not installed; observe actions stays empty for this tab", "tab", s.TabID(), "err", err)
	}
	return nil
}

func (b *browser) wait() {
	b.tabs.Wait()
	b.feed.Wait()
}

// event routes one extension event to the relay state. It runs on the
// link's read goroutine, before the CDP router forgets a tab, and never
// blocks.
func (b *browser) event(method string, tab int, session, cdpMethod string, params json.RawMessage, raw json.RawMessage) {
	b.act.Event(method, tab, session, cdpMethod, params)
	b.pages.Event(method, tab, session, cdpMethod, params)
	switch method {
	case "cdp.event":
		b.feed.Event(tab, session, cdpMethod, params)
		if b.actions != nil && b.tabs.Registry().Owned(tab) {
			b.actions.Event(tab, session, cdpMethod, params)
		}
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

// Children returns a tab's live child sessions (workers and out-of-process
// iframes), for tests.
func (s *Server) Children(tab int) []observe.Child { return s.browser.feed.Children(tab) }

// page is a tab's title and address as the browser reports them, for an
// approval prompt (gate.Config.Page).
func (b *browser) page(ctx context.Context, tab int) (approval.Page, error) {
	t, err := b.tabs.Info(ctx, tab)
	return approval.Page{Title: t.Title, URL: t.URL}, err
}
