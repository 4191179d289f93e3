// Package protocol defines the envelope of the extension link (see
// docs/PROTOCOL.md): requests, replies, events and structured errors spoken
// between the extension, the native host and the daemon.
package protocol

import (
	"encoding/json"
	"fmt"
)

// Version is the link protocol version exchanged in hello.
const Version = 1

// MaxMessage is the largest message on any of Gasoline's links, 64 MiB:
// a native-messaging message (the host chunks and reassembles it), the
// host↔daemon WebSocket, and a line of the stdio MCP relay (on stdin and
// on its link to the daemon).
// CDP results (screenshots) are the large ones. It is the one definition:
// every reader's limit is this constant, and the extension's
// MAX_MESSAGE_BYTES (extension/lib/chunks.js) is held to it by
// TestExtensionAgreesOnMaxMessage.
const MaxMessage = 64 << 20

// Message is any message on the link. Exactly one of these holds:
// a request has ID and Method; a reply has ID and Result or Error; an event
// has Method and no ID. Chunk frames are handled below this layer.
type Message struct {
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m expects a reply.
func (m *Message) IsRequest() bool { return m.ID != 0 && m.Method != "" }

// IsReply reports whether m answers a request.
func (m *Message) IsReply() bool { return m.ID != 0 && m.Method == "" }

// IsEvent reports whether m is a one-way notice.
func (m *Message) IsEvent() bool { return m.ID == 0 && m.Method != "" }

// Error codes (docs/PROTOCOL.md, "Errors").
const (
	CodeBadRequest            = "bad_request"
	CodeUnknownMethod         = "unknown_method"
	CodeProtocolMismatch      = "protocol_mismatch"
	CodeNotReady              = "not_ready"
	CodeDaemonUnavailable     = "daemon_unavailable"
	CodeDaemonStopped         = "daemon_stopped"
	CodeExtensionDisconnected = "extension_disconnected"
	CodeMessageTooLarge       = "message_too_large"
	CodeTimeout               = "timeout"
	CodeCDPError              = "cdp_error"
	CodeRestrictedPage        = "restricted_page"
	CodeTabClosed             = "tab_closed"
	CodeDetached              = "detached"
	CodeInternal              = "internal"
	// CodeBusy: the receiver is serving as many requests as it takes at
	// once; retry after retry_after_ms.
	CodeBusy = "busy"
	// CodeTabUnloaded: the tab has no live page (it crashed, or Chrome
	// discarded it); Why says which.
	CodeTabUnloaded = "tab_unloaded"
	// CodeGroupNotFound: tabs.create named a tab group that is gone.
	CodeGroupNotFound = "group_not_found"
	// CodeUnknownText: a cdp.sequence step named a text the extension
	// does not keep (its worker restarted); send it in texts.
	CodeUnknownText = "unknown_text"
)

// Why a tab has no live page (Error.Why of tab_unloaded).
const (
	UnloadedCrashed   = "crashed"   // the tab's page crashed
	UnloadedFrame     = "frame"     // a frame or worker of its session crashed
	UnloadedDiscarded = "discarded" // Chrome unloaded it to save memory
)

// Error is a structured error: a stable code, a message that says what to
// do next, and whether retrying may help. It implements error.
type Error struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS int    `json:"retry_after_ms,omitempty"`
	// TabID is the tab an error is about, where the sender says
	// (tab_unloaded; tabs.create's timeout).
	TabID int `json:"tab_id,omitempty"`
	// Why is the reason of a tab_unloaded (Unloaded…): receivers branch
	// on codes and fields, never on the message's words.
	Why string `json:"why,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds an *Error.
func Errorf(code string, retryable bool, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: retryable}
}

// Reply builds a reply to id carrying result (marshalled) or err.
func Reply(id int64, result any, err *Error) ([]byte, error) {
	m := Message{ID: id, Error: err}
	if err == nil {
		raw, merr := json.Marshal(result)
		if merr != nil {
			return nil, merr
		}
		m.Result = raw
	}
	return json.Marshal(m)
}

// Hello is the params of the extension's hello request.
type Hello struct {
	Protocol    int    `json:"protocol"`
	Role        string `json:"role"`
	Version     string `json:"version"`
	ExtensionID string `json:"extension_id"`
	Browser     string `json:"browser,omitempty"`
	// BrowserID names the browser profile the extension runs in: random,
	// made once and kept in the profile's storage. Tab ids are unique only
	// within one browser; the daemon tells browsers apart by this.
	BrowserID string `json:"browser_id,omitempty"`
	// RunID changes each time the browser starts (and survives service
	// worker restarts): tab and group ids of another run mean nothing.
	RunID string `json:"run_id,omitempty"`
	// Profile is the name the user gave this browser profile in the panel
	// ("" when none).
	Profile string `json:"profile,omitempty"`
}

// Welcome is the daemon's result for hello.
type Welcome struct {
	Protocol  int    `json:"protocol"`
	Version   string `json:"version"`
	DaemonPID int    `json:"daemon_pid"`
	MaxFrame  int    `json:"max_frame"`
}

// Method names used by the link.
const (
	MethodHello                = "hello"
	MethodPing                 = "ping"
	EventLinkReconnected       = "link.reconnected"
	EventLinkDaemonUnavailable = "link.daemon_unavailable"
	// EventLinkDaemonStopped: Gasoline was stopped on purpose; the host
	// starts no daemon until the extension asks with MethodDaemonStart.
	EventLinkDaemonStopped = "link.daemon_stopped"
	// MethodDaemonStart is served by the native host itself: an explicit
	// start (the panel's Start button).
	MethodDaemonStart = "daemon.start"
)
