package mcprelay

import (
	"encoding/json"
	"errors"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
)

// head is what the relay reads of a message: enough to track requests and
// replies. Everything else passes through untouched.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// peek parses a message's head; ok is false for anything that is not a
// JSON object (the daemon answers those with a parse error). An id of
// null is kept as the bytes null: MCP forbids it in a request.
func peek(msg []byte) (h head, ok bool) {
	if err := json.Unmarshal(msg, &h); err != nil {
		return head{}, false
	}
	return h, true
}

func (h head) isRequest() bool { return h.Method != nil && h.ID != nil }
func (h head) method() string {
	if h.Method == nil {
		return ""
	}
	return *h.Method
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
	// errNotJSON answers a line that does not begin with '{' or '[': no
	// JSON-RPC message, answered here so that only JSON reaches the
	// daemon's link (mcpline.Forwardable).
	errNotJSON = rpcErr{
		Code:    -32700,
		Message: "parse error: the message is not valid JSON; send one JSON-RPC message per line",
		Data:    errData{Code: "parse_error"},
	}
)

// errBadID answers a request whose id MCP does not allow. JSON-RPC answers
// an invalid request with the id null.
func errBadID(id json.RawMessage) rpcErr {
	what := "null"
	if string(id) != "null" {
		what = "not a string or a number"
	}
	return rpcErr{
		Code: -32600,
		Message: "invalid request: the request id is " + what + "; an MCP request id must be a string or a number " +
			"(to send a message that needs no answer, leave the id out: a notification)",
		Data: errData{Code: "invalid_request"},
	}
}

// errExiting answers the requests still in flight when the relay exits at
// the end of its input.
func errExiting(session string) rpcErr {
	how := "observe pending_commands lists the session's commands"
	if session != "" {
		how = "run gasoline-host --mcp --session " + session + " and call observe pending_commands to fetch its result"
	}
	return rpcErr{
		Code: codeDaemonLost,
		Message: "the client closed gasoline-host --mcp's input while this request was in flight, and the relay exits " +
			"within a second of its input ending; the call may still finish in the daemon: " + how,
		Data: errData{Code: "relay_exiting", Retryable: true},
	}
}

func errUnavailable(cause error) rpcErr {
	if errors.Is(cause, launcher.ErrStopped) {
		return rpcErr{
			Code: codeDaemonUnavailable,
			Message: cause.Error() + ". Gasoline does not restart on its own after a stop the user asked for: " +
				"ask the user to start it, then retry",
			Data: errData{Code: "daemon_stopped"},
		}
	}
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
