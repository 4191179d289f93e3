package mcpserver

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// maxBody bounds one POST body on /mcp.
const maxBody = mcp.DefaultMaxRequestBodyBytes

// newHTTPHandler wraps the SDK's streamable HTTP handler so that HTTP
// clients get the same protocol answers as stdio ones: a JSON-RPC parse
// error for malformed JSON, method-not-found for unknown methods, unknown
// notifications accepted and ignored, and a JSON-RPC body that says what to
// do when a session is gone.
func (s *Server) newHTTPHandler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		SessionTimeout: s.sessionTTL(),
		EventStore:     mcp.NewMemoryEventStore(nil),
		Logger:         sdkLogger(s.log),
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id []byte
		if r.Method == http.MethodPost && isJSON(r) {
			var done bool
			if id, done = precheck(w, r); done {
				return
			}
		}
		if r.Header.Get("Mcp-Session-Id") != "" {
			w = &goneRewriter{ResponseWriter: w, id: id}
		}
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
	id      []byte
	rewrote bool
}

const sessionGone = "session not found: the Gasoline daemon restarted or the session expired, so its pending commands are lost; " +
	"send initialize again without an Mcp-Session-Id to start a new session"

func (g *goneRewriter) WriteHeader(code int) {
	if code != http.StatusNotFound {
		g.ResponseWriter.WriteHeader(code)
		return
	}
	g.rewrote = true
	g.Header().Del("X-Content-Type-Options")
	writeJSON(g.ResponseWriter, code, rpcError(g.id, jsonrpc.CodeInvalidRequest, sessionGone))
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
