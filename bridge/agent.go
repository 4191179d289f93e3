package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/agent"
	"github.com/gasoline-mcp/gasoline/internal/agent/anthropic"
	"github.com/gasoline-mcp/gasoline/internal/agent/local"
	"github.com/gasoline-mcp/gasoline/internal/agent/openai"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
	"github.com/gasoline-mcp/gasoline/internal/watch"
)

// The agent panel's conversations (docs/PROTOCOL.md, "Agent panel"): the
// panel sends the user's message, the daemon runs it through the chosen
// model adapter and the model's tool calls through the same dispatcher,
// approvals and redaction as MCP clients, under a real session named
// "Gasoline panel", and pushes every step as panel.event.

// PanelSessionID is the agent panel's MCP session.
const PanelSessionID = "gasoline-panel"

// agentState is the daemon's agent side: adapters, the panel session, the
// conversations, agent_watch and the export recorder. Its goroutines stop
// with the daemon's context.
type agentState struct {
	s      *Server
	m      *mcpserver.Server
	ctx    context.Context
	cfg    agent.Config
	cfgErr error

	adapters map[string]agent.Adapter
	order    []string
	panel    *session.Session
	chat     *agent.Chat
	rec      *export.Recorder
	watcher  *watch.Watcher
	wg       sync.WaitGroup

	watchSeq uint64
	watchMu  sync.Mutex
}

// agent returns the daemon's agent state (nil until registerAgent ran).
func (s *Server) agent() *agentState { return s.agentSt }

// wait waits for the agent side's goroutines (they stop with the daemon's
// context).
func (st *agentState) wait() {
	if st == nil {
		return
	}
	st.wg.Wait()
	if st.chat != nil {
		st.chat.Wait()
	}
}

// registerAgent builds the agent side and registers its modes: configure
// agent_watch and generate reproduction, test and har. Call it after every
// other mode is registered (it wraps the interact modes to record them).
func (s *Server) registerAgent(ctx context.Context, m *mcpserver.Server) {
	st := &agentState{s: s, m: m, ctx: ctx, rec: export.NewRecorder(), watcher: watch.New(nil)}
	st.cfg, st.cfgErr = agent.LoadConfig(s.cfg.Dir)
	if st.cfgErr != nil {
		s.log.Error("agent config unusable; only the local provider is available", "err", st.cfgErr)
		st.cfg = agent.DefaultConfig()
	}
	st.buildAdapters()
	var err error
	st.panel, _, _, err = m.SessionManager().Attach(PanelSessionID, session.Transport("panel"))
	if err != nil {
		s.log.Error("agent panel session not started", "err", err)
		return
	}
	st.panel.SetClient(session.Client{Name: "Gasoline panel", Version: s.cfg.Version})
	st.chat = agent.NewChat(ctx, agent.ChatConfig{
		Providers:     st.provider,
		Tools:         toolDefs(),
		Run:           st.runTool,
		Redactor:      gatewayRedactor{g: s.Egress(), sid: PanelSessionID},
		PolicyVersion: s.safe.red.version,
		Emit:          st.emit,
		Gated:         st.asksUser,
		System:        panelSystem,
		MaxToolRounds: st.cfg.MaxToolRounds,
		Logger:        s.log,
	})
	s.agentSt = st
	st.record(m)
	m.Handle("configure", "agent_watch", st.configureWatch)
	m.Handle("generate", "reproduction", st.generate)
	m.Handle("generate", "test", st.generate)
	m.Handle("generate", "har", st.generate)
	st.wg.Add(2)
	go func() { defer st.wg.Done(); st.runWatch(ctx) }()
	go func() { defer st.wg.Done(); st.recordDecisions(ctx) }()
}

const panelSystem = "You are the Gasoline agent in the user's browser side panel. You see the user's real, logged-in Chrome " +
	"only through the tools. Read with observe, act with interact (every change waits for the user's approval in the panel). " +
	"Secrets are redacted as [REDACTED:…]; never ask for them. Answer briefly: what you found, with evidence, and what to do next. " +
	untrusted.AgentRule

