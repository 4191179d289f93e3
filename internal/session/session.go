// Package session tracks MCP client sessions in the daemon: which transport
// a client came on, who it is, when it was last seen, whether it is ready,
// degraded (its transport is gone but it may resume) or closed, and the
// commands it started, so a call that outlives its budget — or its client's
// connection — can be answered later by correlation id.
//
// A Manager owns every goroutine it starts (the sweeper and one per running
// command); all of them stop when the context given to New ends, and Wait
// waits for them.
package session

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Transport is how a client reaches the daemon.
type Transport string

// The transports.
const (
	Stdio Transport = "stdio" // gasoline-mcp, gasoline-host --mcp: the relay's link
	HTTP  Transport = "http"  // streamable HTTP on /mcp
)

// State is a session's state.
type State string

// The states.
const (
	Ready    State = "ready"    // a transport is attached
	Degraded State = "degraded" // the transport is gone; kept for TTL so the client can resume
	Closed   State = "closed"   // ended; its commands are cancelled
)

// Options configures a Manager. Zero values take the documented defaults.
type Options struct {
	// TTL is how long a degraded session is kept for its client to resume.
	// Default 30 minutes.
	TTL time.Duration
	// ResultTTL is how long a finished command's result is kept. Default
	// 10 minutes.
	ResultTTL time.Duration
	// CommandTimeout bounds one command. Default 10 minutes.
	CommandTimeout time.Duration
	// MaxHistory bounds the finished commands (and their results) kept per
	// session, applied when a result is added. Default 200.
	MaxHistory int
	// MaxSessions bounds the sessions kept (ready or degraded). Default
	// 256.
	MaxSessions int
	// File, when set, keeps the stdio and HTTP sessions across daemon
	// restarts (persist.go): sessions.json in the state directory.
	File string
	// MaxResultBytes bounds the results kept across all sessions, applied
	// when a result is added (retention.go). Default 64 MiB.
	MaxResultBytes int64
	// Size measures a result for MaxResultBytes. Default: every result is
	// 0 bytes (only the count cap applies).
	Size func(result any) int64
	// Now is the clock. Default time.Now.
	Now    func() time.Time
	Logger *slog.Logger

	// write writes File (tests hold it up); default state.WritePrivate,
	// not durable.
	write func(path string, data []byte) error
}

// DefaultTTL is Options.TTL's default.
const DefaultTTL = 30 * time.Minute

// DefaultMaxSessions is Options.MaxSessions' default.
const DefaultMaxSessions = 256

// DefaultMaxResultBytes is Options.MaxResultBytes' default.
const DefaultMaxResultBytes = 64 << 20

func (o *Options) fill() {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.ResultTTL <= 0 {
		o.ResultTTL = 10 * time.Minute
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 10 * time.Minute
	}
	if o.MaxHistory <= 0 {
		o.MaxHistory = 200
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.write == nil {
		o.write = func(path string, data []byte) error { return state.WritePrivate(path, data, false) }
	}
}

// ErrStopped means the manager's context has ended.
var ErrStopped = errors.New("session: manager stopped")

// Manager holds the sessions. Its methods are safe for concurrent use.
type Manager struct {
	opts Options
	ctx  context.Context
	g    *routine.Group // the sweeper and the commands

	mu       sync.Mutex
	stopped  bool // no session attaches any more
	sessions map[string]*Session
	file     persister // Options.File's writer (persist.go)

	ret retention // the results kept (retention.go)

	endMu sync.Mutex
	onEnd []func(id string) // OnEnd
}

// New returns a Manager whose sweeper and commands run until ctx ends.
func New(ctx context.Context, opts *Options) *Manager {
	m := &Manager{ctx: ctx, g: routine.NewGroup(ctx), sessions: map[string]*Session{}, file: persister{kick: make(chan struct{}, 1)}}
	if opts != nil {
		m.opts = *opts
	}
	m.opts.fill()
	m.restore()
	if !m.g.Go(m.run) {
		m.stopped = true // ctx had already ended
	}
	if m.opts.File != "" {
		m.g.Go(m.writeFile)
	}
	return m
}

// Wait waits for every goroutine of the manager; call it after the
// context given to New has ended.
func (m *Manager) Wait() { m.g.Wait() }

func (m *Manager) now() time.Time { return m.opts.Now() }

// run sweeps expired sessions and results until ctx ends, then closes
// every session.
func (m *Manager) run(ctx context.Context) {
	interval := min(m.opts.TTL, m.opts.ResultTTL) / 4
	t := time.NewTicker(max(interval, time.Second))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.sweep()
		case <-ctx.Done():
			m.mu.Lock()
			m.stopped = true
			all := m.sessions
			m.sessions = map[string]*Session{}
			m.mu.Unlock()
			for _, s := range all {
				s.close()
			}
			return
		}
	}
}

// sweep closes degraded sessions past their TTL and drops results past
// theirs (the caps are applied when a result is added).
func (m *Manager) sweep() {
	now := m.now()
	var expired []*Session
	m.mu.Lock()
	for id, s := range m.sessions {
		if s.expired(now, m.opts.TTL) {
			delete(m.sessions, id)
			expired = append(expired, s)
		}
	}
	m.mu.Unlock()
	for _, s := range expired {
		m.opts.Logger.Info("session expired", "session", s.id, "transport", s.transport)
		s.close()
		m.ended(s.id)
	}
	if len(expired) > 0 {
		m.persist()
	}
	m.expire(now, m.opts.ResultTTL)
}

