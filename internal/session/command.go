package session

import (
	"strconv"
	"sync"
	"time"
)

// Command is one tool call run on behalf of a session.
type Command struct {
	ID      string // correlation id
	Seq     uint64 // position in the session's history; the cursor
	Tool    string
	What    string
	Started time.Time

	done chan struct{} // closed when the result is set

	mu         sync.Mutex
	result     any
	ended      time.Time
	waitingFor string // what the running command waits for (waitnote), "" when it runs

	sess *Session
	size int64 // the result's size (Options.Size); guarded by the manager's retention lock
	kept bool  // the result counts against the caps; guarded likewise
}

// CommandInfo describes a command in pending_commands.
type CommandInfo struct {
	CorrelationID string `json:"correlation_id"`
	Cursor        string `json:"cursor"`
	Tool          string `json:"tool"`
	What          string `json:"what"`
	Status        string `json:"status"` // pending | complete
	// WaitingFor says what a pending command waits for rather than runs
	// (another call holding its tab: "tab 3: call c_… acts on it").
	WaitingFor string    `json:"waiting_for,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	ElapsedMS  int64     `json:"elapsed_ms"`
}

// Done is closed when the command has finished.
func (c *Command) Done() <-chan struct{} { return c.done }

// Result returns the command's result once it has finished.
func (c *Command) Result() (any, bool) {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.result, true
	default:
		return nil, false
	}
}

// Info describes the command at time now.
func (c *Command) Info(now time.Time) CommandInfo {
	ci := CommandInfo{CorrelationID: c.ID, Cursor: strconv.FormatUint(c.Seq, 10), Tool: c.Tool, What: c.What, Status: "pending", StartedAt: c.Started}
	end := now
	if fin, ok := c.finishedAt(); ok {
		ci.Status = "complete"
		end = fin
	} else {
		c.mu.Lock()
		ci.WaitingFor = c.waitingFor
		c.mu.Unlock()
	}
	ci.ElapsedMS = end.Sub(c.Started).Milliseconds()
	return ci
}

// waiting records what the running command waits for ("" once it runs
// again): the note its context carries (waitnote.With).
func (c *Command) waiting(reason string) {
	c.mu.Lock()
	c.waitingFor = reason
	c.mu.Unlock()
}

func (c *Command) finish(result any, at time.Time) {
	c.mu.Lock()
	c.result = result
	c.ended = at
	c.waitingFor = ""
	c.mu.Unlock()
	close(c.done)
}

func (c *Command) finished() bool {
	_, ok := c.finishedAt()
	return ok
}

func (c *Command) finishedAt() (time.Time, bool) {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.ended, true
	default:
		return time.Time{}, false
	}
}

// ParseCursor reads a cursor from pending_commands; "" is 0.
func ParseCursor(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}
