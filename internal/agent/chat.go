package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// ToolResult is what a tool call answered.
type ToolResult struct {
	Text    string
	IsError bool
}

// ToolRunner runs one tool call through the daemon's MCP dispatcher (the
// same validation, approvals, redaction and audit as an MCP client's).
type ToolRunner func(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error)

// ChatConfig configures a Chat. Providers, Run, Redactor and Emit are
// required.
type ChatConfig struct {
	// Providers returns the adapter of a name ("" = the default) or an
	// error the panel shows.
	Providers func(name string) (Adapter, error)
	Tools     []ToolDef
	Run       ToolRunner
	Redactor  Redactor
	// PolicyVersion returns the redaction policy's version in force, for
	// the counters (nil: "").
	PolicyVersion func() string
	// Emit receives every event as it happens (the bridge pushes them as
	// panel.event). It may block briefly; it is called from the turn's
	// goroutine, in order.
	Emit func(Event)
	// Gated reports whether a tool call needs the user's approval (an
	// approval event then tells the panel to look for the prompt).
	Gated func(tool string, args json.RawMessage) bool
	// System is the system prompt.
	System           string
	MaxToolRounds    int           // default 8
	MaxConversations int           // kept; default 32, least recently used dropped
	MaxEvents        int           // per conversation; default 2000, oldest dropped
	GenerateTimeout  time.Duration // one Generate, retries included; default 3m
	Now              func() time.Time
	Logger           *slog.Logger
}

// Chat runs panel conversations. Each turn runs on a goroutine owned by
// the context given to NewChat; Wait waits for them.
type Chat struct {
	cfg ChatConfig
	ctx context.Context
	g   *routine.Group // running turns

	mu    sync.Mutex
	convs map[string]*Conversation
}

// ErrBusy: a turn is running in the conversation.
var ErrBusy = errors.New("agent: a turn is still running in this conversation; wait for its done event")

// ErrStopped: the daemon is shutting down.
var ErrStopped = errors.New("agent: the daemon is shutting down; retry in a moment")

// NewChat returns a Chat whose turns run until ctx ends.
func NewChat(ctx context.Context, cfg ChatConfig) *Chat {
	if cfg.MaxToolRounds <= 0 {
		cfg.MaxToolRounds = 8
	}
	if cfg.MaxConversations <= 0 {
		cfg.MaxConversations = 32
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 2000
	}
	if cfg.GenerateTimeout <= 0 {
		cfg.GenerateTimeout = 3 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Gated == nil {
		cfg.Gated = func(string, json.RawMessage) bool { return false }
	}
	return &Chat{cfg: cfg, ctx: ctx, g: routine.NewGroup(ctx), convs: map[string]*Conversation{}}
}

func (c *Chat) policyVersion() string {
	if c.cfg.PolicyVersion == nil {
		return ""
	}
	return c.cfg.PolicyVersion()
}

// Wait waits for running turns (for good after the context ended).
func (c *Chat) Wait() { c.g.Wait() }

// Conversation is one panel conversation: the messages the model sees
// (redacted) and the events the panel shows.
type Conversation struct {
	ID       string
	Provider string // the provider of its first turn
	Created  time.Time
	Tab      int // guarded by mu; read it with TabID

	mu       sync.Mutex
	messages []Message
	events   []Event
	seq      uint64
	turn     int
	running  bool
	lastUse  time.Time
	counters *redact.Counters
}

// Send starts a turn: the user's message goes to the provider in the
// background. It returns the conversation (new when convID is "") and the
// turn's ids at once.
func (c *Chat) Send(convID, message string, tab int, provider string) (string, string, error) {
	if strings.TrimSpace(message) == "" {
		return "", "", errors.New("agent: the message is empty")
	}
	if c.ctx.Err() != nil {
		return "", "", ErrStopped
	}
	ad, err := c.cfg.Providers(provider)
	if err != nil {
		return "", "", err
	}
	conv, err := c.conversation(convID, ad.Name(), tab)
	if err != nil {
		return "", "", err
	}
	conv.mu.Lock()
	if conv.running {
		conv.mu.Unlock()
		return "", "", ErrBusy
	}
	conv.running = true
	conv.turn++
	turnID := fmt.Sprintf("t%d", conv.turn)
	if tab > 0 {
		conv.Tab = tab
	}
	conv.mu.Unlock()
	if !c.g.Go(func(context.Context) { c.runTurn(conv, turnID, ad, message) }) {
		conv.mu.Lock()
		conv.running = false
		conv.mu.Unlock()
		return "", "", ErrStopped
	}
	return conv.ID, turnID, nil
}

// conversation returns the conversation of id, or a new one for "".
func (c *Chat) conversation(id, provider string, tab int) (*Conversation, error) {
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if id != "" {
		conv := c.convs[id]
		if conv == nil {
			return nil, fmt.Errorf("agent: conversation %s is gone (the daemon restarted or dropped it); start a new one", id)
		}
		conv.touch(now)
		return conv, nil
	}
	if len(c.convs) >= c.cfg.MaxConversations {
		c.evictLocked()
	}
	conv := &Conversation{ID: "conv_" + session.NewID()[:16], Provider: provider, Tab: tab, Created: now, lastUse: now,
		counters: redact.NewCounters(c.policyVersion())}
	c.convs[conv.ID] = conv
	return conv, nil
}

// evictLocked drops the least recently used idle conversation.
func (c *Chat) evictLocked() {
	var victim *Conversation
	for _, conv := range c.convs {
		conv.mu.Lock()
		idle, last := !conv.running, conv.lastUse
		conv.mu.Unlock()
		if idle && (victim == nil || last.Before(victim.lastUse)) {
			victim = conv
		}
	}
	if victim != nil {
		delete(c.convs, victim.ID)
	}
}

func (conv *Conversation) touch(now time.Time) {
	conv.mu.Lock()
	conv.lastUse = now
	conv.mu.Unlock()
}

// History returns the conversation's events after seq; lost reports that
// the daemon no longer has the conversation.
func (c *Chat) History(id string, after uint64) (events []Event, lost bool) {
	c.mu.Lock()
	conv := c.convs[id]
	c.mu.Unlock()
	if conv == nil {
		return nil, true
	}
	conv.mu.Lock()
	defer conv.mu.Unlock()
	for _, ev := range conv.events {
		if ev.Seq > after {
			events = append(events, ev)
		}
	}
	return events, false
}

// Conversations lists the conversations, oldest first.
func (c *Chat) Conversations() []*Conversation {
	c.mu.Lock()
	out := make([]*Conversation, 0, len(c.convs))
	for _, conv := range c.convs {
		out = append(out, conv)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b *Conversation) int { return a.Created.Compare(b.Created) })
	return out
}

// Get returns a conversation, or nil.
func (c *Chat) Get(id string) *Conversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.convs[id]
}

// Events returns a copy of the conversation's events.
func (conv *Conversation) Events() []Event {
	conv.mu.Lock()
	defer conv.mu.Unlock()
	return slices.Clone(conv.events)
}

// TabID returns the tab the conversation was last opened on (0: none).
func (conv *Conversation) TabID() int {
	conv.mu.Lock()
	defer conv.mu.Unlock()
	return conv.Tab
}

// Redaction returns the conversation's redaction indicator.
func (conv *Conversation) Redaction() Redaction {
	s := conv.counters.Snapshot()
	return Redaction{PolicyVersion: s.PolicyVersion, RedactedCount: s.RedactedCount, BlockedCount: s.BlockedCount}
}
