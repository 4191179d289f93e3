package tools

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// CodeTabUnloaded is the extension's tab_unloaded, as agents see it: the
// tab has no live page (it crashed, or Chrome discarded it).
const CodeTabUnloaded = protocol.CodeTabUnloaded

// FromLink turns an error of the extension link into a tool error. The
// link's messages are written for the daemon; where one would send an
// agent to a link method, the message and advice are written here from
// the error's code and fields (never from the link's words), naming the
// tool call instead.
func FromLink(pe *protocol.Error) *Error {
	e := &Error{Code: pe.Code, Message: pe.Message, Retryable: pe.Retryable, RetryAfterMS: pe.RetryAfterMS}
	switch pe.Code {
	case protocol.CodeExtensionDisconnected, protocol.CodeNotReady:
		e.Retryable = true
	case CodeTabUnloaded:
		args := map[string]any{"what": "refresh"}
		tab := "the tab"
		if pe.TabID != 0 {
			args["tab_id"] = pe.TabID
			tab = fmt.Sprintf("tab %d", pe.TabID)
		}
		e.Message = unloaded(pe.Why, tab) + "; reload it with interact refresh, then retry"
		e.NextAction = &Next{Tool: "interact", Arguments: args}
	case protocol.CodeRestrictedPage:
		// The extension refuses a tab that shows a page no agent may drive
		// as soon as it sees where the tab is going — it may be before the
		// tab's new address reaches the daemon, whose own refusal
		// (internal/tabs) names close_tab too: the one call that still
		// works on such a tab.
		// A refusal about a tab carries its tab_id (extension/lib/errors.js);
		// one about a URL to open does not.
		if pe.TabID != 0 {
			e.Message += "; an agent may drive only web pages: close it with interact close_tab, or use another tab"
			e.NextAction = &Next{Tool: "interact", Arguments: map[string]any{"what": "close_tab", "tab_id": pe.TabID}}
		}
	}
	return e
}

// unloaded says why tab has no live page.
func unloaded(why, tab string) string {
	switch why {
	case protocol.UnloadedCrashed:
		return "the page in " + tab + " crashed"
	case protocol.UnloadedFrame:
		return "a frame or worker in " + tab + " crashed (its session is gone)"
	case protocol.UnloadedDiscarded:
		return tab + " is discarded (Chrome unloaded it to save memory)"
	}
	return tab + " has no live page (it crashed, or Chrome discarded it)"
}
