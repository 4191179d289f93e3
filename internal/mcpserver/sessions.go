package mcpserver

import (
	"context"
	"encoding/json"
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
				s.onInitialize(ss, p, req.GetExtra())
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
// came over streamable HTTP (the link handler registers stdio sessions
// before connecting); it is bound to the credential that made it
// (TokenInfo, set by the HTTP handler from the guard's identity) and lives
// as long as the SDK keeps it. A session revived after a restart
// (revive.go) is found bound to the same credential.
func (s *Server) onInitialize(ss *mcp.ServerSession, p *mcp.InitializeParams, extra *mcp.RequestExtra) {
	id := sessionKey(ss)
	sess := s.sessions.Get(id)
	switch {
	case sess == nil && ss.ID() == "":
		sess = s.sessionFor(ss) // an in-memory transport (tests): no credential
	case sess == nil || sess.Info().Transport == session.HTTP && sess.Info().State == session.Degraded:
		b, ok := httpBinding(extra)
		var err error
		if ok {
			sess, _, _, err = s.sessions.Claim(id, session.HTTP, b)
		}
		if !ok || err != nil {
			// Not while the SDK serves this request: closing waits for it.
			s.log.Warn("an HTTP session of no known credential, or of another's; closed", "session", id)
			s.watchers.Go(func(context.Context) { ss.Close() })
			return
		}
		if !s.watchers.Go(func(context.Context) { ss.Wait(); s.sessions.Close(id) }) {
			s.sessions.Close(id)
			return
		}
		if raw, err := json.Marshal(p); err == nil {
			sess.SetInit(raw) // replayed if the daemon restarts under this session
		}
	}
	if p.ClientInfo != nil {
		c := session.Client{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version}
		if r := sess.Remote(); r != "" { // its tab groups and prompts carry the remote's name
			c = session.Client{Name: r, Version: p.ClientInfo.Version, Program: p.ClientInfo.Name}
		}
		sess.SetClient(c)
	}
	info := sess.Info()
	s.log.Info("mcp session initialized", "session", id, "transport", info.Transport, "remote", info.Remote,
		"client", info.Client.Name, "client_version", info.Client.Version, "protocol", p.ProtocolVersion)
}

// httpBinding is the binding of an HTTP session: the principal the HTTP
// handler put in TokenInfo (identity.go).
func httpBinding(extra *mcp.RequestExtra) (session.Binding, bool) {
	if extra == nil || extra.TokenInfo == nil || extra.TokenInfo.UserID == "" {
		return session.Binding{}, false
	}
	remote, _ := extra.TokenInfo.Extra[extraRemote].(string)
	return session.Binding{Principal: extra.TokenInfo.UserID, Remote: remote}, true
}

// sessionFor returns the record of the SDK session, creating one for a
// session that skipped registration (in-memory transports in tests). A
// session with an id that has no record — its initialize was refused, or
// it ended — gets a closed stand-in: nothing runs unbound to a credential
// (a remote agent's calls unscoped above all).
func (s *Server) sessionFor(ss *mcp.ServerSession) *session.Session {
	id := sessionKey(ss)
	if sess := s.sessions.Get(id); sess != nil {
		return sess
	}
	if ss.ID() != "" {
		return session.Detached(id)
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

// EndPrincipal ends every session bound to principal — a remote agent's
// credential revoked or expired: their SDK sessions close (an open stream
// ends at once, and the id answers 404 from then on) and their records go,
// with their tabs and pending approvals. It returns how many ended.
func (s *Server) EndPrincipal(principal string) int {
	if principal == "" {
		return 0
	}
	ids := map[string]bool{}
	for _, in := range s.sessions.List() {
		if sess := s.sessions.Get(in.ID); sess != nil && sess.Principal() == principal {
			ids[in.ID] = true
		}
	}
	for ss := range s.mcp.Sessions() {
		if ids[sessionKey(ss)] {
			ss.Close()
		}
	}
	return s.sessions.EndPrincipal(principal)
}
