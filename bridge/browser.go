package bridge

import (
	"context"
	"log/slog"

	"github.com/gasoline-mcp/gasoline/internal/analyze"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/devtools"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/feed"
	"github.com/gasoline-mcp/gasoline/internal/interact"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/noise"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/pagetools"
	"github.com/gasoline-mcp/gasoline/internal/recorder"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// browser is the daemon's side of the browser relay: the tab manager, which
// owns a target per held tab (internal/target), and the parts that keep
// state in every target — capture (the feed), refs and the action queue
// (interact), the page's own tools (pagetools), the action recorder —
// with the observe, interact and analyze modes over them.
type browser struct {
	store   *capture.Store
	tabs    *tabs.Manager
	feed    *feed.Feed
	obs     *observe.Observer
	act     *interact.Interact // snapshot refs, the actions engine, the tab modes
	actions *recorder.Recorder // the in-page action recorder
	export  *export.Recorder   // the session export's record (generate reads it)
	noise   *noise.Rules
	ana     *analyze.Analyzer
	pages   *pagetools.Manager // the pages' own WebMCP tools
	dev     *devtools.Manager  // emulation, routes, downloads, traces and PDF
	log     *slog.Logger
}

// newBrowser builds the relay state; its goroutines stop with ctx (wait
// waits for them). Every part is built whole before the next needs it,
// then the parts that keep per-tab state listen to the targets, in the
// order their events must reach them.
func (s *Server) newBrowser(ctx context.Context) (*browser, error) {
	store, err := capture.NewStore(&capture.Options{Redactor: s.safe.CaptureRedactor}) // server-stage redaction of every entry
	if err != nil {
		return nil, err
	}
	b := &browser{store: store, noise: noise.Open(s.cfg.Dir), log: s.log, export: export.NewRecorder()}
	b.tabs = tabs.New(ctx, tabs.Config{Link: s.links, Browsers: s.links, Dir: s.cfg.Dir, Logger: s.log})
	s.links.SetInUse(b.tabs.Registry().InUse) // a browser away keeps its tab ids while sessions hold tabs there
	b.feed = feed.NewFeed(ctx, feed.FeedConfig{Store: store, Logger: s.log})
	b.act = interact.New(interact.Config{Tabs: b.tabs, Link: s.links, Capture: store, Dir: s.cfg.Dir,
		Egress: s.safe.Egress(), Secrets: s.safe.MaskSelectors, Logger: s.log,
		Redact: func(text string) (string, error) { return s.safe.RedactText("", text) }})
	b.actions = recorder.New(recorder.Config{Store: store, Tabs: b.tabs, Export: b.export, Secrets: s.safe.MaskSelectors, Logger: s.log})
	if b.pages, err = pagetools.New(pagetools.Config{Tabs: b.tabs, Lock: b.act.Lock, Audit: s.safe.Audit.Write, Logger: s.log}); err != nil {
		return nil, err
	}
	b.obs = observe.New(observe.Config{Tabs: b.tabs, Store: store, Browsers: s.links, Dir: s.cfg.Dir,
		ResolveRef: b.act.ResolveRef, Noise: b.noise, Logger: s.log, Conditions: devtools.Conditions})
	b.dev = devtools.New(ctx, devtools.Config{Tabs: b.tabs, Lock: b.act.Lock, Approvals: s.safe.Approvals,
		Redact: s.safe.RedactText, Egress: s.safe.Egress(), Print: b.obs.Print, Dir: s.cfg.Dir, Logger: s.log})
	// Capture first: a part that sees an event knows the buffers hold it.
	// Enabling a tab enables capture, then Chrome's WebMCP domain (a
	// Chrome without it is noted, not an error), then request
	// interception and the tab's emulation (put back after a re-attach;
	// a failure is logged and capture works all the same), then installs
	// the recorder (best effort).
	b.tabs.Targets().Listen(b.feed, b.act, b.pages, b.dev, b.actions)
	b.ana = s.newAnalyzer(b)
	return b, nil
}

// register makes the observe modes, the tab modes, observe snapshot and
// the actions engine's interact modes work.
func (b *browser) register(m *mcpserver.Server) {
	b.obs.Register(m)
	b.act.Register(m)
	b.ana.Register(m)
	b.pages.Register(m)
	b.dev.Register(m)
}

func (b *browser) wait() {
	b.tabs.Wait()
	b.feed.Wait()
	b.dev.Wait()
}

// Capture returns the capture buffers (for tests and benchmarks).
func (s *Server) Capture() *capture.Store { return s.browser.store }

// DevTools returns the emulation, routes, downloads, traces and PDF
// modes' state (for tests).
func (s *Server) DevTools() *devtools.Manager { return s.browser.dev }

// Tabs returns the tab ownership manager.
func (s *Server) Tabs() *tabs.Manager { return s.browser.tabs }

// Target returns a tab's target (tests reach tabs no session holds
// through it too).
func (s *Server) Target(tab int) *target.Target { return s.browser.tabs.Target(tab) }

// Children returns a tab's live child sessions (workers and out-of-process
// iframes), for tests.
func (s *Server) Children(tab int) []target.Child { return s.browser.tabs.Target(tab).Children() }

// page is a tab's title and address as the browser reports them, for an
// approval prompt (gate.Config.Page).
func (b *browser) page(ctx context.Context, tab int) (approval.Page, error) {
	t, err := b.tabs.Info(ctx, tab)
	return approval.Page{Title: t.Title, URL: t.URL}, err
}
