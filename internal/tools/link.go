package tools

import (
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// CodeTabUnloaded is the extension's tab_unloaded, as agents see it: the
// tab has no live page (it crashed, or Chrome discarded it).
const CodeTabUnloaded = "tab_unloaded"

// linkTabAdvice is how the extension's restricted_page message about a tab
// ends, before Chrome's own text when it quotes it (extension/lib/errors.js).
const linkTabAdvice = "; use a tab with a web page"

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
	case protocol.CodeRestrictedPage:
		// The extension refuses a tab that shows a page no agent may drive
		// as soon as it sees where the tab is going — it may be before the
		// tab's new address reaches the daemon, whose own refusal
		// (internal/tabs) names close_tab too: the one call that still
		// works on such a tab.
		if what, chrome, ok := strings.Cut(pe.Message, linkTabAdvice); ok {
			e.Message = what + "; an agent may drive only web pages: close it with interact close_tab, or use another tab" + chrome
			e.NextAction = &Next{Tool: "observe", Arguments: map[string]any{"what": "tabs"}}
		}
	}
	return e
}
