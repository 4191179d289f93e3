package tabs

import (
	"context"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/scheme"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Tool error codes of tab routing (besides the link's codes, which pass
// through: tab_closed, restricted_page, detached, canceled_by_user,
// extension_disconnected, timeout, …).
const (
	CodeNoTab            = "no_tab"        // the session owns no tab and none was named
	CodeTabNotOwned      = "tab_not_owned" // the tab is not the session's
	CodeTabClosed        = protocol.CodeTabClosed
	CodeCanceledByUser   = "canceled_by_user"  // the user dismissed the debugging bar
	CodeNavigationFailed = "navigation_failed" // Chrome could not load the URL
	// CodeTabNotShared: the user's tab was shared with the session and no
	// longer is (moved out of the group, group closed, Stop sharing).
	CodeTabNotShared = "tab_not_shared"
	// CodeTabShared: close_tab on the user's own tab (never closed).
	CodeTabShared = "tab_is_users"
)

var (
	listTabs = &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "tabs"}}
	newTab   = &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "new_tab", "url": "https://example.com/"}}
)

// lookupError turns a failed Lookup into the structured error the agent
// sees.
func lookupError(tab int, why Why) *tools.Error {
	switch why.Kind {
	case WhyNoTab:
		if why.Shared && why.Reason == ReasonUngrouped {
			return goneError(why.Last, why.Reason, true)
		}
		return &tools.Error{Code: CodeNoTab, NextAction: newTab, Message: noTabMessage(why)}
	case WhyGone:
		if why.Reason == ReasonReplaced {
			return &tools.Error{Code: CodeTabClosed, Details: map[string]int{"replaced_by": why.By},
				NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "switch_tab", "tab_id": why.By}},
				Message:    fmt.Sprintf("tab %d was replaced by tab %d (Chrome discarded or swapped its page); it is yours: use tab %d", tab, why.By, why.By)}
		}
		return goneError(tab, why.Reason, why.Shared)
	case WhyOther:
		return &tools.Error{Code: CodeTabNotOwned, NextAction: listTabs,
			Message: fmt.Sprintf("tab %d belongs to another Gasoline session; use a tab you own (observe tabs lists them) or open one with interact new_tab", tab)}
	}
	return &tools.Error{Code: CodeTabNotOwned, NextAction: listTabs,
		Message: fmt.Sprintf("tab %d is not one of this session's tabs (Gasoline never acts on tabs it did not open for you); observe tabs lists yours, interact new_tab opens one", tab)}
}

// goneError is the error of a call on a tab that left the session: shared
// (the user took it back), dragged out, or closed. It is also the error
// calls in flight on the tab end with.
func goneError(tab int, reason string, shared bool) *tools.Error {
	switch {
	case shared && reason != ReasonClosed && reason != ReasonRestarted:
		return &tools.Error{Code: CodeTabNotShared, NextAction: shareAgain(tab),
			Message: fmt.Sprintf("tab %d is no longer shared with this session: the user took it back (moved it out of the session's tab group, closed the group, or pressed Stop sharing). Ask the user to share it again; observe tabs lists what you may use", tab)}
	case reason == ReasonUngrouped:
		return &tools.Error{Code: CodeTabNotOwned, NextAction: listTabs,
			Message: fmt.Sprintf("tab %d left this session: the user moved it out of the session's tab group; observe tabs lists the tabs you own", tab)}
	case reason == ReasonRestarted:
		return &tools.Error{Code: CodeTabClosed, NextAction: listTabs,
			Message: fmt.Sprintf("tab %d is gone: its browser restarted, and its tabs have new ids now; observe tabs lists yours, interact new_tab opens one", tab)}
	case reason == ReasonEnded:
		return &tools.Error{Code: CodeTabClosed, Message: fmt.Sprintf("the session ended; tab %d is no longer its", tab)}
	}
	return &tools.Error{Code: CodeTabClosed, NextAction: listTabs,
		Message: fmt.Sprintf("tab %d was closed; observe tabs lists the tabs you own, or open one with interact new_tab", tab)}
}

// shareAgain is the next action after the user took a shared tab back:
// ask them, then look.
func shareAgain(tab int) *tools.Next {
	return &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "tabs"},
		AskUser: fmt.Sprintf("Please share tab %d with me again: move it into my tab group, or use Share in the Gasoline panel.", tab)}
}

// noTabMessage says why a session has no tab: none yet, or what became of
// its last one.
func noTabMessage(why Why) string {
	const open = "open one with interact new_tab (or navigate, which opens one)"
	switch {
	case why.Last == 0:
		return "this session has no tab yet; " + open
	case why.Reason == ReasonCloseTab:
		return fmt.Sprintf("this session has no tab now: it closed its last one (tab %d, interact close_tab); %s", why.Last, open)
	case why.Reason == ReasonUngrouped:
		return fmt.Sprintf("this session has no tab now: its tab %d left the session when the user moved it out of the session's tab group; %s", why.Last, open)
	case why.Reason == ReasonRestarted:
		return fmt.Sprintf("this session has no tab now: its tab %d's browser restarted, and its tabs have new ids; %s", why.Last, open)
	}
	return fmt.Sprintf("this session has no tab now: its tab %d was closed (by the user, the page, or another program, not by this session); %s", why.Last, open)
}

// ToolError turns an error from the extension link or a CDP call into a
// structured tool error: link errors keep their code, message and
// retryability; a context deadline becomes timeout. Other errors are
// returned as they are.
func ToolError(err error) error {
	if err == nil {
		return nil
	}
	var te *tools.Error
	if errors.As(err, &te) {
		return te
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		e := tools.FromLink(pe)
		switch pe.Code {
		case protocol.CodeTabClosed:
			e.NextAction = listTabs
		case protocol.CodeExtensionDisconnected, protocol.CodeNotReady:
			if e.RetryAfterMS == 0 {
				e.RetryAfterMS = 1000
			}
		}
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &tools.Error{Code: tools.CodeTimeout, Retryable: true,
			Message: "the browser did not answer in time; retry, or raise timeout_ms"}
	}
	return err
}

// offLimits is the error of any call on a tab whose page is off-limits to
// agents (internal/scheme): it went to a file: page, an extension's page,
// a browser page — by a redirect, the user or the page itself. Nothing
// but close_tab works on it until it shows an allowed page again.
func (m *Manager) offLimits(tab int) *tools.Error { return offLimitsAt(tab, m.URL(tab)) }

// offLimitsAt is offLimits for a tab showing url.
func offLimitsAt(tab int, url string) *tools.Error {
	err := scheme.Page(url)
	if err == nil {
		return nil
	}
	var r *scheme.Refusal
	errors.As(err, &r)
	return &tools.Error{Code: scheme.Code, NextAction: listTabs,
		Message: fmt.Sprintf("tab %d now shows %s, which is off-limits to agents (an agent may drive only %s pages, and nothing the user approves or grants changes that); nothing was done. Close it with interact close_tab, or use another tab", tab, r.Kind, scheme.Allowed)}
}
