package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// maxBody bounds one POST body on /mcp: an upload by content carries up
// to 25 MiB of files in base64 (actions.MaxContentBytes).
const maxBody = 40 << 20

// newHTTPHandler wraps the SDK's streamable HTTP handler so that HTTP
// clients get the same protocol answers as stdio ones: a JSON-RPC parse
// error for malformed JSON, method-not-found for unknown methods, unknown
// notifications accepted and ignored, and a JSON-RPC body that says what to
// do when a session is gone, and a call in flight when a previous daemon
// died gets its answer (restart.go).
func (s *Server) newHTTPHandler() http.Handler {
	s.events = newEventStore(maxEventStreams, maxEventBytes)
	sdk := withTokenInfo(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      s.sessionTTL(),
		MaxRequestBodyBytes: maxBody,
		EventStore:          s.events, // events.go
		Logger:              sdkLogger(s.log),
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id []byte
		if r.Method == http.MethodPost && isJSON(r) {
			var done bool
			if id, done = precheck(w, r); done {
				return
			}
			if sfx := s.eventIDSuffix(id); sfx != "" {
				w = &sseIDs{ResponseWriter: w, suffix: sfx} // restart.go
			}
		}
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			var done bool
			if w, done = s.resumeOrRestarted(w, r); done {
				return
			}
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			w = &goneRewriter{ResponseWriter: w, id: id, restarted: !strings.HasPrefix(sid, s.incarnation)}
		}
		release := s.maybeRevive(sdk, r) // revive.go
		defer release()
		sdk.ServeHTTP(w, r)
	})
}

// sessionTTL is how long an idle HTTP session lives: the session
// manager's TTL.
func (s *Server) sessionTTL() time.Duration {
	if s.opts.Sessions.TTL > 0 {
		return s.opts.Sessions.TTL
	}
	return session.DefaultTTL
}

func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json"
}

// precheck reads the body (bounded) and answers what the SDK would answer
// differently from stdio. It restores the body for the SDK and returns the
// request id, if any; done means the response is written.
func precheck(w http.ResponseWriter, r *http.Request) (id []byte, done bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "failed to read body", http.StatusBadRequest)
		}
		return nil, true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] == '[' {
		return nil, false // empty or a batch: the SDK's answer stands
	}
	msg, reply := checkMessage(trimmed)
	if reply != nil {
		writeJSON(w, http.StatusBadRequest, reply)
		return nil, true
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, false
	}
	switch {
	case !req.IsCall() && !knownMethods[req.Method]:
		w.WriteHeader(http.StatusAccepted) // an unknown notification is ignored
		return nil, true
	case req.IsCall() && !knownMethods[req.Method]:
		writeJSON(w, http.StatusOK, methodNotFound(rawID(req.ID), req.Method))
		return nil, true
	case req.IsCall():
		return rawID(req.ID), false
	}
	return nil, false
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// goneRewriter turns the SDK's plain-text 404 for an unknown
// Mcp-Session-Id into a JSON-RPC error that tells the client what happened
// and what to do.
type goneRewriter struct {
	http.ResponseWriter
	id        []byte
	restarted bool // the session was made by an earlier daemon run
	rewrote   bool
}

const (
	sessionRestarted = "session not found: the Gasoline daemon restarted since this session began, so the session and its pending commands are lost; " +
		"send initialize again without an Mcp-Session-Id to start a new session (the same agent credential works), then retry"
	sessionExpired = "session not found: the session ended (it was closed, or idle past its time to live), so its pending commands are lost; " +
		"send initialize again without an Mcp-Session-Id to start a new session"
)

func (g *goneRewriter) WriteHeader(code int) {
	if code != http.StatusNotFound {
		g.ResponseWriter.WriteHeader(code)
		return
	}
	g.rewrote = true
	g.Header().Del("X-Content-Type-Options")
	rpcCode, msg, data := int64(jsonrpc.CodeInvalidRequest), sessionExpired, `{"code":"session_expired","retryable":false}`
	if g.restarted { // the code the stdio relay and a call in flight get too
		rpcCode, msg, data = codeDaemonRestarted, sessionRestarted, `{"code":"daemon_restarted","retryable":true}`
	}
	id := g.id
	if id == nil {
		// A GET or DELETE answers no request. JSON-RPC would say null, but
		// the go-sdk client reads an error body only when its id is valid,
		// and its standalone stream is often the first to meet a restarted
		// daemon: this id names no request any client sends.
		id = json.RawMessage(`"mcp-session-gone"`)
	}
	writeJSON(g.ResponseWriter, code, rpcErrorData(id, rpcCode, msg, json.RawMessage(data)))
}

func (g *goneRewriter) Write(b []byte) (int, error) {
	if g.rewrote {
		return len(b), nil
	}
	return g.ResponseWriter.Write(b)
}

// Flush passes SSE flushes through.
func (g *goneRewriter) Flush() {
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (g *goneRewriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }
