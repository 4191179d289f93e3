package panel

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/anthropic"
	"github.com/gasoline-mcp/gasoline/internal/agent/local"
	"github.com/gasoline-mcp/gasoline/internal/agent/openai"
	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const system = "You are the Gasoline agent in the user's browser side panel. You see the user's real, logged-in Chrome " +
	"only through the tools. Read with observe, act with interact (every change waits for the user's approval in the panel). " +
	"Secrets are redacted as [REDACTED:…]; never ask for them. Answer briefly: what you found, with evidence, and what to do next. " +
	untrusted.AgentRule

// buildAdapters makes one adapter per configured provider, plus local.
func (p *Panel) buildAdapters() {
	p.adapters = map[string]agent.Adapter{}
	add := func(a agent.Adapter) {
		if _, dup := p.adapters[a.Name()]; !dup {
			p.order = append(p.order, a.Name())
		}
		p.adapters[a.Name()] = a
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	for _, pr := range p.aiCfg.Providers {
		h := &agent.HTTP{Client: client, Redactor: p.redactor()}
		switch pr.Type {
		case "openai":
			add(openai.New(openai.Config{Name: pr.Name, BaseURL: pr.BaseURL, Model: pr.Model, APIKey: pr.Key(), MaxTokens: pr.MaxTokens, HTTP: h}))
		case "anthropic":
			add(anthropic.New(anthropic.Config{Name: pr.Name, BaseURL: pr.BaseURL, Model: pr.Model, APIKey: pr.Key(), MaxTokens: pr.MaxTokens, HTTP: h}))
		case "local":
			add(local.New(pr.Name))
		}
	}
	if _, ok := p.adapters[local.Name]; !ok {
		add(local.New(""))
	}
}

var errUnknownProvider = errors.New("no such provider")

func (p *Panel) provider(name string) (agent.Adapter, error) {
	if name == "" {
		name = p.aiCfg.Default
	}
	if a, ok := p.adapters[name]; ok {
		return a, nil
	}
	return nil, errUnknownProvider
}

// toolDefs offers the model the five MCP tools with their schemas.
func toolDefs() []agent.ToolDef {
	var out []agent.ToolDef
	for _, t := range tools.All() {
		out = append(out, agent.ToolDef{Name: t.Name, Description: t.Description(), Parameters: t.InputSchema()})
	}
	return out
}

func gated(tool string, args json.RawMessage) bool {
	c, err := tools.Parse(tool, args)
	return err == nil && c.Mode.Class.Gated()
}

// asksUser reports whether the panel's call will wait for the user: a
// gated mode the policy gates (rather than allows or denies) on the
// tab's origin. A live site grant may still let it through at once.
func (p *Panel) asksUser(tool string, args json.RawMessage) bool {
	c, err := tools.Parse(tool, args)
	if err != nil || !c.Mode.Class.Gated() {
		return false
	}
	origin := c.Args.URL
	if origin == "" {
		if tab, why := p.cfg.Tabs.Registry().Lookup(SessionID, c.Args.TabID); why.Kind == tabs.WhyOK {
			origin = p.cfg.Tabs.URL(tab)
		}
	}
	eff, _, _ := p.cfg.Policy.Evaluate(policy.Class(c.Mode.Class), c.Mode.Key(), gate.OriginOf(origin))
	return eff == policy.Gate || (eff == policy.Allow && policy.AlwaysAsk(c.Mode.Key()))
}

// panelBudget is the wait of a panel call that names none: long enough
// for the user to read the prompt and decide.
const panelBudget = 120_000

// maxModelResult caps a tool result sent to the model.
const maxModelResult = 48 << 10

// runTool runs a model's tool call as the panel session.
func (p *Panel) runTool(ctx context.Context, tool string, args json.RawMessage) (agent.ToolResult, error) {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil && m != nil {
		if _, ok := m["timeout_ms"]; !ok && gated(tool, args) {
			m["timeout_ms"] = panelBudget
			args, _ = json.Marshal(m)
		}
	}
	res, err := p.cfg.Server.CallTool(ctx, p.session, tool, args)
	if err != nil {
		return agent.ToolResult{}, err
	}
	return agent.ToolResult{Text: resultText(res, maxModelResult), IsError: res.IsError}, nil
}

// resultText is a result as the model and the panel see it: the
// structured content when there is one (complete, machine-readable), else
// the text; page text stays between its fence lines, after Gasoline's
// warning and note (docs/UNTRUSTED.md).
func resultText(res *mcp.CallToolResult, limit int) string {
	var out string
	if res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			out = string(raw)
		}
	}
	text := mcpserver.ToolText(res)
	if out == "" || out == "null" {
		out = text
		if body, ok := untrusted.Body(text); ok {
			out = body
		}
	}
	if len(out) > limit {
		out = out[:limit] + "…(cut)"
	}
	if fenced, ok := untrusted.Rewrap(text, out); ok {
		return fenced
	}
	return out
}

