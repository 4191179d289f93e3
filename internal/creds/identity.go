package creds

import "time"

// Remote is the role of a remote agent's credential (`gasoline-host
// remote add`, internal/remote): MCP over streamable HTTP only, within
// its scope, until it expires or is revoked. It has no file of its own
// here: the remote agents' store keeps only a hash of each.
const Remote Role = 100

// PrincipalAgent is the principal of the local agent credential: every
// MCP session made with it is bound to it (session.Binding), whatever its
// current value, so `token rotate` ends no session.
const PrincipalAgent = "agent"

// Identity is who a presented credential names.
type Identity struct {
	Role Role
	// Principal is what an MCP session made with the credential is bound
	// to: PrincipalAgent, or "remote:<id>" for one remote agent's
	// credential. Empty for the other roles.
	Principal string
	// Name is a remote agent's name ("devbox"); "" otherwise.
	Name string
	// Expires is when a remote agent's credential ends; zero otherwise.
	Expires time.Time
}

// Remotes finds remote agents' credentials (internal/remote). Identify
// must compare in constant time and answer ok only for a live credential
// (neither revoked nor expired).
type Remotes interface {
	Identify(token string) (Identity, bool)
}

// SetRemotes lets the daemon's Set recognise remote agents' credentials.
// Call it before the daemon serves.
func (s *Set) SetRemotes(r Remotes) { s.remotes = r }

// Identify returns who tok names: one of the roles (every one compared in
// constant time, whatever matches), else a live remote agent, else None.
func (s *Set) Identify(tok string) Identity {
	if r := s.RoleOf(tok); r != None {
		id := Identity{Role: r}
		if r == Agent {
			id.Principal = PrincipalAgent
		}
		return id
	}
	if s.remotes != nil && tok != "" {
		if id, ok := s.remotes.Identify(tok); ok {
			return id
		}
	}
	return Identity{Role: None}
}
