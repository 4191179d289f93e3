package mcpserver

import (
	"context"
	"net/http"
	"strconv"

	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// Headers of the /ws/mcp handshake. The relay sends HeaderSession with the
// session id it had (to resume after a dropped connection); the daemon
// answers with the session's id and whether it resumed.
const (
	HeaderSession = "X-Gasoline-Session"
	HeaderResumed = "X-Gasoline-Resumed"
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
	id := s.resumableID(r.Header.Get(HeaderSession))
	sess, gen, resumed, err := s.sessions.Attach(id, session.Stdio)
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

// resumableID returns hint when it names a stdio session the daemon still
// keeps, else a fresh id.
func (s *Server) resumableID(hint string) string {
	if hint == "" || len(hint) > 64 {
		return session.NewID()
	}
	if sess := s.sessions.Get(hint); sess != nil && sess.Info().Transport == session.Stdio {
		return hint
	}
	return session.NewID()
}
