// Package anthropic is the model adapter for Anthropic's Messages API with
// tool use (POST {base_url}/v1/messages), in plain net/http and
// encoding/json.
package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/agent"
)

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com"

// Version is the anthropic-version header sent.
const Version = "2023-06-01"

// Config configures the adapter. Name, Model and HTTP.Redactor are
// required.
type Config struct {
	Name      string
	BaseURL   string // default DefaultBaseURL
	Model     string
	APIKey    string
	MaxTokens int // default 1024 (the API requires it)
	HTTP      *agent.HTTP
}

// Adapter speaks the Messages API.
type Adapter struct{ cfg Config }

// New returns the adapter.
func New(cfg Config) *Adapter {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 1024
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &agent.HTTP{}
	}
	return &Adapter{cfg: cfg}
}

// Name returns the configured provider name.
func (a *Adapter) Name() string { return a.cfg.Name }

func (a *Adapter) header() http.Header {
	h := http.Header{}
	h.Set("anthropic-version", Version)
	if a.cfg.APIKey != "" {
		h.Set("x-api-key", a.cfg.APIKey)
	}
	return h
}

// Health lists the models (GET /v1/models).
func (a *Adapter) Health(ctx context.Context) error {
	return a.cfg.HTTP.Get(ctx, a.cfg.Name, a.cfg.BaseURL+"/v1/models", a.header(), nil)
}

// Wire types (the subset Gasoline uses).
type (
	block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   string          `json:"content,omitempty"`
		IsError   bool            `json:"is_error,omitempty"`
	}
	message struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	request struct {
		Model     string    `json:"model"`
		MaxTokens int       `json:"max_tokens"`
		System    string    `json:"system,omitempty"`
		Messages  []message `json:"messages"`
		Tools     []tool    `json:"tools,omitempty"`
	}
	response struct {
		Content    []block `json:"content"`
		StopReason string  `json:"stop_reason"`
	}
)

// Generate sends one Messages request.
func (a *Adapter) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	body := request{Model: a.cfg.Model, MaxTokens: a.cfg.MaxTokens, System: req.System, Messages: wireMessages(req.Messages)}
	if req.MaxTokens > 0 {
		body.MaxTokens = req.MaxTokens
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		body.Tools = append(body.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	var resp response
	if err := a.cfg.HTTP.Post(ctx, a.cfg.Name, a.cfg.BaseURL+"/v1/messages", a.header(), body, &resp); err != nil {
		return agent.Response{}, err
	}
	out := agent.Response{Stop: resp.StopReason}
	var text []string
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args := b.Input
			if !json.Valid(args) {
				args = json.RawMessage(`{}`)
			}
			out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	out.Text = strings.Join(text, "\n")
	return out, nil
}

// wireMessages maps the conversation onto alternating user/assistant
// messages: tool results travel as tool_result blocks of a user message,
// and consecutive messages of one role merge.
func wireMessages(ms []agent.Message) []message {
	var out []message
	add := func(role string, b block) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, b)
			return
		}
		out = append(out, message{Role: role, Content: []block{b}})
	}
	for _, m := range ms {
		switch m.Role {
		case agent.Tool:
			add("user", block{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content, IsError: m.IsError})
		case agent.Assistant:
			if m.Content != "" {
				add("assistant", block{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				in := tc.Arguments
				if len(in) == 0 {
					in = json.RawMessage(`{}`)
				}
				add("assistant", block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: in})
			}
		default:
			add("user", block{Type: "text", Text: m.Content})
		}
	}
	return out
}