// NewID returns a fresh, unguessable session id.
func NewID() string { return rand.Text() }

// Attach is Claim for the daemon's own sessions (the panel) and tests: no
// credential, no resume key.
func (m *Manager) Attach(id string, t Transport) (s *Session, gen uint64, resumed bool, err error) {
	return m.Claim(id, t, Binding{})
}

// Claim binds a transport to the session id: a new session bound to b
// (binding.go), or an existing one (ready or degraded) resumed when b may
// attach to it — else ErrNotYours, and nothing changes. The generation
// identifies this attachment for Detach, so a late Detach of a replaced
// transport does nothing.
func (m *Manager) Claim(id string, t Transport, b Binding) (s *Session, gen uint64, resumed bool, err error) {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return nil, 0, false, ErrStopped
	}
	now := m.now()
	s, resumed = m.sessions[id]
	var evicted *Session
	if resumed {
		s.mu.Lock()
		ok := s.allows(t, b)
		s.mu.Unlock()
		if !ok {
			m.mu.Unlock()
			return nil, 0, false, ErrNotYours
		}
	} else {
		if len(m.sessions) >= m.opts.MaxSessions {
			evicted = m.evictSessionLocked()
		}
		s = m.newSession(id, t, now)
		s.principal, s.remote, s.keyHash = b.Principal, b.Remote, keyHash(b.Key)
	}
	m.mu.Unlock()
	if evicted != nil {
		m.opts.Logger.Warn("session evicted: too many sessions", "session", evicted.id, "transport", evicted.transport, "max", m.opts.MaxSessions)
		evicted.close()
		m.ended(evicted.id)
	}
	gen = s.attach(now)
	if !resumed {
		m.persist() // a new session is kept (and an evicted one no longer)
	}
	return s, gen, resumed, nil
}

// evictSessionLocked removes, to make room, the session seen least recently
// among the degraded ones (their client went away), or among all when
// none is. Called with m.mu held; the caller closes it.
func (m *Manager) evictSessionLocked() *Session {
	var victim *Session
	var victimSeen time.Time
	victimDegraded := false
	for _, s := range m.sessions {
		s.mu.Lock()
		seen, degraded := s.lastSeen, s.state == Degraded
		s.mu.Unlock()
		better := victim == nil || (degraded && !victimDegraded) ||
			(degraded == victimDegraded && seen.Before(victimSeen))
		if better {
			victim, victimSeen, victimDegraded = s, seen, degraded
		}
	}
	if victim != nil {
		delete(m.sessions, victim.id)
	}
	return victim
}

// newSession adds a session; called with m.mu held.
func (m *Manager) newSession(id string, t Transport, created time.Time) *Session {
	ctx, cancel := context.WithCancel(m.ctx)
	s := &Session{m: m, id: id, transport: t, created: created, ctx: ctx, cancel: cancel, cmds: map[string]*Command{}}
	m.sessions[id] = s
	return s
}

// Detach marks the session degraded if gen is still its current
// attachment: the client may come back within the TTL.
func (m *Manager) Detach(id string, gen uint64) {
	if s := m.Get(id); s != nil {
		s.detach(gen, m.now())
	}
}

// Close ends the session: it is removed and its commands are cancelled.
func (m *Manager) Close(id string) {
	m.mu.Lock()
	s := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if s != nil {
		s.close()
		m.persist()
		m.ended(id)
	}
}

// OnEnd registers f to run, once per session, when a session ends: closed
// by its client, by Close, evicted, or expired after its TTL. What a daemon
// keeps per session (its export, its pending approvals, its recorder state
// …) is released there. A manager that stops ends no session: they are
// kept (File) for the next daemon.
func (m *Manager) OnEnd(f func(id string)) {
	m.endMu.Lock()
	defer m.endMu.Unlock()
	m.onEnd = append(m.onEnd, f)
}

func (m *Manager) ended(id string) {
	if m.ctx.Err() != nil {
		return
	}
	m.endMu.Lock()
	fs := slices.Clone(m.onEnd)
	m.endMu.Unlock()
	for _, f := range fs {
		f(id)
	}
}

// Get returns the session, or nil.
func (m *Manager) Get(id string) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[id]
}

// Counts returns the ready sessions per transport.
func (m *Manager) Counts() (stdio, http int) {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		info := s.Info()
		if info.State != Ready {
			continue
		}
		switch info.Transport {
		case Stdio:
			stdio++
		case HTTP:
			http++
		}
	}
	return stdio, http
}

// List returns a snapshot of every session kept (ready or degraded).
func (m *Manager) List() []Info {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	out := make([]Info, 0, len(all))
	for _, s := range all {
		out = append(out, s.Info())
	}
	return out
}

// Len returns the number of sessions kept (ready or degraded).
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// goCommand runs f on a goroutine owned by the manager, unless its
// context has ended.
func (m *Manager) goCommand(f func()) error {
	if !m.g.Go(func(context.Context) { f() }) {
		return ErrStopped
	}
	return nil
}

// Detached returns a closed session of no running manager: starting a
// command on it fails with ErrStopped. It stands in for calls that arrive
// while the daemon shuts down.
func Detached(id string) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &Manager{ctx: ctx, g: routine.NewGroup(ctx), stopped: true, sessions: map[string]*Session{}}
	m.opts.fill()
	return &Session{m: m, id: id, ctx: ctx, cancel: cancel, state: Closed, cmds: map[string]*Command{}}
}
