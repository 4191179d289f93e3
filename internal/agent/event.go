package agent

import "time"

// Event kinds, as the panel shows them (docs/PROTOCOL.md, "Agent panel").
const (
	KindUser       = "user"
	KindAssistant  = "assistant"
	KindToolCall   = "tool_call"
	KindToolResult = "tool_result"
	KindEvidence   = "evidence"
	KindApproval   = "approval"
	KindError      = "error"
	KindDone       = "done"
)

// Event is one step of a conversation: the panel's panel.event, and the
// conversation's timeline in an export. Every text in it is redacted.
type Event struct {
	ConversationID string     `json:"conversation_id"`
	TurnID         string     `json:"turn_id"`
	Seq            uint64     `json:"seq"`
	Kind           string     `json:"kind"`
	Text           string     `json:"text,omitempty"`
	Tool           string     `json:"tool,omitempty"`
	Mode           string     `json:"mode,omitempty"`
	OK             *bool      `json:"ok,omitempty"`
	Evidence       *Evidence  `json:"evidence,omitempty"`
	Redaction      *Redaction `json:"redaction,omitempty"`
	At             time.Time  `json:"at"`
}

// Evidence is an evidence card: an error, a failed request, an action or
// a tool result.
type Evidence struct {
	Kind   string    `json:"kind"` // error | network | action | tool
	Title  string    `json:"title"`
	Detail string    `json:"detail"`
	URL    string    `json:"url,omitempty"`
	At     time.Time `json:"at"`
}

// Redaction is the redaction indicator the panel shows.
type Redaction struct {
	PolicyVersion string `json:"policy_version"`
	RedactedCount int64  `json:"redacted_count"`
	BlockedCount  int64  `json:"blocked_count"`
}

func ptr[T any](v T) *T { return &v }
