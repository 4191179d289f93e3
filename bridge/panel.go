package bridge

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/generate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/panel"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/terminal"
	"github.com/gasoline-mcp/gasoline/internal/watch"
)

// The agent side of the daemon: the session recorder and the generate
// modes built on it (internal/generate), agent_watch (internal/watch) and
// the side panel's methods and conversations (internal/panel).

// agentSide is what registerAgent builds. Its goroutines stop with the
// daemon's context.
type agentSide struct {
	gen   *generate.Generator
	watch *watch.Service
	panel *panel.Panel
	wg    sync.WaitGroup
}

// registerAgent builds the agent side and registers its modes. Call it
// after every other mode is registered: the recorder wraps the interact
// modes.
func (s *Server) registerAgent(ctx context.Context, m *mcpserver.Server) error {
	b, a := s.browser, &s.agentSide
	a.gen = generate.New(generate.Config{Sessions: m.SessionManager().Get, Tabs: b.tabs, Store: b.store, CDP: s.CDP,
		Egress: s.safe.Egress(), PolicyVersion: s.safe.PolicyVersion, Approvals: s.safe.Approvals, Dir: s.cfg.Dir, Version: s.cfg.Version, Noise: b.noise})
	a.gen.Register(m)
	p, err := panel.New(ctx, panel.Config{Dir: s.cfg.Dir, Version: s.cfg.Version, Server: m, Approvals: s.safe.Approvals,
		Policy: s.safe.Policy, Tabs: b.tabs, Egress: s.safe.Egress(), PolicyVersion: s.safe.PolicyVersion,
		Broadcast: s.links.Broadcast, Status: s.panelStatus, Export: a.export, Remotes: s.remotes, Logger: s.log})
	if err != nil {
		return err
	}
	a.panel = p
	a.watch = watch.NewService(watch.ServiceConfig{Scan: watch.ScanConfig{Store: b.store, Owner: b.tabs.Registry().Owner, URL: b.tabs.URL},
		Server: m, Approvals: s.safe.Approvals, Egress: s.safe.Egress(), PolicyVersion: s.safe.PolicyVersion, Publish: p.Publish})
	a.watch.Register(m)
	a.wg.Go(func() { a.gen.Run(ctx) })
	a.wg.Go(func() { a.watch.Run(ctx) })
	return nil
}

// export is the session's redacted export, with a conversation.
func (a *agentSide) export(ctx context.Context, sid string, conversation any) (json.RawMessage, error) {
	doc, err := a.gen.Document(ctx, sid, 0, conversation)
	if err != nil {
		return nil, err
	}
	return a.gen.Redacted(sid, doc)
}

// wait waits for the agent side's goroutines.
func (a *agentSide) wait() {
	a.wg.Wait()
	if a.panel != nil {
		a.panel.Wait()
	}
}

// servePanel answers the extension's panel requests (the link's Serve:
// each in its own goroutine, off the link's reader; ctx ends with the
// link). Terminal streams go to the terminals, the rest to the panel.
func (s *Server) servePanel(ctx context.Context, l *extlink.Link, method string, params json.RawMessage) (any, *protocol.Error) {
	if terminal.Handles(method) {
		return s.terms.Serve(ctx, l, method, params)
	}
	if s.agentSide.panel == nil {
		return nil, protocol.Errorf(protocol.CodeInternal, true, "the panel is not running in this daemon (it is starting or shutting down); retry in a moment")
	}
	slot, _ := s.links.Slot(l)
	params, err := browsers.Globalize(slot, params) // the panel names tabs by Chrome's ids
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "%v", err)
	}
	return s.agentSide.panel.Serve(ctx, method, params)
}

// AgentWatch returns the agent_watch watcher: tests read and set it;
// agents use configure {what:"agent_watch"}.
func (s *Server) AgentWatch() *watch.Watcher { return s.agentSide.watch.Watcher() }

// panelStatus is what the panel shows about the daemon: health, the
// sessions it serves, and the redaction counters (policy_version,
// redacted_count, blocked_count of every session, by stage and class).
func (s *Server) panelStatus() map[string]any {
	out := map[string]any{"health": s.Health(), "pending_approvals": len(s.safe.Approvals.Pending("")),
		"redaction": s.safe.RedactionStatus("")}
	if p, err := s.safe.Policy.Current(); err == nil {
		out["policy_version"] = p.Version
	} else {
		out["policy_error"] = err.Error()
	}
	return out
}
