// Package devtools serves the modes a developer reaches for when
// debugging a page, over the relay: interact emulate (device and network
// conditions), interact route and unroute with observe routes (request
// mocking over the Fetch domain), observe downloads (downloads steered
// into the state directory, never the user's Downloads folder), analyze
// performance_trace (a Chrome trace and its insights) and generate pdf.
//
// Everything it puts in force belongs to one tab of one session and is
// kept in one small struct per tab (tabState), held by the tab's target
// (internal/target): it closes with the target when the tab leaves its
// session, and Chrome drops the overrides and the interception when the
// debugger detaches. Enable (the Manager is a target listener) puts them
// back after a re-attach (an idle detach, an extension restart). The
// models live in their own packages: emulate, route, download, trace.
package devtools

import (
	"context"
	"log/slog"

	"github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/download"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Config wires a Manager. Every field but Logger is required.
type Config struct {
	Tabs *tabs.Manager
	// Lock holds a tab's action queue (a reload trace runs alone).
	Lock func(ctx context.Context, tab int) (unlock func(), err error)
	// Approvals asks for downloads (a high-risk action, tools.HighRisk).
	Approvals *approval.Engine
	// Redact is the server stage of the redaction gateway, for the words
	// of a download's approval request.
	Redact func(sessionID, text string) (string, error)
	// Egress is the last redaction pass before the raw trace is written.
	Egress *redact.Gateway
	// Print prints a tab to PDF under the screenshots' mask
	// (observe.Observer.Print).
	Print func(ctx context.Context, s *cdp.Session, c *mcpserver.Call, p page.PrintToPDFParams) (io.StreamHandle, observe.Mask, error)
	// Dir is the state directory: downloads go under Dir/downloads,
	// traces and PDFs under Dir/exports.
	Dir    string
	Logger *slog.Logger
}

// Manager serves the modes; each tab's state is in its target.
type Manager struct {
	cfg       Config
	log       *slog.Logger
	g         *routine.Group
	downloads *download.Store
}

// tabPart is each target's devtools state.
var tabPart = target.NewPart("devtools", newTabState)

// New returns a Manager whose goroutines stop with ctx (Wait waits for
// them). It panics when a required field is missing.
func New(ctx context.Context, cfg Config) *Manager {
	if cfg.Tabs == nil || cfg.Lock == nil || cfg.Approvals == nil || cfg.Redact == nil ||
		cfg.Egress == nil || cfg.Print == nil || cfg.Dir == "" {
		panic("devtools: Config is missing a required field")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{cfg: cfg, log: cfg.Logger, g: routine.NewGroup(ctx), downloads: download.NewStore(cfg.Dir)}
}

// Register makes the modes work on m.
func (m *Manager) Register(srv *mcpserver.Server) {
	srv.Handle("interact", "emulate", m.emulate)
	srv.Handle("interact", "route", m.route)
	srv.Handle("interact", "unroute", m.unroute)
	srv.Handle("observe", "routes", m.routes)
	srv.Handle("observe", "downloads", m.listDownloads)
	srv.Handle("analyze", "performance_trace", m.performanceTrace)
	srv.Handle("generate", "pdf", m.pdf)
}

// Wait waits for the manager's goroutines once its context has ended.
func (m *Manager) Wait() { m.g.Wait() }

// Downloads is the download store (tests).
func (m *Manager) Downloads() *download.Store { return m.downloads }

// state returns the tab's state, creating it.
func (m *Manager) state(tab int) *tabState { return tabPart.Of(m.cfg.Tabs.Target(tab)) }

// lookup returns the tab's state, or nil.
func (m *Manager) lookup(tab int) *tabState {
	tg, ok := m.cfg.Tabs.LookupTarget(tab)
	if !ok {
		return nil
	}
	t, _ := tabPart.Peek(tg)
	return t
}

// Event is nothing to the Manager: its subscriptions take what they need
// (it is a target listener for Enable).
func (m *Manager) Event(*target.Target, target.Event) {}

// Tabs is the number of tabs with state (tests: it drops to 0 when the
// session ends).
func (m *Manager) Tabs() int { return tabPart.Count(m.cfg.Tabs.Targets()) }

// Conditions says what interact emulate put in force on a tab's target,
// for observe page: in words, and as data (nil when nothing).
func Conditions(tg *target.Target) (string, any) {
	t, ok := tabPart.Peek(tg)
	if !ok {
		return "", nil
	}
	s := t.emulation()
	if s.Empty() {
		return "", nil
	}
	return s.Text(), s
}
