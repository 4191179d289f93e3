package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/httpguard"
	"github.com/gasoline-mcp/gasoline/internal/session"
)

// HTTP sessions survive a daemon restart (issue 34, item 5). The go-sdk
// keeps its streamable sessions in memory, so a new daemon would answer a
// client's old Mcp-Session-Id with 404 — and clients that do not
// initialize again on 404 (the Python SDK's streamable-HTTP client) then
// fail every call with "Session terminated". So sessions.json keeps each
// HTTP session with its credential and the client's initialize params,
// the next daemon restores it degraded, and the first request that
// presents its id with the same credential revives it: the daemon replays
// the client's initialize and initialized through the SDK under the old
// id (as the stdio relay replays them for its client), and the request
// goes on as if nothing had happened. Another credential's request for
// that id revives nothing and gets the 404 of an unknown session.

// reviver serialises what makes SDK sessions: a revival hands its id to
// GetSessionID, so no other initialize may run in between.
type reviver struct {
	mu     sync.RWMutex // write: a revival; read: any POST making a session
	idMu   sync.Mutex
	forced string // the id GetSessionID hands out next
}

// nextID is GetSessionID's choice: the forced id of a revival, or fresh.
func (rv *reviver) nextID(fresh func() string) string {
	rv.idMu.Lock()
	id := rv.forced
	rv.forced = ""
	rv.idMu.Unlock()
	if id != "" {
		return id
	}
	return fresh()
}

// maybeRevive revives the session r names when it is a restored HTTP
// session of r's credential. It returns a function that ends the
// request's part in the reviver's lock: a POST that makes a session holds
// the read lock while the SDK serves it.
func (s *Server) maybeRevive(sdk http.Handler, r *http.Request) (release func()) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		if r.Method != http.MethodPost {
			return func() {}
		}
		s.revive.mu.RLock()
		return s.revive.mu.RUnlock
	}
	if !s.restoredHTTP(sid) {
		return func() {}
	}
	who, ok := httpguard.IdentityFrom(r.Context())
	if !ok {
		return func() {}
	}
	sess, err := s.sessions.Lookup(sid, session.HTTP, session.Binding{Principal: who.Principal, Remote: who.Name})
	if sess == nil || err != nil || len(sess.Init()) == 0 {
		return func() {} // another client's, or nothing to replay: the SDK's 404
	}
	s.revive.mu.Lock()
	defer s.revive.mu.Unlock()
	if !s.restoredHTTP(sid) {
		return func() {} // a request beside this one revived it
	}
	if err := s.replayInit(sdk, r, sid, sess.Init()); err != nil {
		s.log.Warn("reviving an HTTP session after a restart failed; the client must initialize again", "session", sid, "err", err)
		return func() {}
	}
	s.log.Info("HTTP session revived after a daemon restart", "session", sid, "remote", who.Name)
	return func() {}
}

// restoredHTTP reports an HTTP session a previous daemon made that no
// SDK session serves yet.
func (s *Server) restoredHTTP(sid string) bool {
	sess := s.sessions.Get(sid)
	if sess == nil {
		return false
	}
	in := sess.Info()
	return in.Transport == session.HTTP && in.State == session.Degraded
}

// replayInit makes the SDK session sid again: initialize with the
// client's params, then notifications/initialized, both in r's context
// (its credential's identity included).
func (s *Server) replayInit(sdk http.Handler, r *http.Request, sid string, params json.RawMessage) error {
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "gasoline-revive", "method": "initialize", "params": params})
	s.revive.idMu.Lock()
	s.revive.forced = sid
	s.revive.idMu.Unlock()
	w := &capture{}
	sdk.ServeHTTP(w, synthetic(r, init, ""))
	s.revive.idMu.Lock()
	leftover := s.revive.forced != ""
	s.revive.forced = ""
	s.revive.idMu.Unlock()
	if leftover || w.code != http.StatusOK || w.header.Get("Mcp-Session-Id") != sid {
		return &reviveError{code: w.code}
	}
	w = &capture{}
	sdk.ServeHTTP(w, synthetic(r, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sid))
	if w.code != http.StatusAccepted && w.code != http.StatusOK {
		return &reviveError{code: w.code}
	}
	return nil
}

type reviveError struct{ code int }

func (e *reviveError) Error() string {
	return "the SDK answered the replayed handshake with " + http.StatusText(e.code)
}

// synthetic is a POST of body in r's context, with r's protocol version.
func synthetic(r *http.Request, body []byte, sid string) *http.Request {
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewReader(body))
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && sid != "" {
		req.Header.Set("Mcp-Protocol-Version", v)
	}
	return req
}

// capture is a ResponseWriter that keeps the status and headers and
// drops the body (the replayed handshake's answers are not the client's).
type capture struct {
	header http.Header
	code   int
}

func (c *capture) Header() http.Header {
	if c.header == nil {
		c.header = http.Header{}
	}
	return c.header
}

func (c *capture) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
}

func (c *capture) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return len(b), nil
}

func (c *capture) Flush() {}
