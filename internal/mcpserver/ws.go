package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/httpguard"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// Headers of the /ws/mcp handshake. The relay sends HeaderSession with the
// session id it had and HeaderResumeKey with the key it was handed for it
// (to resume after a dropped connection or a daemon restart); the daemon
// answers with the session's id, whether it resumed, and — for a new
// session only — its resume key. The id alone resumes nothing: a session
// belongs to the relay that holds its key (session.Binding).
const (
	HeaderSession   = "X-Gasoline-Session"
	HeaderResumed   = "X-Gasoline-Resumed"
	HeaderResumeKey = "X-Gasoline-Resume-Key"
)

// CloseSessionEnd is the WebSocket close status with which the relay says
// its client ended the session (stdin reached its end, or the relay was
// told to stop): the session ends and its tabs close. Any other end of
// the connection keeps the session for its TTL, so the client can resume.
const CloseSessionEnd websocket.StatusCode = 4000

// WSHandler serves /ws/mcp: one MCP session per WebSocket, for the stdio
// relay. Mount it behind the loopback guard. The handler returns when the
// session ends (client gone, daemon stopping).
func (s *Server) WSHandler() http.Handler { return http.HandlerFunc(s.serveWS) }

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	who, ok := httpguard.IdentityFrom(r.Context())
	if !ok || who.Role != creds.Agent {
		http.Error(w, "forbidden: /ws/mcp takes the agent credential (mount it behind the guard)", http.StatusForbidden)
		return
	}
	id, b := s.stdioBinding(r.Header.Get(HeaderSession), r.Header.Get(HeaderResumeKey), who)
	sess, gen, resumed, err := s.sessions.Claim(id, session.Stdio, b)
	if errors.Is(err, session.ErrNotYours) { // taken meanwhile: a session of its own
		id, b = session.NewID(), session.Binding{Principal: who.Principal, Key: session.NewKey()}
		sess, gen, resumed, err = s.sessions.Claim(id, session.Stdio, b)
	}
	if err != nil {
		http.Error(w, "the daemon is shutting down", http.StatusServiceUnavailable)
		return
	}
	connected := false
	var conn *wsConn
	defer func() {
		switch {
		case conn != nil && conn.ended.Load():
			s.log.Info("stdio session ended by its client", "session", id)
			s.sessions.Close(id)
		case connected || resumed:
			s.sessions.Detach(id, gen) // kept for the TTL: the client may come back
		default:
			s.sessions.Close(id) // never served: nothing to keep
		}
	}()
	w.Header().Set(HeaderSession, id)
	w.Header().Set(HeaderResumed, strconv.FormatBool(resumed))
	if !resumed {
		w.Header().Set(HeaderResumeKey, b.Key)
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // Host, Origin and token are checked by the guard
	})
	if err != nil {
		return
	}
	c.SetReadLimit(MaxMessage)
	conn = newWSConn(c, id)
	ss, err := s.mcp.Connect(r.Context(), &wsTransport{conn: conn}, nil)
	if err != nil {
		c.CloseNow()
		return
	}
	connected = true
	s.log.Info("stdio session connected", "session", id, "resumed", resumed, "pending", sess.Info().Pending)
	stop := context.AfterFunc(r.Context(), func() { ss.Close() })
	defer stop()
	ss.Wait()
	s.log.Info("stdio session disconnected", "session", id)
}

// stdioBinding returns the session a relay may resume — hint, when it
// names a stdio session bound to this credential and key — else a fresh
// id and key. A hint that names another client's session gets a new
// session, as an unknown one does: nothing tells the two apart.
func (s *Server) stdioBinding(hint, key string, who creds.Identity) (string, session.Binding) {
	b := session.Binding{Principal: who.Principal, Key: key}
	if hint != "" && len(hint) <= 64 && key != "" && len(key) <= 128 {
		if sess, err := s.sessions.Lookup(hint, session.Stdio, b); sess != nil {
			return hint, b
		} else if errors.Is(err, session.ErrNotYours) {
			s.log.Warn("a relay presented a stdio session it does not hold; it gets a new one", "session", hint)
		}
	}
	b.Key = session.NewKey()
	return session.NewID(), b
}
