package actions

import "strings"

// CDP answers its errors as text only (a code of -32000 and a message), so
// the few the engine must tell apart are matched here, in one place, by
// their message; everything else branches on typed errors.

// gone reports CDP errors that mean a world or object no longer exists:
// its document was replaced.
func gone(err error) bool {
	return cdpSays(err, "Cannot find context with specified id", "Execution context was destroyed",
		"Could not find object with given id", "No frame with given id", "Inspected target navigated or closed",
		"Cannot find default execution context")
}

// navigating reports CDP errors of a page between two documents.
func navigating(err error) bool {
	return cdpSays(err, "Not attached to an active page") || gone(err)
}

// noDialog reports Page.handleJavaScriptDialog's answer when no dialog is
// open.
func noDialog(err error) bool { return cdpSays(err, "No dialog is showing") }

// internalError reports CDP's "Internal error", which Runtime.evaluate
// answers when its timeout stops a script.
func internalError(err error) bool { return cdpSays(err, "Internal error") }

// cdpSays reports whether err's message holds one of the CDP messages.
func cdpSays(err error, msgs ...string) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	for _, m := range msgs {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}
