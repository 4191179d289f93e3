package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Tool error codes of actions, besides tools' (invalid_argument, timeout)
// and the link's (tab_closed, restricted_page, detached, …).
const (
	CodeNotFound      = "not_found"        // no element matches the target
	CodeAmbiguous     = "ambiguous_target" // a semantic selector matches several visible elements
	CodeStaleRef      = "stale_ref"        // the ref is from an older snapshot or its element is gone
	CodeInvalidTarget = "invalid_selector" // the selector does not parse
	CodeCovered       = "covered"          // another element is on top of the target
	CodeNotVisible    = "not_visible"      // the target has no box on screen
	CodeDisabled      = "disabled"         // the target is disabled
	CodeNotEditable   = "not_editable"     // type on something that takes no text
	CodeNoOption      = "no_option"        // select: no such option
	CodeNotApplied    = "not_applied"      // the action ran but the page shows no effect
	CodeDialogOpen    = "dialog_open"      // a JavaScript dialog blocks the page
	CodeNoDialog      = "no_dialog"        // handle_dialog with no dialog open
	CodeRefusedPath   = "refused_path"     // upload of a credential, key or missing path
	CodeJSException   = "js_exception"     // execute_js threw
	CodeWaitTimeout   = "wait_timeout"     // wait_for's condition did not hold in time
	CodeFrame         = "frame_unavailable"
	CodeClickMissed   = "click_missed" // a click into a frame did not reach its target, nothing was clicked (confirm.go)
	// CodeClickUnconfirmed: a click into a frame reached a page that took
	// the press before Gasoline could see or stop it, off its target or
	// somewhere unknown: it may have clicked there (not retryable).
	CodeClickUnconfirmed = "click_unconfirmed"
	CodeHoverMissed      = "hover_missed" // a hover into a frame did not reach its target (hover.go)
)

var (
	nextSnapshot = &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "snapshot"}}
	nextDialog   = &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true}}
)

func errorf(code, format string, args ...any) *tools.Error {
	return tools.Errorf(code, format, args...)
}

// pageErr reads an error thrown by the page helpers ({code, message} as a
// JSON string).
func pageErr(thrown string) *tools.Error {
	var pe struct{ Code, Message string }
	if json.Unmarshal([]byte(thrown), &pe) != nil || pe.Code == "" {
		return nil
	}
	e := &tools.Error{Code: pe.Code, Message: pe.Message}
	switch pe.Code {
	case CodeNotFound, CodeAmbiguous:
		e.NextAction = nextSnapshot
	}
	return e
}

// toolErr turns errors from the link, CDP or the snapshot into structured
// tool errors; tool errors pass through.
func toolErr(err error) error {
	if err == nil {
		return nil
	}
	var te *tools.Error
	if errors.As(err, &te) {
		return te
	}
	var stale *snapshot.StaleRefError
	if errors.As(err, &stale) {
		return &tools.Error{Code: CodeStaleRef, Message: stale.Error(), NextAction: nextSnapshot}
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return tools.FromLink(pe)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &tools.Error{Code: tools.CodeTimeout, Retryable: true,
			Message: "the browser did not answer in time; retry, or raise timeout_ms"}
	}
	if ae := (*snapshot.ArgError)(nil); errors.As(err, &ae) {
		return &tools.Error{Code: tools.CodeInvalidArgument, Message: ae.Msg}
	}
	return err
}

func timeoutErr(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &tools.Error{Code: tools.CodeTimeout, Retryable: true, Message: what + " took longer than the call's budget; retry, or raise timeout_ms"}
	}
	return err
}

func invalid(format string, args ...any) *tools.Error {
	return &tools.Error{Code: tools.CodeInvalidArgument, Message: fmt.Sprintf(format, args...)}
}
