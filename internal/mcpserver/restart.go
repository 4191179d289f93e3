package mcpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// An HTTP call in flight when the daemon dies cannot be answered by that
// daemon. What a client does next is its own: the go-sdk and TypeScript
// clients, having seen the stream's priming event id, reconnect with GET
// and Last-Event-ID (the go-sdk up to 5 times over ~12–24 s, TypeScript
// twice over ~2.5 s by default). So every SSE event id the daemon writes
// for a call carries, after the SDK's own id, this daemon's incarnation
// and the call's JSON-RPC id:
//
//	id: <sdk stream>_<index>.<incarnation>.<base64url(request id)>
//
// A daemon that receives a Last-Event-ID of another incarnation knows the
// stream belonged to a daemon that is gone, and answers the GET at once
// with the call's answer: a retryable daemon_restarted error under the
// call's id. Without this the new daemon could only say 404 (session not
// found), which the TypeScript client retries and then waits on until its
// own request timeout. An id of this incarnation is stripped back to the
// SDK's before the SDK sees it (a client resuming a live daemon's stream).

// codeDaemonRestarted is the JSON-RPC error code of daemon_restarted, as
// the stdio relay answers it.
const codeDaemonRestarted int64 = -32000

// maxSuffixID bounds the request ids carried in event ids (longer ones are
// not carried: such a call gets the SDK's 404 after a restart).
const maxSuffixID = 128

// newIncarnation is a fresh id for this daemon run.
func newIncarnation() string { return rand.Text()[:10] }

// eventIDSuffix is what follows the SDK's event id in a call's stream.
func (s *Server) eventIDSuffix(id json.RawMessage) string {
	if len(id) == 0 || len(id) > maxSuffixID {
		return ""
	}
	return "." + s.incarnation + "." + base64.RawURLEncoding.EncodeToString(id)
}

// splitEventID parses a Last-Event-ID the daemon wrote: the SDK's id, the
// incarnation, and the call's id. ok is false for any other value.
func splitEventID(v string) (sdk, inc string, id json.RawMessage, ok bool) {
	sdk, rest, found := strings.Cut(v, ".")
	if !found {
		return "", "", nil, false
	}
	inc, enc, found := strings.Cut(rest, ".")
	if !found || inc == "" {
		return "", "", nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || validID(raw) == nil || !json.Valid(raw) {
		return "", "", nil, false
	}
	return sdk, inc, raw, true
}

// resumeOrRestarted handles a GET carrying a Last-Event-ID the daemon
// wrote. For a stream of this daemon it returns the writer (which keeps
// marking event ids) with the header stripped to the SDK's id; for one of
// a previous daemon it answers the call and reports done.
func (s *Server) resumeOrRestarted(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, bool) {
	sdk, inc, id, ok := splitEventID(r.Header.Get("Last-Event-ID"))
	if !ok {
		return w, false
	}
	if inc == s.incarnation {
		r.Header.Set("Last-Event-ID", sdk)
		return &sseIDs{ResponseWriter: w, suffix: s.eventIDSuffix(id)}, false
	}
	s.log.Info("answering a call of a previous daemon run", "method", r.Method)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	// No event id: a client must not resume this stream.
	var b bytes.Buffer
	b.WriteString("data: ")
	b.Write(restartedError(id))
	b.WriteString("\n\n")
	w.Write(b.Bytes())
	return w, true
}

// restartedError is the answer to a call its daemon never answered.
func restartedError(id json.RawMessage) []byte {
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   restartedRPCErr `json:"error"`
	}{"2.0", id, restartedRPCErr{
		Code: codeDaemonRestarted,
		Message: "the Gasoline daemon stopped while this call was in flight (it crashed or was restarted), so its answer is lost " +
			"and the MCP session ended with it: connect again (initialize without Mcp-Session-Id; the same agent credential works) " +
			"and retry. A tool call may have taken effect before the daemon stopped: check with observe before repeating a change",
		Data: restartedData{Code: "daemon_restarted", Retryable: true, RetryAfterMS: 500},
	}})
	return out
}

type restartedRPCErr struct {
	Code    int64         `json:"code"`
	Message string        `json:"message"`
	Data    restartedData `json:"data"`
}

type restartedData struct {
	Code         string `json:"code"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS int    `json:"retry_after_ms"`
}

// primeRetry is the reconnect delay a call's stream asks for (SSE retry,
// on its priming event). The go-sdk client waits 1–2 s before its first
// reconnect otherwise, on every stream alike, and its standalone stream,
// reaching a restarted daemon first, would fail the session with a bare
// "session not found" before the call's stream could fetch the call's
// answer. The TypeScript client uses it for every reconnect (twice by
// default), so it is not shorter.
const primeRetry = "\nretry: 800"

// sseIDs appends suffix to the id of every SSE event written through it,
// and asks for primeRetry on the priming event. The SDK writes each event
// (its event/id/retry lines, then data) in one Write; anything else passes
// untouched.
type sseIDs struct {
	http.ResponseWriter
	suffix string
}

func (w *sseIDs) Write(b []byte) (int, error) {
	end := idLineEnd(b)
	if w.suffix == "" || end < 0 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		return w.ResponseWriter.Write(b)
	}
	add := w.suffix
	if bytes.HasPrefix(b, []byte("event: prime\n")) {
		add += primeRetry
	}
	for _, part := range [][]byte{b[:end], []byte(add), b[end:]} {
		if _, err := w.ResponseWriter.Write(part); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// idLineEnd returns where the value of an event's "id: " field ends in
// the field lines before its data, or -1.
func idLineEnd(b []byte) int {
	off := 0
	for range 4 { // event, id, retry: the SDK writes at most these before data
		line, _, found := bytes.Cut(b[off:], []byte("\n"))
		if !found || bytes.HasPrefix(line, []byte("data:")) {
			return -1
		}
		if bytes.HasPrefix(line, []byte("id: ")) {
			return off + len(line)
		}
		off += len(line) + 1
	}
	return -1
}

// Flush passes SSE flushes through.
func (w *sseIDs) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *sseIDs) Unwrap() http.ResponseWriter { return w.ResponseWriter }
