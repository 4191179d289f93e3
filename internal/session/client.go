package session

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/waitnote"
)

// Session is one MCP client's session.
type Session struct {
	m         *Manager
	id        string
	transport Transport
	created   time.Time
	ctx       context.Context // parent of the session's commands
	cancel    context.CancelFunc

	mu       sync.Mutex
	client   Client
	lastSeen time.Time
	state    State
	gen      uint64
	seq      uint64
	cmds     map[string]*Command
	history  []*Command // by Seq, oldest first
	evicted  map[string]Eviction
	evOrder  []string // evicted ids, oldest first (at most maxEvictions)

	keptN int // finished commands whose results are kept; guarded by m.ret.mu

	pageWarning string // what its approval requests say about page text

	// Who may attach (binding.go); set when the session is made.
	principal string
	remote    string
	keyHash   string
	init      json.RawMessage // HTTP: the client's initialize params; guarded by mu
}

// Client names the MCP client, from its initialize request. A remote
// agent's session is named by the remote (Name "devbox") and Program is
// the client program that said so in its initialize ("claude-code").
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Program string `json:"program,omitempty"`
}

// Info is a snapshot of a session.
type Info struct {
	ID        string    `json:"session_id"`
	Transport Transport `json:"transport"`
	Client    Client    `json:"client"`
	State     State     `json:"state"`
	Created   time.Time `json:"created_at"`
	LastSeen  time.Time `json:"last_seen"`
	Pending   int       `json:"pending_commands"`
	// Remote is the remote agent's name, "" for a local client.
	Remote string `json:"remote,omitempty"`
}

// ID returns the session id.
func (s *Session) ID() string { return s.id }

// Done is closed when the session has ended: closed by its client, expired
// after its TTL, or the manager stopped. A degraded session is not done.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// Info returns a snapshot of the session.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	pending := 0
	for _, c := range s.cmds {
		if !c.finished() {
			pending++
		}
	}
	return Info{ID: s.id, Transport: s.transport, Client: s.client, State: s.state, Created: s.created, LastSeen: s.lastSeen, Pending: pending, Remote: s.remote}
}

// SetClient records the client's name and version.
func (s *Session) SetClient(c Client) {
	s.mu.Lock()
	changed := s.client != c
	s.client = c
	s.mu.Unlock()
	if changed {
		s.m.persist()
	}
}

// Touch records activity now.
func (s *Session) Touch() {
	now := s.m.now()
	s.mu.Lock()
	s.lastSeen = now
	s.mu.Unlock()
}

func (s *Session) attach(now time.Time) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.state = Ready
	s.lastSeen = now
	return s.gen
}

func (s *Session) detach(gen uint64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen && s.state == Ready {
		s.state = Degraded
		s.lastSeen = now
	}
}

func (s *Session) expired(now time.Time, ttl time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == Degraded && now.Sub(s.lastSeen) > ttl
}

func (s *Session) close() {
	s.mu.Lock()
	s.state = Closed
	s.mu.Unlock()
	s.cancel()
	s.m.forget(s)
}

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == Closed
}

// Start runs a command for the session on a goroutine owned by the
// manager. run gets a context that ends when the command's bound runs out,
// the session closes or the manager stops, and that carries the command's
// correlation id and its wait note (waitnote); its return value is the
// result.
func (s *Session) Start(tool, what string, run func(ctx context.Context) any) (*Command, error) {
	now := s.m.now()
	s.mu.Lock()
	s.seq++
	c := &Command{ID: "c_" + NewID()[:16], Seq: s.seq, Tool: tool, What: what, Started: now, done: make(chan struct{}), sess: s}
	s.cmds[c.ID] = c
	s.history = append(s.history, c)
	s.mu.Unlock()
	err := s.m.goCommand(func() {
		ctx, cancel := context.WithTimeout(s.ctx, s.m.opts.CommandTimeout)
		defer cancel()
		c.finish(run(waitnote.With(ctx, c.ID, c.waiting)), s.m.now())
		s.m.retain(s, c)
	})
	if err != nil {
		s.forget(c)
		return nil, err
	}
	return c, nil
}

func (s *Session) forget(c *Command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cmds, c.ID)
	for i, x := range s.history {
		if x == c {
			s.history = append(s.history[:i], s.history[i+1:]...)
			break
		}
	}
}

// Command returns the session's command with that correlation id.
func (s *Session) Command(id string) (*Command, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cmds[id]
	return c, ok
}

// Commands lists the session's commands after the cursor (a Seq; 0 for
// all), oldest first, at most limit. A cursor older than what is kept
// simply starts at the oldest kept command.
func (s *Session) Commands(after uint64, limit int) []CommandInfo {
	now := s.m.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CommandInfo
	for _, c := range s.history {
		if c.Seq > after && len(out) < limit {
			out = append(out, c.Info(now))
		}
	}
	return out
}

// Evicted reports what became of a command whose result was evicted.
func (s *Session) Evicted(id string) (Eviction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.evicted[id]
	return e, ok
}

// oldestKept returns the session's oldest command whose result is kept
// (the caller holds m.ret.mu).
func (s *Session) oldestKept() *Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.history {
		if c.kept {
			return c
		}
	}
	return nil
}

// evict forgets a finished command and remembers why.
func (s *Session) evict(c *Command, e Eviction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cmds, c.ID)
	if i := slices.Index(s.history, c); i >= 0 {
		s.history = slices.Delete(s.history, i, i+1)
	}
	if s.evicted == nil {
		s.evicted = map[string]Eviction{}
	}
	if len(s.evOrder) == maxEvictions {
		delete(s.evicted, s.evOrder[0])
		s.evOrder = slices.Delete(s.evOrder, 0, 1)
	}
	s.evicted[c.ID] = e
	s.evOrder = append(s.evOrder, c.ID)
}

func (s *Session) commandsSnapshot() []*Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}