// buildAdapters makes one adapter per configured provider, plus local.
func (st *agentState) buildAdapters() {
	st.adapters = map[string]agent.Adapter{}
	add := func(a agent.Adapter) {
		if _, dup := st.adapters[a.Name()]; !dup {
			st.order = append(st.order, a.Name())
		}
		st.adapters[a.Name()] = a
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	for _, p := range st.cfg.Providers {
		h := &agent.HTTP{Client: client, Redactor: gatewayRedactor{g: st.s.Egress(), sid: PanelSessionID}}
		switch p.Type {
		case "openai":
			add(openai.New(openai.Config{Name: p.Name, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.Key(), MaxTokens: p.MaxTokens, HTTP: h}))
		case "anthropic":
			add(anthropic.New(anthropic.Config{Name: p.Name, BaseURL: p.BaseURL, Model: p.Model, APIKey: p.Key(), MaxTokens: p.MaxTokens, HTTP: h}))
		case "local":
			add(local.New(p.Name))
		}
	}
	if _, ok := st.adapters[local.Name]; !ok {
		add(local.New(""))
	}
}

var errUnknownProvider = errors.New("no such provider")

func (st *agentState) provider(name string) (agent.Adapter, error) {
	if name == "" {
		name = st.cfg.Default
	}
	if a, ok := st.adapters[name]; ok {
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
func (st *agentState) asksUser(tool string, args json.RawMessage) bool {
	c, err := tools.Parse(tool, args)
	if err != nil || !c.Mode.Class.Gated() {
		return false
	}
	origin := c.Str("url")
	if origin == "" {
		if tab, why := st.s.browser.tabs.Registry().Lookup(PanelSessionID, c.Int("tab_id", 0)); why.Kind == tabs.WhyOK {
			origin = st.s.browser.tabs.URL(tab)
		}
	}
	eff, _, _ := st.s.safe.policy.Evaluate(policy.Class(c.Mode.Class), c.Mode.Key(), originOf(origin))
	return eff == policy.Gate || (eff == policy.Allow && policy.AlwaysAsk(c.Mode.Key()))
}

// panelBudget is the wait of a panel call that names none: long enough
// for the user to read the prompt and decide.
const panelBudget = 120_000

// maxModelResult caps a tool result sent to the model.
const maxModelResult = 48 << 10

// runTool runs a model's tool call as the panel session.
func (st *agentState) runTool(ctx context.Context, tool string, args json.RawMessage) (agent.ToolResult, error) {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil && m != nil {
		if _, ok := m["timeout_ms"]; !ok && gated(tool, args) {
			m["timeout_ms"] = panelBudget
			args, _ = json.Marshal(m)
		}
	}
	res, err := st.m.CallTool(ctx, st.panel, tool, args)
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
func (st *agentState) emit(ev agent.Event) {
	ctx, cancel := context.WithTimeout(st.ctx, 2*time.Second)
	defer cancel()
	st.s.links.Broadcast(ctx, "panel.event", ev)
}

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

// serveAgentPanel answers the panel's conversation methods.
func (s *Server) serveAgentPanel(_ *extlink.Link, method string, params json.RawMessage) (any, *protocol.Error) {
	st := s.agent()
	if st == nil || st.chat == nil {
		return nil, protocol.Errorf(protocol.CodeInternal, true, "the agent is not running in this daemon (it is starting or shutting down); retry in a moment")
	}
	switch method {
	case "panel.chat":
		return st.panelChat(params)
	case "panel.history":
		return st.panelHistory(params)
	case "panel.providers":
		return st.panelProviders(), nil
	case "panel.export":
		return st.panelExport(params)
	}
	return nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "the daemon has no method %q", method)
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

func (st *agentState) panelChat(raw json.RawMessage) (any, *protocol.Error) {
	var p chatParams
	if err := json.Unmarshal(raw, &p); err != nil || p.Message == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "panel.chat needs message (and optionally conversation_id, tab_id, provider)")
	}
	if p.ConversationID != "" && st.chat.Get(p.ConversationID) == nil {
		return nil, protocol.Errorf(CodeConversationLost, false, "conversation %s is gone (the daemon restarted); start a new one", p.ConversationID)
	}
	if p.TabID > 0 {
		st.adoptTab(p.TabID)
	}
	conv, turn, err := st.chat.Send(p.ConversationID, p.Message, p.TabID, p.Provider)
	switch {
	case errors.Is(err, errUnknownProvider):
		return nil, protocol.Errorf(CodeUnknownProvider, false, "no provider %q; panel.providers lists them (configure more in agent.json)", p.Provider)
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
// in this panel). A tab another session owns stays theirs.
func (st *agentState) adoptTab(tab int) {
	reg := st.s.browser.tabs.Registry()
	if _, owned := reg.Owner(tab); !owned {
		reg.Own(PanelSessionID, tab)
	}
}

func (st *agentState) panelHistory(raw json.RawMessage) (any, *protocol.Error) {
	var p struct {
		ConversationID string `json:"conversation_id"`
		AfterSeq       uint64 `json:"after_seq"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.ConversationID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "panel.history needs conversation_id and after_seq")
	}
	evs, lost := st.chat.History(p.ConversationID, p.AfterSeq)
	if evs == nil {
		evs = []agent.Event{}
	}
	return map[string]any{"conversation_id": p.ConversationID, "events": evs, "lost": lost}, nil
}

type providerStatus struct {
	Name    string `json:"name"`
	Healthy bool   `json:"healthy"`
	Error   string `json:"error,omitempty"`
}

// panelProviders checks every provider at once, bounded.
func (st *agentState) panelProviders() map[string]any {
	ctx, cancel := context.WithTimeout(st.ctx, 5*time.Second)
	defer cancel()
	out := make([]providerStatus, len(st.order))
	var wg sync.WaitGroup
	for i, name := range st.order {
		out[i].Name = name
		wg.Go(func() {
			if err := st.adapters[name].Health(ctx); err != nil {
				out[i].Error = safeError(st, err)
				return
			}
			out[i].Healthy = true
		})
	}
	wg.Wait()
	res := map[string]any{"providers": out, "default": st.cfg.Default}
	if st.cfgErr != nil {
		res["config_error"] = safeError(st, st.cfgErr)
	}
	return res
}

// safeError is an error's text, egress-redacted, for the panel.
func safeError(st *agentState, err error) string {
	r := gatewayRedactor{g: st.s.Egress(), sid: PanelSessionID}
	out, _, rerr := r.Text(err.Error())
	if rerr != nil {
		return "the error text was blocked by redaction"
	}
	return out
}

// AgentWatch returns the agent_watch watcher (nil until the agent side
// runs): tests and the panel read and set it; agents use configure
// {what:"agent_watch"}.
func (s *Server) AgentWatch() *watch.Watcher {
	if st := s.agent(); st != nil {
		return st.watcher
	}
	return nil
}
