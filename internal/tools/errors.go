package tools

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Error codes of tool errors (a tool result with isError: true).
const (
	CodeInvalidArgument = "invalid_argument" // an argument is missing, unknown or of the wrong type
	CodeUnknownMode     = "unknown_mode"     // `what` names no mode of the tool
	CodeUnclassified    = "unclassified"     // the mode has no classification: refused
	CodeNotAvailable    = "not_available"    // the mode is in the table; this build does not serve it
	CodeUnknownCommand  = "unknown_command"  // no such correlation_id in this session
	CodeResultEvicted   = "result_evicted"   // the command's result was dropped to bound memory
	CodeInternal        = "internal"         // a bug; the message says what failed
	CodeTimeout         = "timeout"          // the command's hard bound ran out
	CodePageChanged     = "page_changed"     // the page's document was replaced under the call
)

// Error is a structured tool error (TOOLS.md, "Errors are for agents").
type Error struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS int    `json:"retry_after_ms,omitempty"`
	NextAction   *Next  `json:"next_action,omitempty"`
	// Details carries a structured payload for errors an agent acts on
	// (the approval request of approval_required).
	Details any `json:"details,omitempty"`
}

// Next is a ready tool call an agent can make next.
type Next struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// AskUser, when set, is what the agent must ask the user before the
	// call can succeed (e.g. to share a tab again).
	AskUser string `json:"ask_user,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Text is the compact one-line form for a tool result's text content.
func (e *Error) Text() string {
	var b strings.Builder
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.RetryAfterMS > 0 {
		fmt.Fprintf(&b, " Retry after %d ms.", e.RetryAfterMS)
	}
	if e.NextAction != nil {
		args, _ := json.Marshal(e.NextAction.Arguments)
		if e.NextAction.AskUser != "" {
			fmt.Fprintf(&b, " Ask the user: %q", e.NextAction.AskUser)
		}
		fmt.Fprintf(&b, " Next: %s %s", e.NextAction.Tool, args)
	}
	return b.String()
}

// Errorf builds a non-retryable Error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Describe returns the call that prints the parameter guide of tool.mode
// (or of the whole tool when mode is empty).
func Describe(tool, mode string) *Next {
	args := map[string]any{"what": "describe_capabilities"}
	if tool != "" {
		args["tool"] = tool
	}
	if mode != "" {
		args["mode"] = mode
	}
	return &Next{Tool: "configure", Arguments: args}
}

// NotAvailable is the error for a mode in the table that this build does
// not serve (no handler registered); works names what it does serve
// ("configure health", …).
func NotAvailable(m *Mode, works []string) *Error {
	return &Error{
		Code: CodeNotAvailable,
		Message: fmt.Sprintf("%s %s is not served by this daemon (the part behind it did not start: configure doctor and the daemon log say why); use %s instead, "+
			"or configure describe_capabilities to list what it serves", m.Tool, m.Name, strings.Join(works, ", ")),
		NextAction: Describe("", ""),
	}
}
