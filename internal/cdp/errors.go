package cdp

import "strings"

// Chrome answers a failed CDP command with a generic code (-32000) and a
// message only, which the extension relays as cdp_error. The few failures
// the daemon must tell apart are recognised here, in this one file, by
// Chrome's text; everything else — Gasoline's own errors, the extension's
// — is told apart by its code (protocol.Error.Code, tools.Error.Code) and
// never by its words.

// Gone reports that a world, a frame or a remote object no longer exists:
// its document was replaced (a navigation, a reload).
func Gone(err error) bool {
	return says(err, "Cannot find context with specified id", "Execution context was destroyed",
		"Could not find object with given id", "No frame with given id", "Inspected target navigated or closed",
		"Cannot find default execution context")
}

// ContextGone reports that an execution context or its frame is gone (a
// narrower Gone: a remote object's loss means something else to callers
// that hold objects).
func ContextGone(err error) bool {
	return says(err, "Cannot find context with specified id", "Execution context was destroyed", "No frame with given id")
}

// Navigating reports a page between two documents.
func Navigating(err error) bool { return says(err, "Not attached to an active page") || Gone(err) }

// NoDialog is Page.handleJavaScriptDialog's answer when no dialog is open.
func NoDialog(err error) bool { return says(err, "No dialog is showing") }

// InternalError is Chrome's "Internal error", which Runtime.evaluate
// answers when its timeout stops a script.
func InternalError(err error) bool { return says(err, "Internal error") }

// NoBody is Network.getResponseBody's answer for a body Chrome no longer
// holds (evicted from its buffer, or the page navigated away).
func NoBody(err error) bool { return says(err, "No resource with given identifier", "No data found") }

// says reports whether err's message holds one of Chrome's messages.
func says(err error, msgs ...string) bool {
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
