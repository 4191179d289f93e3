// Package openai is the model adapter for OpenAI-compatible chat
// completions with tool calling (POST {base_url}/chat/completions), in
// plain net/http and encoding/json.
package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/agent"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures the adapter. Name, Model and HTTP.Redactor are
// required.
type Config struct {
	Name      string
	BaseURL   string // default DefaultBaseURL
	Model     string
	APIKey    string
	MaxTokens int
	HTTP      *agent.HTTP
}

// Adapter speaks chat completions.
type Adapter struct{ cfg Config }

// New returns the adapter.
func New(cfg Config) *Adapter {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTP == nil {
		cfg.HTTP = &agent.HTTP{}
	}
	return &Adapter{cfg: cfg}
}

// Name returns the configured provider name.
func (a *Adapter) Name() string { return a.cfg.Name }

func (a *Adapter) header() http.Header {
	h := http.Header{}
	if a.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+a.cfg.APIKey)
	}
	return h
}

// Health lists the models (GET /models).
func (a *Adapter) Health(ctx context.Context) error {
	return a.cfg.HTTP.Get(ctx, a.cfg.Name, a.cfg.BaseURL+"/models", a.header(), nil)
}

// Wire types (the subset Gasoline uses).
type (
	message struct {
		Role       string     `json:"role"`
		Content    *string    `json:"content"`
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	tool struct {
		Type     string `json:"type"`
		Function toolFn `json:"function"`
	}
	toolFn struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	request struct {
		Model     string    `json:"model"`
		Messages  []message `json:"messages"`
		Tools     []tool    `json:"tools,omitempty"`
		MaxTokens int       `json:"max_tokens,omitempty"`
	}
	response struct {
		Choices []struct {
			Message      message `json:"message"`
			FinishReason string  `json:"finish_reason"`
		} `json:"choices"`
	}
)

func str(s string) *string { return &s }

// Generate sends one chat completion.
func (a *Adapter) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	body := request{Model: a.cfg.Model, MaxTokens: req.MaxTokens}
	if body.MaxTokens == 0 {
		body.MaxTokens = a.cfg.MaxTokens
	}
	if req.System != "" {
		body.Messages = append(body.Messages, message{Role: "system", Content: str(req.System)})
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, wireMessage(m))
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, tool{Type: "function", Function: toolFn{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	var resp response
	if err := a.cfg.HTTP.Post(ctx, a.cfg.Name, a.cfg.BaseURL+"/chat/completions", a.header(), body, &resp); err != nil {
		return agent.Response{}, err
	}
	if len(resp.Choices) == 0 {
		return agent.Response{}, &agent.ProviderError{Provider: a.cfg.Name, Status: 200, Reason: "the answer has no choices"}
	}
	c := resp.Choices[0]
	out := agent.Response{Stop: c.FinishReason}
	if c.Message.Content != nil {
		out.Text = *c.Message.Content
	}
	for _, tc := range c.Message.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage(`{}`)
		}
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return out, nil
}

func wireMessage(m agent.Message) message {
	switch m.Role {
	case agent.Tool:
		return message{Role: "tool", Content: str(m.Content), ToolCallID: m.ToolCallID}
	case agent.Assistant:
		w := message{Role: "assistant"}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			w.Content = str(m.Content)
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, toolCall{ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args}})
		}
		return w
	}
	return message{Role: "user", Content: str(m.Content)}
}
