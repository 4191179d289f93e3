package creds

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// Set is the daemon's view of every credential: it answers which role a
// presented bearer token belongs to. The agent credential is re-read when
// its file changes (`gasoline-host token rotate` takes effect at once, no
// restart); the link and approver credentials are minted by OpenSet.
type Set struct {
	dir      string
	link     string
	approver string
	remotes  Remotes // set before serving (SetRemotes); nil: none

	mu    sync.Mutex
	agent string
	stamp fileStamp
}

type fileStamp struct {
	size int64
	mod  int64
	ok   bool
}

// OpenSet makes the credentials folder safe (Secure: what another user
// could have read or planted is replaced, and logged on log), loads the
// agent credential (creating it on first use) and writes fresh link and
// approver credentials for this daemon. Call it once the daemon holds the
// state directory's lock.
func OpenSet(stateDir string, log *slog.Logger) (*Set, error) {
	if err := Secure(stateDir, log); err != nil {
		return nil, err
	}
	s := &Set{dir: stateDir}
	var err error
	if s.agent, err = Ensure(stateDir, Agent); err != nil {
		return nil, err
	}
	s.stamp = stampOf(Path(stateDir, Agent))
	if s.link, err = Rotate(stateDir, Link); err != nil {
		return nil, err
	}
	if s.approver, err = Rotate(stateDir, Approver); err != nil {
		return nil, err
	}
	return s, nil
}

// Value returns a role's current credential.
func (s *Set) Value(r Role) string {
	switch r {
	case Agent:
		return s.agentValue()
	case Link:
		return s.link
	case Approver:
		return s.approver
	}
	return ""
}

// RoleOf returns the role whose credential tok is (None when it is none).
// Every role is compared, in constant time, whatever matches.
func (s *Set) RoleOf(tok string) Role {
	found := None
	for _, r := range Roles {
		if Equal(tok, s.Value(r)) {
			found = r
		}
	}
	return found
}

// agentValue re-reads the agent file when it changed: the file is the
// truth. A rotated file wins at once; a deleted one is recreated with a
// new credential (as `mcp-config` would); an unreadable, corrupt or
// unsafe one (a symlink, another user's, open to others) keeps the last
// good value.
func (s *Set) agentValue() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Path(s.dir, Agent)
	st := stampOf(p)
	if st == s.stamp {
		return s.agent
	}
	tok, err := Ensure(s.dir, Agent)
	if err != nil {
		return s.agent
	}
	s.agent, s.stamp = tok, stampOf(p)
	return s.agent
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime().UnixNano(), ok: true}
}

// String never shows a credential.
func (s *Set) String() string { return fmt.Sprintf("creds.Set(%s)", Dir(s.dir)) }
