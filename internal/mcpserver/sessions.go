package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// middleware sees every request of every transport: it registers HTTP
// sessions at initialize, records the client, touches last-seen, and logs
// the method, session and duration — never params or results.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		res, err := next(ctx, method, req)
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			return res, err
		}
		if method == "initialize" && err == nil {
			if p := ss.InitializeParams(); p != nil {
				s.onInitialize(ss, p)
			}
		} else if sess := s.sessions.Get(sessionKey(ss)); sess != nil {
			sess.Touch()
		}
		s.log.Debug("mcp", "method", method, "session", sessionKey(ss), "error_code", errorCode(err), "ms", time.Since(start).Milliseconds())
		return res, err
	}
}

func errorCode(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

// onInitialize records the client. A session the daemon has not seen yet
// came over streamable HTTP (the WebSocket handler registers stdio sessions
// before connecting); it lives as long as the SDK keeps it.
func (s *Server) onInitialize(ss *mcp.ServerSession, p *mcp.InitializeParams) {
	id := sessionKey(ss)
	sess := s.sessions.Get(id)
	if sess == nil {
		var err error
		if sess, _, _, err = s.sessions.Attach(id, session.HTTP); err != nil {
			return
		}
		if !s.watchers.Go(func(context.Context) { ss.Wait(); s.sessions.Close(id) }) {
			s.sessions.Close(id)
			return
		}
	}
	if p.ClientInfo != nil {
		sess.SetClient(session.Client{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version})
	}
	info := sess.Info()
	s.log.Info("mcp session initialized", "session", id, "transport", info.Transport,
		"client", info.Client.Name, "client_version", info.Client.Version, "protocol", p.ProtocolVersion)
}

// sessionFor returns the record of the SDK session, creating one for a
// session that skipped registration (in-memory transports in tests).
func (s *Server) sessionFor(ss *mcp.ServerSession) *session.Session {
	id := sessionKey(ss)
	if sess := s.sessions.Get(id); sess != nil {
		return sess
	}
	sess, _, _, err := s.sessions.Attach(id, session.HTTP)
	if err != nil {
		// Stopped: hand back a detached record so the call still gets an
		// answer ("shutting down") rather than a nil dereference.
		return session.Detached(id)
	}
	return sess
}

// sessionKey is the session's id; sessions without one (in-memory
// transports) are keyed by identity.
func sessionKey(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return id
	}
	return fmt.Sprintf("anon-%p", ss)
}
