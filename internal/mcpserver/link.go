package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/httpguard"
	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// ServeLink serves one connection of the stdio relay's link
// (internal/mcpline, docs/DAEMON.md): one MCP session over newline-framed
// JSON-RPC, opened by a hello that carries the agent credential. The
// daemon's port hands it every connection whose first byte is '{'
// (bridge). It refuses, with one answer line and a close, a peer that is
// not loopback, a hello that does not come within mcpline.HelloTimeout or
// is not one, and any credential but the agent one (looked up in cr, the
// HTTP guard's credentials). It returns when the session's connection
// ends; ctx ending ends it.
func (s *Server) ServeLink(ctx context.Context, c net.Conn, cr httpguard.Credentials) {
	defer c.Close()
	defer context.AfterFunc(ctx, func() { c.Close() })()
	br := bufio.NewReaderSize(c, 64<<10)
	who, h, refusal := s.linkHello(c, br, cr)
	if refusal != "" {
		s.log.Warn("refused a relay link", "peer", c.RemoteAddr().String(), "why", refusal)
		c.SetWriteDeadline(time.Now().Add(time.Second))
		c.Write(mcpline.Marshal(mcpline.Answer{Error: refusal}))
		return
	}
	id, b := s.stdioBinding(h.Session, h.ResumeKey, who)
	sess, gen, resumed, err := s.sessions.Claim(id, session.Stdio, b)
	if errors.Is(err, session.ErrNotYours) { // taken meanwhile: a session of its own
		id, b = session.NewID(), session.Binding{Principal: who.Principal, Key: session.NewKey()}
		sess, gen, resumed, err = s.sessions.Claim(id, session.Stdio, b)
	}
	if err != nil {
		c.Write(mcpline.Marshal(mcpline.Answer{Error: "the daemon is shutting down; connect again in a moment"}))
		return
	}
	conn := newLineConn(c, br, id, s.opts.linkMax)
	connected := false
	defer func() {
		switch {
		case conn.ended.Load():
			s.log.Info("stdio session ended by its client", "session", id)
			s.sessions.Close(id)
		case connected || resumed:
			s.sessions.Detach(id, gen) // kept for the TTL: the client may come back
		default:
			s.sessions.Close(id) // never served: nothing to keep
		}
	}()
	a := mcpline.Answer{Session: id, Resumed: resumed, Version: s.opts.Version}
	if !resumed {
		a.ResumeKey = b.Key
	}
	if err := conn.writeLine(ctx, mcpline.Marshal(a)); err != nil {
		return
	}
	ss, err := s.mcp.Connect(ctx, &lineTransport{conn: conn}, nil)
	if err != nil {
		return
	}
	connected = true
	s.log.Info("stdio session connected", "session", id, "resumed", resumed, "pending", sess.Info().Pending, "relay_version", h.Version)
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	ss.Wait()
	s.log.Info("stdio session disconnected", "session", id)
}

// linkHello reads and checks a link's hello: a loopback peer, a hello
// line within mcpline.HelloTimeout, the agent credential. It returns the
// refusal to answer with, or "".
func (s *Server) linkHello(c net.Conn, br *bufio.Reader, cr httpguard.Credentials) (creds.Identity, mcpline.Hello, string) {
	var h mcpline.Hello
	if !loopbackPeer(c.RemoteAddr()) {
		return creds.Identity{}, h, "the relay's link is served to loopback peers only"
	}
	c.SetReadDeadline(time.Now().Add(s.opts.linkHello))
	ln, err := mcpline.Read(br, mcpline.MaxHello)
	c.SetReadDeadline(time.Time{})
	switch {
	case err != nil:
		return creds.Identity{}, h, "no hello: a link opens with one line, a JSON hello (internal/mcpline), within " + s.opts.linkHello.String()
	case ln.TooLong || json.Unmarshal(ln.Data, &h) != nil || h.Gasoline != mcpline.HelloKind:
		return creds.Identity{}, h, `not a hello: a link opens with {"gasoline":"` + mcpline.HelloKind + `","credential":…}`
	}
	who, why := httpguard.Check(cr, h.Credential, []creds.Role{creds.Agent})
	if why != "" {
		return who, h, "the link takes the agent credential (credentials/agent.token); " + why
	}
	return who, h, ""
}

// loopbackPeer reports whether addr is a loopback TCP address (the
// daemon listens on loopback only; this is the check should that change).
func loopbackPeer(addr net.Addr) bool {
	a, ok := addr.(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
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
