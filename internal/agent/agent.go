// Package agent is the daemon's side of the browser agent panel (issue 7):
// model adapters behind one interface, and the conversation orchestrator
// that runs a user's message through a model and the model's tool calls
// through the same MCP dispatcher, approvals and redaction as any MCP
// client.
//
// Adapters see redacted requests only: the orchestrator redacts every
// message it builds, and the HTTP adapters pass the final request body
// through the egress [Redactor] once more, right before it leaves the
// daemon (SAFETY.md, egress_redact). Provider keys come from the daemon's
// 0600 config file ([LoadConfig]) and never reach the extension.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// Adapter is one model provider.
type Adapter interface {
	// Name is the provider's name as the panel lists it.
	Name() string
	// Health reports whether the provider can answer now (nil: healthy).
	Health(ctx context.Context) error
	// Generate asks the model for the next assistant message. The request
	// is already redacted. Generate never executes a tool: it is
	// idempotent, so adapters may retry it.
	Generate(ctx context.Context, req Request) (Response, error)
}

// Role is who said a message.
type Role string

// The roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool" // a tool result, answering ToolCallID
)

// Message is one message of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the assistant's tool calls (Role Assistant).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a Tool message answers;
	// IsError marks a failed call.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
}

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolDef describes a tool the model may call.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments
}

// Request is what an adapter sends: the system prompt, the conversation
// and the tools on offer.
type Request struct {
	System    string    `json:"system,omitempty"`
	Messages  []Message `json:"messages"`
	Tools     []ToolDef `json:"tools,omitempty"`
	MaxTokens int       `json:"max_tokens,omitempty"`
	// TabID is the tab the panel was opened on (0: none), for adapters
	// that pick tools themselves (local). Never sent to a provider.
	TabID int `json:"-"`
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Stop is the provider's stop reason, for the log.
	Stop string `json:"stop,omitempty"`
}

// Redactor is the egress redaction the adapters and the orchestrator use;
// *redact.Engine implements it. Errors wrap redact.ErrBlocked: the output
// must be blocked, never passed through.
type Redactor interface {
	Text(s string) (string, redact.Stats, error)
	JSON(raw []byte) ([]byte, redact.Stats, error)
}

// ErrNoRedactor: an adapter that sends data off the machine was built
// without a redactor; it refuses to send (fail closed).
var ErrNoRedactor = errors.New("agent: no egress redactor; the request is not sent")

// ProviderError is a provider's failure, safe to show in the panel: it
// carries the HTTP status and a short reason, never request content or
// keys.
type ProviderError struct {
	Provider  string
	Status    int  // HTTP status; 0 for a transport error
	Retryable bool // a later attempt may succeed
	Reason    string

	retryAfter time.Duration
}

func (e *ProviderError) Error() string {
	if e.Status == 0 {
		return e.Provider + ": " + e.Reason
	}
	return e.Provider + ": HTTP " + itoa(e.Status) + ": " + e.Reason
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
