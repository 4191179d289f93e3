package tools

import (
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// CodeTabUnloaded is the extension's tab_unloaded, as agents see it: the
// tab has no live page (it crashed, or Chrome discarded it).
const CodeTabUnloaded = "tab_unloaded"

// FromLink turns an error of the extension link into a tool error. The
// link's messages are written for the daemon; where one would send an
// agent to a link method, the advice names the tool call instead.
func FromLink(pe *protocol.Error) *Error {
	e := &Error{Code: pe.Code, Message: pe.Message, Retryable: pe.Retryable, RetryAfterMS: pe.RetryAfterMS}
	switch pe.Code {
	case protocol.CodeExtensionDisconnected, protocol.CodeNotReady:
		e.Retryable = true
	case CodeTabUnloaded:
		what, _, _ := strings.Cut(pe.Message, ";")
		args := map[string]any{"what": "refresh"}
		if pe.TabID != 0 {
			args["tab_id"] = pe.TabID
		}
		e.Message = what + "; reload it with interact refresh, then retry"
		e.NextAction = &Next{Tool: "interact", Arguments: args}
	}
	return e
}
