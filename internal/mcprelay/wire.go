package mcprelay

import (
	"bytes"
	"encoding/json"
)

// head is what the relay reads of a message: enough to track requests and
// replies. Everything else passes through untouched.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// peek parses a message's head; ok is false for anything that is not a
// JSON object (the daemon answers those with a parse error).
func peek(msg []byte) (h head, ok bool) {
	if err := json.Unmarshal(msg, &h); err != nil {
		return head{}, false
	}
	if bytes.Equal(bytes.TrimSpace(h.ID), []byte("null")) {
		h.ID = nil
	}
	return h, true
}

func (h head) isRequest() bool  { return h.Method != nil && h.ID != nil }
func (h head) isResponse() bool { return h.Method == nil && h.ID != nil }
func (h head) method() string {
	if h.Method == nil {
		return ""
	}
	return *h.Method
}

// idKey is a map key for an id: its compact JSON.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// withID returns msg with its id replaced.
func withID(msg []byte, id string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(id)
	m["id"] = raw
	return json.Marshal(m)
}

// Error codes the relay answers with itself (JSON-RPC server-error range).
const (
	codeDaemonLost        = -32000
	codeDaemonUnavailable = -32001
)

type errData struct {
	Code         string `json:"code"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS int    `json:"retry_after_ms,omitempty"`
}

type rpcErr struct {
	Code    int     `json:"code"`
	Message string  `json:"message"`
	Data    errData `json:"data"`
}

// errorReply is a JSON-RPC error response to id (null when nil).
func errorReply(id json.RawMessage, e rpcErr) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", id, e})
	return out
}

var (
	errLost = rpcErr{
		Code: codeDaemonLost,
		Message: "the connection to the Gasoline daemon was lost while this request was in flight (the daemon restarted or stopped), " +
			"so its answer is lost; retry it. A tool call may have finished meanwhile: observe pending_commands lists the session's commands",
		Data: errData{Code: "daemon_restarted", Retryable: true},
	}
	errTooLong = rpcErr{
		Code:    -32600,
		Message: "invalid request: the message is longer than 64 MiB and was dropped",
		Data:    errData{Code: "message_too_large"},
	}
)

func errUnavailable(cause error) rpcErr {
	return rpcErr{
		Code: codeDaemonUnavailable,
		Message: "the Gasoline daemon is not reachable (" + cause.Error() + "); retry in a moment, " +
			"and run gasoline-host doctor if it persists",
		Data: errData{Code: "daemon_unavailable", Retryable: true, RetryAfterMS: 2000},
	}
}

// notice is a notifications/message for the client.
func notice(level, text string) []byte {
	out, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"method":  "notifications/message",
		"params":  map[string]any{"level": level, "logger": "gasoline", "data": text},
	})
	return out
}

const (
	noticeRestarted = "The Gasoline daemon restarted, so this MCP session was re-initialized automatically; " +
		"commands that were pending are lost: re-run them if you still need their results."
	noticeResumed = "The connection to the Gasoline daemon dropped and was restored; the session resumed " +
		"(requests in flight at the time were answered with errors; observe pending_commands lists the session's commands)."
	noticeNotResumed = "The session this client asked to resume is gone (the daemon restarted or it expired); " +
		"a new session started and earlier pending commands are lost."
)
