package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Protocol errors the transports answer themselves, before a message
// reaches the SDK (which would drop a stdio connection on bad input and
// answer HTTP with plain text).

// rpcError is a JSON-RPC error response with a raw id (null when unknown).
func rpcError(id json.RawMessage, code int64, msg string) []byte {
	return rpcErrorData(id, code, msg, nil)
}

// rpcErrorData is rpcError with the error's data.
func rpcErrorData(id json.RawMessage, code int64, msg string, data json.RawMessage) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg, Data: data}})
	return out
}

// checkMessage decodes one JSON-RPC message. When it is not one, it returns
// the error response to send instead.
func checkMessage(data []byte) (jsonrpc.Message, []byte) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message at a time")
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err == nil {
		return msg, nil
	}
	var probe map[string]json.RawMessage
	if jerr := json.Unmarshal(data, &probe); jerr != nil {
		if !json.Valid(data) {
			return nil, rpcError(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the message is not valid JSON (%v)", jerr))
		}
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	return nil, rpcError(validID(probe["id"]), jsonrpc.CodeInvalidRequest,
		`invalid request: a JSON-RPC 2.0 message needs "jsonrpc":"2.0" and a method (request, notification) or an id with result or error (response)`)
}

// validID returns raw if it is a usable JSON-RPC id (string or number).
func validID(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return raw
	}
	return nil
}

// knownMethods are the methods the SDK server handles (go-sdk
// serverMethodInfos). A request for any other method is answered with
// method-not-found, and a notification for any other is ignored, the same
// on every transport.
var knownMethods = map[string]bool{
	"initialize": true, "ping": true,
	"tools/list": true, "tools/call": true,
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel": true, "completion/complete": true,
	"server/discover": true, "subscriptions/listen": true,
	"notifications/cancelled": true, "notifications/initialized": true,
	"notifications/roots/list_changed": true, "notifications/progress": true,
}

// methodNotFound is the answer to a request for an unknown method.
func methodNotFound(id json.RawMessage, method string) []byte {
	return rpcError(id, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", method))
}

// rawID returns the wire form of a request id.
func rawID(id jsonrpc.ID) json.RawMessage {
	raw, _ := json.Marshal(id.Raw())
	return raw
}
