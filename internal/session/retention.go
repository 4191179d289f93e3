package session

import (
	"fmt"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// Retention: a finished command's result is kept so that a client can fetch
// it later (observe command_result), but never without bounds. When a
// result is added the manager applies, at once:
//
//   - the count cap: a session keeps the results of its MaxHistory most
//     recent finished commands;
//   - the byte cap: all sessions together keep at most MaxResultBytes of
//     results (Options.Size measures one);
//
// evicting the oldest finished results first (the one just added is kept
// even when it alone is over the byte cap, so a background call's result
// can always be fetched once). A running command is never evicted. The
// sweeper also drops results older than ResultTTL. An evicted command's
// correlation id keeps answering why it is gone (Session.Evicted).

// Why a result was evicted.
const (
	EvictedCount   = "count"   // the session's count cap
	EvictedBytes   = "bytes"   // the daemon's byte cap
	EvictedExpired = "expired" // older than ResultTTL
)

// Eviction says what became of an evicted command's result.
type Eviction struct {
	ID       string
	Tool     string
	What     string
	Reason   string // EvictedCount, EvictedBytes, EvictedExpired
	Finished time.Time
	At       time.Time
	Bytes    int64
	Message  string // for the agent: why the result is gone and what to do
}

// explain says, for the agent, why the result is gone and what to do.
func (e Eviction) explain(opts Options) string {
	var why string
	switch e.Reason {
	case EvictedCount:
		why = fmt.Sprintf("each session keeps the results of its %d most recent finished commands", opts.MaxHistory)
	case EvictedBytes:
		why = fmt.Sprintf("the daemon keeps at most %d MiB of finished results across all sessions", opts.MaxResultBytes>>20)
	default:
		why = fmt.Sprintf("finished results are kept for %s", opts.ResultTTL)
	}
	return fmt.Sprintf("the result of command %s (%s %s, %d bytes) was evicted to bound the daemon's memory: %s, and the oldest go first; "+
		"run the call again if you still need its result (whatever it did has already happened)", e.ID, e.Tool, e.What, e.Bytes, why)
}

// maxEvictions bounds the evicted ids a session remembers.
const maxEvictions = 256

// retention is the manager's account of kept results. Lock order:
// retention.mu before Session.mu.
type retention struct {
	mu    sync.Mutex
	q     []*Command // kept results, in the order they finished; nil or dropped entries are skipped
	head  int        // q[:head] is consumed
	bytes int64
	count int // entries of q[head:] still kept
}

// kept returns the number and total size of the results kept.
func (m *Manager) kept() (n int, bytes int64) {
	m.ret.mu.Lock()
	defer m.ret.mu.Unlock()
	return m.ret.count, m.ret.bytes
}

// RetainedBytes returns how many bytes of finished results the manager
// keeps, and for how many commands.
func (m *Manager) RetainedBytes() (bytes int64, commands int) {
	n, b := m.kept()
	return b, n
}

// retain accounts a command that just finished and applies both caps.
func (m *Manager) retain(s *Session, c *Command) {
	size := int64(0)
	if m.opts.Size != nil {
		if v, ok := c.Result(); ok {
			size = m.opts.Size(v)
		}
	}
	r := &m.ret
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.isClosed() {
		return
	}
	c.size, c.kept = size, true
	r.q = append(r.q, c)
	r.bytes += size
	r.count++
	s.keptN++
	if s.keptN > m.opts.MaxHistory {
		if old := s.oldestKept(); old != nil {
			m.evictLocked(old, EvictedCount)
		}
	}
	for r.bytes > m.opts.MaxResultBytes {
		old := r.front()
		if old == nil || old == c {
			break
		}
		m.evictLocked(old, EvictedBytes)
	}
	r.compact()
}

// front returns the oldest kept result, dropping consumed entries.
func (r *retention) front() *Command {
	for r.head < len(r.q) {
		if c := r.q[r.head]; c != nil && c.kept {
			return c
		}
		r.q[r.head] = nil
		r.head++
	}
	return nil
}

// compact frees the consumed part of q once it is half of it.
func (r *retention) compact() {
	if r.head > 64 && r.head*2 > len(r.q) {
		r.q = append(r.q[:0:0], r.q[r.head:]...)
		r.head = 0
	}
}

// evictLocked drops a kept result (r.mu held), remembering why.
func (m *Manager) evictLocked(c *Command, reason string) {
	m.unkeepLocked(c)
	fin, _ := c.finishedAt()
	e := Eviction{ID: c.ID, Tool: c.Tool, What: c.What, Reason: reason, Finished: fin, At: m.now(), Bytes: c.size}
	e.Message = e.explain(m.opts)
	c.sess.evict(c, e)
	m.opts.Logger.Debug("command result evicted", "session", c.sess.id, "command", c.ID, "reason", reason, "bytes", c.size)
}

func (m *Manager) unkeepLocked(c *Command) {
	if !c.kept {
		return
	}
	c.kept = false
	m.ret.bytes -= c.size
	m.ret.count--
	c.sess.keptN--
}

// expire evicts results that finished more than ttl before now.
func (m *Manager) expire(now time.Time, ttl time.Duration) {
	r := &m.ret
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := r.front(); c != nil; c = r.front() {
		if fin, _ := c.finishedAt(); now.Sub(fin) <= ttl {
			break
		}
		m.evictLocked(c, EvictedExpired)
	}
	r.compact()
}

// forget drops the accounting of a closed session's results.
func (m *Manager) forget(s *Session) {
	r := &m.ret
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range s.commandsSnapshot() {
		m.unkeepLocked(c)
	}
	r.front()
	r.compact()
}

// Sizes reports the sessions and the finished results kept, against their
// bounds (the daemon's memory report).
func (m *Manager) Sizes() []memory.Store {
	n, b := m.kept()
	sessions := m.Len()
	return []memory.Store{
		{Name: "session.sessions", Len: sessions, Cap: m.opts.MaxSessions},
		{Name: "session.results", Len: n, Cap: m.opts.MaxHistory * m.opts.MaxSessions, Bytes: b, MaxBytes: m.opts.MaxResultBytes},
	}
}

// MaxSessions is the most sessions the manager keeps.
func (m *Manager) MaxSessions() int { return m.opts.MaxSessions }
