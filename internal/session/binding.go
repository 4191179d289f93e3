package session

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
)

// A session belongs to the client that made it (issue 27, item 4): the
// credential it came with and its transport, and for stdio the resume key
// its relay was handed. Another connection that presents the session's id
// — on the stdio relay's link, or as Mcp-Session-Id over HTTP — with another
// credential, another transport or without the key gets ErrNotYours, and
// the transports answer it as they answer an unknown id: the session is
// neither resumed nor joined, and whether it exists is not told.

// Binding is who may attach to a session.
type Binding struct {
	// Principal names the credential (creds.Identity): "agent" for the
	// local agent credential (whatever its current value: `token rotate`
	// keeps its sessions), "remote:<id>" for one remote agent's
	// credential. Empty only for the daemon's own sessions (the panel).
	Principal string
	// Remote is the remote agent's name, "" for a local client: what its
	// tab groups and approval prompts call it.
	Remote string
	// Key is the resume key of a stdio session, which only its relay holds
	// (never stored: its SHA-256 is). Empty for HTTP, where the session id
	// the client was handed plays that part.
	Key string
}

// ErrNotYours means a session exists but is bound to another client.
var ErrNotYours = errors.New("session: bound to another client")

// NewKey returns a fresh resume key.
func NewKey() string { return NewID() + NewID() }

func keyHash(key string) string {
	if key == "" {
		return ""
	}
	h := sha256.Sum256([]byte("gasoline-session-key:" + key))
	return hex.EncodeToString(h[:])
}

// allows reports whether b may attach to s over t (s.mu held).
func (s *Session) allows(t Transport, b Binding) bool {
	if s.transport != t || s.principal != b.Principal {
		return false
	}
	if s.keyHash == "" {
		return b.Key == ""
	}
	return subtle.ConstantTimeCompare([]byte(s.keyHash), []byte(keyHash(b.Key))) == 1
}

// Principal returns the credential the session is bound to.
func (s *Session) Principal() string { return s.principal }

// Remote returns the remote agent's name, "" for a local client.
func (s *Session) Remote() string { return s.remote }

// SetInit records the client's initialize parameters (HTTP sessions): a
// daemon that restarted replays them to take the session up again under
// its old id, for clients that do not initialize again.
func (s *Session) SetInit(raw json.RawMessage) {
	s.mu.Lock()
	changed := string(s.init) != string(raw)
	s.init = raw
	s.mu.Unlock()
	if changed {
		s.m.persist()
	}
}

// Init returns what SetInit recorded.
func (s *Session) Init() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init
}

// Lookup returns the session id names if b may attach to it over t:
// nil and ErrNotYours when it is another client's, nil and nil when there
// is none.
func (m *Manager) Lookup(id string, t Transport, b Binding) (*Session, error) {
	s := m.Get(id)
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	ok := s.allows(t, b)
	s.mu.Unlock()
	if !ok {
		return nil, ErrNotYours
	}
	return s, nil
}

// EndPrincipal closes every session bound to principal (a remote agent's
// credential revoked or expired) and returns how many.
func (m *Manager) EndPrincipal(principal string) int {
	if principal == "" {
		return 0
	}
	var ids []string
	m.mu.Lock()
	for id, s := range m.sessions {
		if s.principal == principal {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.Close(id)
	}
	return len(ids)
}
