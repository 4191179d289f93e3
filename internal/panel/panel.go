// Package panel is the daemon's side of the agent side panel
// (docs/PROTOCOL.md, "Agent panel"): the panel is UI only. Through the
// extension link it lists and decides approvals and site grants, reads the
// daemon's status, and holds conversations with a model whose tool calls
// run through the same dispatcher, approvals and redaction as MCP clients,
// under a real session named "Gasoline panel"; every step comes back as a
// panel.event, approval events as approval.event.
package panel

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

// SessionID is the agent panel's MCP session.
const SessionID = "gasoline-panel"

// Config configures a Panel. Every field but Logger and Remotes is
// required.
type Config struct {
	Dir, Version string
	// Server runs the model's tool calls (and hosts the panel session).
	Server    *mcpserver.Server
	Approvals *approval.Engine
	// Policy tells whether a call of the panel will wait for the user.
	Policy *policy.Store
	// Tabs adopts the tab the panel is open on.
	Tabs *tabs.Manager
	// Egress is the redaction gateway's last stage (everything bound for
	// a model provider passes it); PolicyVersion names the policy.
	Egress        *redact.Gateway
	PolicyVersion func() string
	// Broadcast sends a notification to every connected extension.
	Broadcast func(ctx context.Context, method string, params any)
	// Status is panel.status's answer.
	Status func() map[string]any
	// Remotes are the remote agents the panel lists and revokes; nil: none.
	Remotes Remotes
	// Export is the session's redacted export with a conversation.
	Export func(ctx context.Context, sid string, conversation any) (json.RawMessage, error)
	Logger *slog.Logger
}

// Panel serves the panel's methods.
type Panel struct {
	cfg    Config
	ctx    context.Context
	log    *slog.Logger
	aiCfg  agent.Config
	cfgErr error

	adapters map[string]agent.Adapter
	order    []string
	session  *session.Session
	chat     *agent.Chat
	wg       sync.WaitGroup

	watchMu  sync.Mutex
	watchSeq uint64
}

// New builds the panel: the model providers of agent.json (a broken file
// leaves only the local one, and panel.providers says why), the panel's
// session and its chat. Its goroutines stop with ctx; Wait waits.
func New(ctx context.Context, cfg Config) (*Panel, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Panel{cfg: cfg, ctx: ctx, log: cfg.Logger}
	p.aiCfg, p.cfgErr = agent.LoadConfig(cfg.Dir)
	if p.cfgErr != nil {
		p.log.Error("agent config unusable; only the local provider is available", "err", p.cfgErr)
		p.aiCfg = agent.DefaultConfig()
	}
	p.buildAdapters()
	var err error
	if p.session, _, _, err = cfg.Server.SessionManager().Attach(SessionID, session.Transport("panel")); err != nil {
		return nil, fmt.Errorf("panel: starting its session: %w", err)
	}
	p.session.SetClient(session.Client{Name: "Gasoline panel", Version: cfg.Version})
	p.chat = agent.NewChat(ctx, agent.ChatConfig{
		Providers:     p.provider,
		Tools:         toolDefs(),
		Run:           p.runTool,
		Redactor:      p.redactor(),
		PolicyVersion: cfg.PolicyVersion,
		Emit:          p.emit,
		Gated:         p.asksUser,
		System:        system,
		MaxToolRounds: p.aiCfg.MaxToolRounds,
		Logger:        p.log,
	})
	p.wg.Go(func() { p.pushApprovals(ctx) })
	return p, nil
}

// Wait waits for the panel's goroutines (they stop with New's ctx).
func (p *Panel) Wait() {
	p.wg.Wait()
	p.chat.Wait()
}

// Chat returns the panel's conversations.
func (p *Panel) Chat() *agent.Chat { return p.chat }

// Session returns the panel's MCP session.
func (p *Panel) Session() *session.Session { return p.session }

// Serve answers one panel request from the extension; ctx ends with the
// link (or the request).
func (p *Panel) Serve(ctx context.Context, method string, params json.RawMessage) (any, *protocol.Error) {
	switch method {
	case "approvals.list":
		n := p.names()
		return map[string]any{"pending": n.Requests(p.cfg.Approvals.Pending("")), "grants": n.Grants(p.cfg.Approvals.Grants(""))}, nil
	case "approvals.decide":
		return p.decide(params)
	case "grants.revoke":
		return p.revoke(params)
	case "panel.status":
		return p.cfg.Status(), nil
	case "panel.chat":
		return p.panelChat(params)
	case "panel.history":
		return p.panelHistory(params)
	case "panel.providers":
		return p.panelProviders(ctx), nil
	case "panel.export":
		return p.panelExport(ctx, params)
	case "panel.tab":
		return p.panelTab(params)
	case "panel.share":
		return p.panelShare(ctx, params)
	case "panel.unshare":
		return p.panelUnshare(ctx, params)
	case "remotes.list":
		return p.remotesList()
	case "remotes.revoke":
		return p.remotesRevoke(params)
	}
	return nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "the daemon has no method %q", method)
}

type decideParams struct {
	RequestID string `json:"request_id"`
	Decision  string `json:"decision"` // once | site | deny
	Minutes   int    `json:"minutes"`
	Reason    string `json:"reason"`
}

func (p *Panel) decide(raw json.RawMessage) (any, *protocol.Error) {
	var d decideParams
	if err := json.Unmarshal(raw, &d); err != nil || d.RequestID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "approvals.decide needs request_id and decision (once, site or deny)")
	}
	switch d.Decision {
	case "deny":
		if d.Reason == "" {
			d.Reason = "denied in the Gasoline panel"
		}
		if err := p.cfg.Approvals.Deny(d.RequestID, d.Reason); err != nil {
			return nil, approvalErr(err)
		}
		return map[string]any{"denied": true}, nil
	case "once", "site":
		yes := approval.Decision{Kind: approval.Once}
		if d.Decision == "site" {
			yes = approval.Decision{Kind: approval.Site, Minutes: d.Minutes}
		}
		tok, err := p.cfg.Approvals.Approve(d.RequestID, yes)
		if err != nil {
			return nil, approvalErr(err)
		}
		return map[string]any{"approval_id": tok.ApprovalID, "expires_at": tok.ExpiresAt}, nil
	}
	return nil, protocol.Errorf(protocol.CodeBadRequest, false, "decision must be once, site or deny, not %q", d.Decision)
}

func (p *Panel) revoke(raw json.RawMessage) (any, *protocol.Error) {
	var g struct {
		GrantID string `json:"grant_id"`
	}
	if err := json.Unmarshal(raw, &g); err != nil || g.GrantID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "grants.revoke needs grant_id (from approvals.list's grants)")
	}
	if err := p.cfg.Approvals.Revoke(g.GrantID); err != nil {
		return nil, approvalErr(err)
	}
	return map[string]any{"revoked": true}, nil
}

func approvalErr(err error) *protocol.Error {
	code := approval.Code(err)
	if code == "" {
		code = protocol.CodeInternal
	}
	return &protocol.Error{Code: code, Message: err.Error()}
}

// names names sessions for the panel (views.go): never by their ids.
func (p *Panel) names() Names { return Names{Sessions: p.cfg.Server.SessionManager()} }

// pushApprovals forwards every approval event to the connected extensions
// (the panel) until ctx ends.
func (p *Panel) pushApprovals(ctx context.Context) {
	events, stop := p.cfg.Approvals.Subscribe()
	defer stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			p.cfg.Broadcast(wctx, "approval.event", p.names().Event(ev))
			cancel()
		case <-ctx.Done():
			return
		}
	}
}