// emit pushes a conversation event to the panel.
func (p *Panel) emit(ev agent.Event) {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	p.cfg.Broadcast(ctx, "panel.event", ev)
}

// redactor is the egress gateway as agent.Redactor, counting into the
// panel session's counters.
func (p *Panel) redactor() gatewayRedactor { return gatewayRedactor{g: p.cfg.Egress, sid: SessionID} }

// gatewayRedactor adapts the daemon's egress gateway to agent.Redactor,
// counting into the panel session's counters.
type gatewayRedactor struct {
	g   *redact.Gateway
	sid string
}

func (r gatewayRedactor) engine() (*redact.Engine, error) {
	if r.g == nil || r.g.Engine == nil {
		return nil, redact.ErrBlocked
	}
	return r.g.Engine()
}

func (r gatewayRedactor) count(st redact.Stats, err error) {
	if r.g != nil && r.g.Count != nil {
		r.g.Count(r.sid, r.g.Stage, st, err)
	}
}

func (r gatewayRedactor) Text(s string) (string, redact.Stats, error) {
	e, err := r.engine()
	if err != nil {
		r.count(redact.Stats{}, err)
		return "", redact.Stats{}, err
	}
	out, st, err := e.Text(s)
	r.count(st, err)
	return out, st, err
}

func (r gatewayRedactor) JSON(raw []byte) ([]byte, redact.Stats, error) {
	e, err := r.engine()
	if err != nil {
		r.count(redact.Stats{}, err)
		return nil, redact.Stats{}, err
	}
	out, st, err := e.JSON(raw)
	r.count(st, err)
	return out, st, err
}

// CodeBusy and CodeConversationLost are the panel's conversation errors.
const (
	CodeBusy             = "busy"
	CodeConversationLost = "conversation_lost"
	CodeUnknownProvider  = "unknown_provider"
)

type chatParams struct {
	ConversationID string `json:"conversation_id"`
	Message        string `json:"message"`
	TabID          int    `json:"tab_id"`
	Provider       string `json:"provider"`
}

func (p *Panel) panelChat(raw json.RawMessage) (any, *protocol.Error) {
	var cp chatParams
	if err := json.Unmarshal(raw, &cp); err != nil || cp.Message == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "panel.chat needs message (and optionally conversation_id, tab_id, provider)")
	}
	if cp.ConversationID != "" && p.chat.Get(cp.ConversationID) == nil {
		return nil, protocol.Errorf(CodeConversationLost, false, "conversation %s is gone (the daemon restarted); start a new one", cp.ConversationID)
	}
	if cp.TabID > 0 {
		p.adoptTab(cp.TabID)
	}
	conv, turn, err := p.chat.Send(cp.ConversationID, cp.Message, cp.TabID, cp.Provider)
	switch {
	case errors.Is(err, errUnknownProvider):
		return nil, protocol.Errorf(CodeUnknownProvider, false, "no provider %q; panel.providers lists them (configure more in agent.json)", cp.Provider)
	case errors.Is(err, agent.ErrBusy):
		return nil, &protocol.Error{Code: CodeBusy, Message: err.Error(), Retryable: true, RetryAfterMS: 1000}
	case errors.Is(err, agent.ErrStopped):
		return nil, &protocol.Error{Code: protocol.CodeInternal, Message: err.Error(), Retryable: true}
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "%v", err)
	}
	return map[string]any{"conversation_id": conv, "turn_id": turn}, nil
}

// adoptTab lets the panel session work on the tab the panel was opened on
// when no agent session owns it (the user's own tab, opened by the user
// in this panel: shared with the panel's session, never closed by it). A
// tab another session owns stays theirs.
func (p *Panel) adoptTab(tab int) { p.cfg.Tabs.Adopt(SessionID, tab) }

func (p *Panel) panelHistory(raw json.RawMessage) (any, *protocol.Error) {
	var h struct {
		ConversationID string `json:"conversation_id"`
		AfterSeq       uint64 `json:"after_seq"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.ConversationID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "panel.history needs conversation_id and after_seq")
	}
	evs, lost := p.chat.History(h.ConversationID, h.AfterSeq)
	if evs == nil {
		evs = []agent.Event{}
	}
	return map[string]any{"conversation_id": h.ConversationID, "events": evs, "lost": lost}, nil
}
